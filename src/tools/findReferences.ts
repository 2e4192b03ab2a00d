// find_references: every reference to a symbol as VS Code's reference provider finds it (not a text
// search: comments, strings and other symbols of the same name are not in it), grouped by file, each
// with its line's text, the declaration marked, capped with the total said.

import { z } from 'zod';
import type { LanguageFeatures, SourceLocation } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import { distinctLocations, LANGUAGE_BUDGETS, type LanguageBudgets, type LanguageQuery, LanguageToolError, positionFields, runLanguageQuery, symbolLabel } from './languageQuery';
import { defineTool, type ToolDefinition } from './toolDefinition';

/** References listed at most; the answer then says how many there are. */
export const REFERENCES_SHOWN = 200;

const inputSchema = z.object({ ...positionFields }).strict();

interface Shaped {
  location: SourceLocation;
  file: string;
  declaration: boolean;
}

/** A definition names the declaration's name, which the reference of the declaration starts at too. */
const startsAtSamePlace = (a: SourceLocation, b: SourceLocation) =>
  (a.path ?? a.uri) === (b.path ?? b.uri) && a.range.start.line === b.range.start.line && a.range.start.character === b.range.start.character;

const byPosition = (a: SourceLocation, b: SourceLocation) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;

/** The references sorted by file and position, at most `limit` of them, grouped by file under their names. */
export async function formatReferences(query: LanguageQuery, references: readonly SourceLocation[], declarations: readonly SourceLocation[], heading: string, limit = REFERENCES_SHOWN): Promise<string> {
  const shaped: Shaped[] = [];
  for (const location of references) {
    shaped.push({ location, file: await query.placeOf(location), declaration: declarations.some((d) => startsAtSamePlace(d, location)) });
  }
  shaped.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || byPosition(a.location, b.location));
  const files = new Set(shaped.map((s) => s.file));
  const lines = [`${heading}: ${shaped.length} reference${shaped.length === 1 ? '' : 's'} in ${files.size} file${files.size === 1 ? '' : 's'}`];
  let current: string | undefined;
  for (const s of shaped.slice(0, limit)) {
    if (s.file !== current) {
      current = s.file;
      const outside = (await query.insideWorkspace(s.location)) === undefined;
      lines.push(outside ? `${s.file} (outside the workspace: contents not shown)` : s.file);
    }
    const text = await query.lineText(s.location);
    const place = `${s.location.range.start.line + 1}:${s.location.range.start.character + 1}`;
    lines.push(`  ${place}${s.declaration ? ' (declaration)' : ''}${text ? ` — ${text}` : ''}`);
  }
  if (shaped.length > limit) lines.push(`truncated: ${limit} of ${shaped.length} shown.`);
  return lines.join('\n');
}

export function findReferencesTool(features: LanguageFeatures, host: WorkspaceHost, budgets: LanguageBudgets = LANGUAGE_BUDGETS): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'find_references',
    title: 'Find references',
    description: "Every reference to a symbol, from VS Code's language server (no comments, strings or same-named symbols), grouped by file with each line's text, the declaration marked. Position as in find_definitions.",
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args, context) =>
      runLanguageQuery(features, host, budgets, context, async (query) => {
        const at = await query.resolve(args);
        const file = at.target.realPath;
        // The declaration is marked where the definition provider points, asked at the same time; without
        // its answer in time nothing is marked and the answer says so.
        const declarationsAsked = query.ask('definition', () => features.definitions(file, at.position, 'definition'), at.opened.languageId).then(
          (found): SourceLocation[] | 'not answered' => found,
          (error: unknown) => {
            if (error instanceof LanguageToolError) return 'not answered' as const;
            throw error;
          },
        );
        // Handled now: a reference error below must not leave it rejected unobserved.
        declarationsAsked.catch(() => undefined);
        const references = distinctLocations(await query.ask('reference', () => features.references(file, at.position), at.opened.languageId));
        const heading = `References to ${symbolLabel(at)}`;
        if (references.length === 0) return `${heading}: none. VS Code's reference provider for ${at.opened.languageId} found none at that position.`;
        const declarations = await declarationsAsked;
        if (declarations === 'not answered') return `${await formatReferences(query, references, [], heading)}\n(declaration not marked: the definition provider did not answer in time)`;
        return formatReferences(query, references, declarations, heading);
      }),
  });
}
