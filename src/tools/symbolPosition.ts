// Where in a file the model means, for the language tools. Models are bad at columns, so a position is
// a 1-based line plus either a 1-based column or the symbol's name on that line (its first whole-word
// match); a name alone is looked up in the file's outline or the workspace symbol search, and more
// than one match is an error listing them. Plain TypeScript: unit-tested without VS Code.

import type { Position } from '../host/diagnostics';
import type { OutlineSymbol } from '../host/languageFeatures';

/** Characters of an identifier in most languages (letters, digits, `_`, `$`). */
const WORD_CHAR = /[\p{L}\p{N}_$]/u;
const WORDS = /[\p{L}_$][\p{L}\p{N}_$]*/gu;
/** Candidates listed in an error, at most. */
const CANDIDATES_SHOWN = 20;

export type Resolved<T> = T | { error: string };

/** The lines of a text, without their line breaks (`\r\n` or `\n`). */
export function linesOf(text: string): string[] {
  return text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** Start offsets of `symbol` in `line` where it stands as a whole word (no identifier character glued to it). */
export function wholeWordMatches(line: string, symbol: string): number[] {
  const found: number[] = [];
  for (let at = line.indexOf(symbol); at !== -1; at = line.indexOf(symbol, at + 1)) {
    const before = at > 0 ? line[at - 1] : '';
    const after = line[at + symbol.length] ?? '';
    const gluedBefore = before !== '' && WORD_CHAR.test(before) && WORD_CHAR.test(symbol[0]);
    const gluedAfter = after !== '' && WORD_CHAR.test(after) && WORD_CHAR.test(symbol[symbol.length - 1]);
    if (!gluedBefore && !gluedAfter) found.push(at);
  }
  return found;
}

/**
 * Where `symbol`'s name is in a declaration that starts at `from`: its first whole-word match at or after
 * `from`, within `maxLines` lines (a workspace symbol's location can be its whole declaration,
 * `export class Box …`, and the name is where the other questions must be asked).
 */
export function nameAtOrAfter(text: string, from: Position, symbol: string, maxLines = 50): Position | undefined {
  const lines = linesOf(text);
  for (let line = from.line; line < Math.min(lines.length, from.line + maxLines); line++) {
    const start = line === from.line ? from.character : 0;
    const at = wholeWordMatches(lines[line], symbol).find((c) => c >= start);
    if (at !== undefined) return { line, character: at };
  }
  return undefined;
}

/** The identifier at (or right before) a 0-based character of a line, if any. */
export function wordAt(line: string, character: number): string | undefined {
  for (const match of line.matchAll(WORDS)) {
    if (match.index <= character && character <= match.index + match[0].length) return match[0];
  }
  return undefined;
}

function listed(items: readonly string[]): string {
  const shown = items.slice(0, CANDIDATES_SHOWN).join(', ');
  return items.length > CANDIDATES_SHOWN ? `${shown}, and ${items.length - CANDIDATES_SHOWN} more` : shown;
}

/**
 * The 0-based position of `line` (1-based) and either `column` (1-based, in characters as the editor
 * counts them) or the first whole-word match of `symbol` on that line. `shown` names the file in errors.
 */
export function positionOnLine(
  text: string,
  shown: string,
  line: number,
  at: { column?: number; symbol?: string },
): Resolved<{ position: Position; word?: string }> {
  const lines = linesOf(text);
  if (line > lines.length) {
    // Counted as read_file counts them: a last line break ends a line, it does not start one.
    const count = lines.length - (lines[lines.length - 1] === '' ? 1 : 0);
    return { error: `${shown} has ${count} line${count === 1 ? '' : 's'}; line ${line} does not exist.` };
  }
  const lineText = lines[line - 1];
  if (at.column !== undefined) {
    if (at.column > lineText.length + 1) {
      return {
        error: `Line ${line} of ${shown} has ${lineText.length} characters; column ${at.column} is past its end. Give the symbol's name instead of a column.`,
      };
    }
    const character = at.column - 1;
    return { position: { line: line - 1, character }, word: wordAt(lineText, character) };
  }
  if (at.symbol !== undefined) {
    const [first] = wholeWordMatches(lineText, at.symbol);
    if (first === undefined) {
      const words = [...new Set([...lineText.matchAll(WORDS)].map((m) => m[0]))];
      const onLine = words.length ? ` Names on that line: ${listed(words)}.` : ' That line has no names.';
      return { error: `\`${at.symbol}\` is not on line ${line} of ${shown} as a whole word.${onLine}` };
    }
    return { position: { line: line - 1, character: first }, word: at.symbol };
  }
  return { error: "Give a column or the symbol's name on that line (symbol)." };
}

/**
 * The one symbol of a file's outline named `symbol` (its name position), or an error that lists the
 * candidates with their lines when there are several, or says there is none.
 */
export function symbolInOutline(outline: readonly OutlineSymbol[], symbol: string, shown: string): Resolved<{ position: Position; word: string }> {
  const matches: OutlineSymbol[] = [];
  const walk = (symbols: readonly OutlineSymbol[]) => {
    for (const s of symbols) {
      if (s.name === symbol) matches.push(s);
      walk(s.children);
    }
  };
  walk(outline);
  if (matches.length === 1) return { position: matches[0].selectionRange.start, word: symbol };
  if (matches.length === 0) return { error: `No symbol named \`${symbol}\` in the outline of ${shown}. Give the line it is on (line and symbol).` };
  const candidates = matches.map((s) => `${s.kind.toLowerCase()} at line ${s.selectionRange.start.line + 1}`);
  return { error: `${matches.length} symbols named \`${symbol}\` in ${shown}: ${listed(candidates)}. Give the line (line and symbol).` };
}

/** The one item of `items` named exactly `symbol`, or an error listing the candidates (`describe` says where each is). */
export function oneNamed<T extends { name: string }>(items: readonly T[], symbol: string, describe: (item: T) => string): Resolved<T> {
  const matches = items.filter((item) => item.name === symbol);
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) {
    return { error: `No symbol named \`${symbol}\` in VS Code's workspace symbol search. Give the file and line it is on (path, line and symbol).` };
  }
  return { error: `${matches.length} symbols named \`${symbol}\`: ${listed(matches.map(describe))}. Give the file and line (path, line and symbol).` };
}
