// file_outline: a file's symbols as VS Code's outline shows them, nested, with kinds and line ranges.

import { z } from 'zod';
import type { LanguageFeatures, OutlineSymbol } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import { LANGUAGE_BUDGETS, runLanguageQuery, type LanguageBudgets } from './languageQuery';
import { defineTool, type ToolDefinition } from './toolDefinition';

/** Symbols listed at most; the answer then says how many there are. */
const OUTLINE_SHOWN = 500;

const inputSchema = z.object({ path: z.string().min(1).describe('File, relative to the workspace folder.') }).strict();

/** One line per symbol, children indented under their parent: `name (kind) lines a–b — detail`. */
function formatOutline(symbols: readonly OutlineSymbol[], limit = OUTLINE_SHOWN): { lines: string[]; total: number } {
  const lines: string[] = [];
  let total = 0;
  const walk = (list: readonly OutlineSymbol[], depth: number) => {
    const sorted = [...list].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    for (const s of sorted) {
      total++;
      if (lines.length < limit) {
        const first = s.range.start.line + 1;
        const last = s.range.end.line + 1;
        const lineRange = first === last ? `line ${first}` : `lines ${first}–${last}`;
        const detail = s.detail ? ` — ${s.detail.replace(/\s+/g, ' ').slice(0, 200)}` : '';
        lines.push(`${'  '.repeat(depth)}${s.name} (${s.kind.toLowerCase()}) ${lineRange}${detail}`);
      }
      walk(s.children, depth + 1);
    }
  };
  walk(symbols, 0);
  return { lines, total };
}

export function fileOutlineTool(
  features: LanguageFeatures,
  host: WorkspaceHost,
  budgets: LanguageBudgets = LANGUAGE_BUDGETS,
): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'file_outline',
    title: 'File outline',
    description: "A file's symbols as VS Code's outline shows them: nested, with kinds and 1-based line ranges.",
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args, context) =>
      runLanguageQuery(features, host, budgets, context, async (query) => {
        const file = await query.openFile(args.path);
        const outline = await query.ask('document symbol', () => features.outline(file.target.realPath), file.opened.languageId);
        if (outline.length === 0) return `${file.shown}: no symbols. VS Code's document symbol provider for ${file.opened.languageId} found none.`;
        const { lines, total } = formatOutline(outline);
        const truncated = total > lines.length ? [`truncated: ${lines.length} of ${total} shown.`] : [];
        return [`${file.shown}: ${total} symbol${total === 1 ? '' : 's'}`, ...lines, ...truncated].join('\n');
      }),
  });
}
