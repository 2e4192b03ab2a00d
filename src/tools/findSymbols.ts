// find_symbols: VS Code's workspace symbol search (Ctrl+T): symbols by name across the workspace.

import { z } from 'zod';
import type { LanguageFeatures } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import { formatPlace, LANGUAGE_BUDGETS, runLanguageQuery, type LanguageBudgets } from './languageQuery';
import { defineTool, type ToolDefinition } from './toolDefinition';

/** Symbols listed at most; the answer then says how many were found. */
const SYMBOLS_SHOWN = 100;

const inputSchema = z.object({ query: z.string().min(1).max(200).describe('Name or part of it (fuzzy, as Ctrl+T).') }).strict();

export function findSymbolsTool(
  features: LanguageFeatures,
  host: WorkspaceHost,
  budgets: LanguageBudgets = LANGUAGE_BUDGETS,
): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'find_symbols',
    title: 'Find symbols',
    description: "Symbols by name across the workspace (VS Code's Go to Symbol in Workspace): kind, file:line:column, container.",
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args, context) =>
      runLanguageQuery(features, host, budgets, context, async (query) => {
        const found = await query.ask('workspace symbol', () => features.workspaceSymbols(args.query));
        if (found.length === 0) {
          return `No symbols matching "${args.query}". The search covers what VS Code's language servers have loaded (TypeScript: the projects of loaded files); naming a file in another tool loads its project.`;
        }
        // Exact names first, then the provider's order.
        const ranked = [...found].sort((a, b) => Number(b.name === args.query) - Number(a.name === args.query));
        const lines = [`${found.length} symbol${found.length === 1 ? '' : 's'} matching "${args.query}":`];
        for (const s of ranked.slice(0, SYMBOLS_SHOWN)) {
          const place = formatPlace(await query.placeOf(s.location), s.location.range.start);
          const outside = (await query.insideWorkspace(s.location)) === undefined ? ' (outside the workspace)' : '';
          lines.push(`${s.name} (${s.kind.toLowerCase()}) ${place}${outside}${s.container ? ` in ${s.container}` : ''}`);
        }
        if (found.length > SYMBOLS_SHOWN) lines.push(`truncated: ${SYMBOLS_SHOWN} of ${found.length} shown.`);
        return lines.join('\n');
      }),
  });
}
