// describe_symbol: what VS Code's hover shows for a symbol (its type signature and documentation), as
// plain text with the code in fences.

import { z } from 'zod';
import type { LanguageFeatures } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import { LANGUAGE_BUDGETS, type LanguageBudgets, positionFields, runLanguageQuery, symbolLabel } from './languageQuery';
import { defineTool, type ToolDefinition } from './toolDefinition';

/** Characters of hover text returned at most. */
const HOVER_CHARS = 20_000;

const inputSchema = z.object({ ...positionFields }).strict();

/**
 * A hover's markdown as plain text: links become their label (a hover's `command:` links run
 * commands in VS Code, which means nothing to the model), HTML entities VS Code's TypeScript uses for
 * spaces are spaces again, code fences stay.
 */
function hoverText(contents: readonly string[]): string {
  const parts = contents
    .map((c) =>
      c
        .replace(/\[([^\]]*)\]\((?:command:|https?:|file:)[^)]*\)/g, '$1')
        .replace(/&nbsp;/g, ' ')
        .trim(),
    )
    .filter((c) => c !== '');
  const text = parts.join('\n\n');
  return text.length > HOVER_CHARS ? `${text.slice(0, HOVER_CHARS)}\n… [hover truncated: ${text.length} characters in total]` : text;
}

export function describeSymbolTool(
  features: LanguageFeatures,
  host: WorkspaceHost,
  budgets: LanguageBudgets = LANGUAGE_BUDGETS,
): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'describe_symbol',
    title: 'Describe symbol',
    description: "A symbol's type and documentation as VS Code's hover shows them (inferred types too). Position as in find_definitions.",
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args, context) =>
      runLanguageQuery(features, host, budgets, context, async (query) => {
        const at = await query.resolve(args);
        const text = hoverText(await query.ask('hover', () => features.hover(at.target.realPath, at.position), at.opened.languageId));
        const heading = symbolLabel(at);
        if (text === '') return `${heading}: VS Code's hover provider for ${at.opened.languageId} shows nothing at that position.`;
        return `${heading}:\n${text}`;
      }),
  });
}
