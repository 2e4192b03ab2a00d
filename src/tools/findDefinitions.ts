// find_definitions: where a symbol is defined (or, with implementations, implemented), from VS Code's
// definition and implementation providers (src/tools/languageQuery.ts has the shared rules).

import { z } from 'zod';
import type { LanguageFeatures } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import { distinctLocations, LANGUAGE_BUDGETS, type LanguageBudgets, positionFields, runLanguageQuery, symbolLabel } from './languageQuery';
import { defineTool, type ToolDefinition } from './toolDefinition';

const inputSchema = z
  .object({
    ...positionFields,
    implementations: z.boolean().optional().describe('The implementations (of an interface, abstract method) instead.'),
  })
  .strict();

export function findDefinitionsTool(
  features: LanguageFeatures,
  host: WorkspaceHost,
  budgets: LanguageBudgets = LANGUAGE_BUDGETS,
): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'find_definitions',
    title: 'Find definitions',
    description:
      "Where a symbol is defined (or implemented), from VS Code's language server. Position: path + line + column or symbol name; or symbol alone. Answers file:line:column — line text.",
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args, context) =>
      runLanguageQuery(features, host, budgets, context, async (query) => {
        const at = await query.resolve(args);
        const kind = args.implementations ? 'implementation' : 'definition';
        const found = distinctLocations(await query.ask(kind, () => features.definitions(at.target.realPath, at.position, kind), at.opened.languageId));
        const of = `${kind === 'implementation' ? 'Implementations' : 'Definition'} of ${symbolLabel(at)}`;
        if (found.length === 0) return `${of}: none. VS Code's ${kind} provider for ${at.opened.languageId} found none at that position.`;
        const lines = await Promise.all(found.map((l) => query.describeLocation(l)));
        return [`${of}${found.length > 1 ? ` (${found.length})` : ''}:`, ...lines].join('\n');
      }),
  });
}
