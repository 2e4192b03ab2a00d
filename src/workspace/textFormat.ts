// Line endings, BOM and final newline: the three ways a proposal can differ from a file byte-wise
// without differing in content (vscode-pitfalls.md items 2-4). Pure string functions.

export type Eol = '\n' | '\r\n';

const BOM = '\uFEFF';

export function hasBom(text: string): boolean {
  return text.charCodeAt(0) === 0xfeff;
}

export function stripBom(text: string): string {
  return hasBom(text) ? text.slice(1) : text;
}

/** How many `\r\n` and how many bare `\n` line breaks the text has. A lone `\r` is not counted. */
export function countLineBreaks(text: string): { crlf: number; lf: number } {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 0x0d) crlf++;
    else lf++;
  }
  return { crlf, lf };
}

/**
 * The text's line ending: the majority of its line breaks. `fallback` is returned when there is no
 * line break at all, or as many `\r\n` as `\n`.
 */
export function detectEol(text: string, fallback: Eol = '\n'): Eol {
  return majorityEol(countLineBreaks(text), fallback);
}

/** {@link detectEol} from counts already made (by a caller that splits the text into lines anyway). */
export function majorityEol({ crlf, lf }: { crlf: number; lf: number }, fallback: Eol = '\n'): Eol {
  if (crlf > lf) return '\r\n';
  if (lf > crlf) return '\n';
  return fallback;
}

/** `\r\n` → `\n`. A lone `\r` is left alone: it is content, not a line break, for this project. */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** Every line break of the text, whatever it was, becomes `eol`. */
export function withEol(text: string, eol: Eol): string {
  const lf = toLf(text);
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}

export function hasFinalNewline(text: string): boolean {
  return text.endsWith('\n');
}

/**
 * Makes a proposed new content look like the original file byte-wise where the difference is only
 * format, so accepting an unchanged proposal writes back an identical file:
 *
 * - BOM: the proposal's BOM is dropped; the original's BOM, if any, is restored.
 * - EOL: the proposal takes the original's line ending (its majority). When the original has no
 *   line break, or a tie, the proposal keeps its own (majority) line ending.
 * - Final newline, the rule: ADDING one is honoured, REMOVING one is not.
 *   - original ends with a newline, proposal does not → one newline is appended, because generated
 *     or trimmed text loses it by accident far more often than anyone removes it on purpose
 *     (an empty proposal stays empty: emptying a file is clearly on purpose);
 *   - original has none, proposal has one → kept: ending a file with a newline is the convention,
 *     so it is taken as deliberate (and it is harmless);
 *   - extra trailing blank lines in the proposal are content and are kept.
 */
export function matchOriginalFormat(original: string, proposed: string): string {
  const originalBody = stripBom(original);
  let body = stripBom(proposed);
  const eol = detectEol(originalBody, detectEol(body));
  body = withEol(body, eol);
  if (hasFinalNewline(originalBody) && body.length > 0 && !hasFinalNewline(body)) {
    body += eol;
  }
  return (hasBom(original) ? BOM : '') + body;
}
