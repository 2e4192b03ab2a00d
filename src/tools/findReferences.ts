// find_references: every reference to a symbol as VS Code's reference provider finds it (not a text
// search: comments, strings and other symbols of the same name are not in it), grouped by file, each
// with its line's text, the declaration marked, capped with the total said.

import { z } from 'zod';
import type { LanguageFeatures, SourceLocation } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import {
  distinctLocations,
  LANGUAGE_BUDGETS,
  type LanguageBudgets,
  type LanguageQuery,
  LanguageToolError,
  positionFields,
  runLanguageQuery,
  symbolLabel,
} from './languageQuery';
import { defineTool, type ToolDefinition } from './toolDefinition';

/** References listed at most; the answer then says how many there are. */
export const REFERENCES_SHOWN = 200;

const inputSchema = z.object({ ...positionFields }).strict();

interface Shaped {
  location: SourceLocation;
  file: string;
}

/** A definition names the declaration's name, which the reference of the declaration starts at too. */
const startsAtSamePlace = (a: SourceLocation, b: SourceLocation) =>
  (a.path ?? a.uri) === (b.path ?? b.uri) && a.range.start.line === b.range.start.line && a.range.start.character === b.range.start.character;

const byPosition = (a: SourceLocation, b: SourceLocation) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;

/** The definition provider's answer (where the declarations are), or that it did not answer in time. */
export type Declarations = readonly SourceLocation[] | 'not answered';

/**
 * The references sorted by file and position, at most `limit` of them, grouped by file under their
 * names, the declarations marked. `declarations` may still be coming (find_references asks the definition
 * provider after the references): the rest is prepared meanwhile. Not answered: nothing marked, said so.
 */
async function formatReferences(
  query: LanguageQuery,
  references: readonly SourceLocation[],
  declarations: Declarations | Promise<Declarations>,
  heading: string,
  limit = REFERENCES_SHOWN,
): Promise<string> {
  // Each file's name worked out once (a list of hundreds of references names a few dozen files).
  const names = new Map<string, Promise<string>>();
  const nameOf = (location: SourceLocation) => {
    const key = location.path ?? location.uri;
    let name = names.get(key);
    if (!name) names.set(key, (name = query.placeOf(location)));
    return name;
  };
  const shaped: Shaped[] = await Promise.all(references.map(async (location) => ({ location, file: await nameOf(location) })));
  shaped.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || byPosition(a.location, b.location));
  const files = new Set(shaped.map((s) => s.file));
  const shown = shaped.slice(0, limit);
  const texts = await query.lineTexts(shown.map((s) => s.location));
  const outside = await Promise.all(shown.map(async (s) => (await query.insideWorkspace(s.location)) === undefined));
  const marks = await declarations;
  const declared = marks === 'not answered' ? [] : marks;
  const lines = [`${heading}: ${shaped.length} reference${shaped.length === 1 ? '' : 's'} in ${files.size} file${files.size === 1 ? '' : 's'}`];
  let current: string | undefined;
  for (const [i, s] of shown.entries()) {
    if (s.file !== current) {
      current = s.file;
      lines.push(outside[i] ? `${s.file} (outside the workspace: contents not shown)` : s.file);
    }
    const text = texts[i];
    const place = `${s.location.range.start.line + 1}:${s.location.range.start.character + 1}`;
    const declaration = declared.some((d) => startsAtSamePlace(d, s.location));
    lines.push(`  ${place}${declaration ? ' (declaration)' : ''}${text ? ` — ${text}` : ''}`);
  }
  if (shaped.length > limit) lines.push(`truncated: ${limit} of ${shaped.length} shown.`);
  if (marks === 'not answered') lines.push('(declaration not marked: the definition provider did not answer in time)');
  return lines.join('\n');
}

export function findReferencesTool(
  features: LanguageFeatures,
  host: WorkspaceHost,
  budgets: LanguageBudgets = LANGUAGE_BUDGETS,
): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'find_references',
    title: 'Find references',
    description:
      "Every reference to a symbol, from VS Code's language server (no comments, strings or same-named symbols), grouped by file with each line's text, the declaration marked. Position as in find_definitions.",
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args, context) =>
      runLanguageQuery(features, host, budgets, context, async (query) => {
        const at = await query.resolve(args);
        const file = at.target.realPath;
        // The declaration is marked where the definition provider points. Asked after the references:
        // a language server answers one request at a time, and the references' answer is then shaped
        // (paths, boundary checks, line texts) while the definition is being answered. Without its
        // answer in time nothing is marked and the answer says so.
        const referencesAsked = query.ask('reference', () => features.references(file, at.position), at.opened.languageId);
        const declarationsAsked = query
          .ask('definition', () => features.definitions(file, at.position, 'definition'), at.opened.languageId)
          .then(
            (found): Declarations => found,
            (error: unknown) => {
              if (error instanceof LanguageToolError) return 'not answered' as const;
              throw error;
            },
          );
        // Handled now: a reference error below must not leave it rejected unobserved.
        declarationsAsked.catch(() => undefined);
        const references = distinctLocations(await referencesAsked);
        const heading = `References to ${symbolLabel(at)}`;
        if (references.length === 0) return `${heading}: none. VS Code's reference provider for ${at.opened.languageId} found none at that position.`;
        return formatReferences(query, references, declarationsAsked, heading);
      }),
  });
}
