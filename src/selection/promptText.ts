import { revealInvisible } from '../util/invisibleCharacters';

/**
 * The text the hand-off commands put into claude's prompt (Fix/Explain with Claude, Ask Claude About
 * This Change, Send Cell to Claude, a terminal selection): what a careful user would have typed after
 * the @-reference, built from text that comes from outside (a linter's message, a file name, a cell's
 * output, a terminal's contents) and is therefore untrusted. docs/selection.md, "Handing work to claude".
 *
 * Everything here is plain text; {@link bracketedPaste} is the only function that makes the bytes
 * typed into claude's terminal, and it cleans its input again.
 */

/** Caps, said in the text when they cut something. */
const MESSAGE_MAX_CHARS = 500;
const PROBLEMS_MAX = 5;
const EXCERPT_MAX_CHARS = 3000;
const EXCERPT_MAX_LINES = 80;

// A whole escape sequence first (CSI, OSC/DCS/SOS/PM/APC up to BEL or ST, or ESC and one character),
// so colours in a terminal's output leave no `[31m` behind; then any control character left.
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[\s\S]?)|\x9b[0-?]*[ -/]*[@-~]/g;
// C0 (but \n, which bracketedPaste makes a newline inside the paste), DEL and C1 (0x9b is an 8-bit CSI).
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;

/**
 * Untrusted text made safe to type into a terminal inside a bracketed paste: line breaks of any kind
 * (`\r\n`, `\r`, U+2028/2029, NEL) become `\n`, a tab two spaces, escape sequences and every other
 * control character are removed (so neither `\r` nor a paste end `ESC[201~` can reach the terminal),
 * and invisible or direction-changing characters are written out as `⟦U+202E⟧`.
 */
function cleanUntrusted(text: string): string {
  const lines = text.replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n').replace(/\t/g, '  ');
  return revealInvisible(lines.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '')).text;
}

/** Untrusted text for one line (a file name, a source, a code): line breaks become spaces. */
function cleanLine(text: string, maxChars = MESSAGE_MAX_CHARS): string {
  return capChars(
    cleanUntrusted(text)
      .replace(/\s*\n\s*/g, ' ')
      .trim(),
    maxChars,
  );
}

function capChars(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… [capped at ${maxChars} characters]`;
}

/**
 * An excerpt (code, a diff, an output) cleaned and capped to `maxLines` and `maxChars`, keeping the
 * start (`head`: code, a diff) or the end (`tail`: an output, where the error usually is), with a line
 * saying what the cap left out.
 */
export function capExcerpt(text: string, keep: 'head' | 'tail' = 'head', maxLines = EXCERPT_MAX_LINES, maxChars = EXCERPT_MAX_CHARS): string {
  let lines = cleanUntrusted(text).replace(/\n+$/, '').split('\n');
  const total = lines.length;
  if (lines.length > maxLines) lines = keep === 'head' ? lines.slice(0, maxLines) : lines.slice(-maxLines);
  let body = lines.join('\n');
  if (body.length > maxChars) {
    body = keep === 'head' ? body.slice(0, maxChars) : body.slice(body.length - maxChars);
    // Whole lines only, unless that would leave (almost) nothing.
    const cut = keep === 'head' ? body.lastIndexOf('\n') : body.indexOf('\n');
    if (cut > maxChars / 2 && keep === 'head') body = body.slice(0, cut);
    if (cut !== -1 && cut < maxChars / 2 && keep === 'tail') body = body.slice(cut + 1);
  }
  const shown = body === '' ? 0 : body.split('\n').length;
  if (shown === total && body.length === lines.join('\n').length) return body;
  const note = `[${keep === 'head' ? 'first' : 'last'} ${shown} of ${total} lines shown: capped at ${maxLines} lines / ${maxChars} characters]`;
  return keep === 'head' ? `${body}\n${note}` : `${note}\n${body}`;
}

/** A Markdown fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenced(text: string, info = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${cleanLine(info, 40)}\n${text}\n${fence}`;
}

export type ProblemSeverity = 'error' | 'warning' | 'info' | 'hint';

export interface ProblemInfo {
  severity: ProblemSeverity;
  message: string;
  /** The linter or compiler (`ts`, `eslint`, `Pylance`). */
  source?: string;
  code?: string | number;
  /** 0-based line. */
  line: number;
}

const SEVERITY_WORD: Record<ProblemSeverity, string> = { error: 'error', warning: 'warning', info: 'problem', hint: 'hint' };

function problemLabel(p: ProblemInfo): string {
  const origin = [p.source, p.code]
    .filter((x) => x !== undefined && String(x) !== '')
    .map((x) => cleanLine(String(x), 60))
    .join(' ');
  return `${SEVERITY_WORD[p.severity]} on line ${p.line + 1}${origin ? ` (${origin})` : ''}`;
}

/**
 * "Fix this error on line 3 (ts 2322): Type 'string' is not assignable to type 'number'." — after the
 * file's @-reference. Several problems are listed, up to {@link PROBLEMS_MAX}.
 */
export function problemPrompt(action: 'fix' | 'explain', problems: readonly ProblemInfo[]): string {
  const verb = action === 'fix' ? 'Fix' : 'Explain';
  if (problems.length === 1) {
    const [p] = problems;
    return `${verb} this ${problemLabel(p)}: ${cleanLine(p.message)}`;
  }
  const shown = problems.slice(0, PROBLEMS_MAX);
  const more = problems.length > shown.length ? `\n[${problems.length - shown.length} more not listed: capped at ${PROBLEMS_MAX}]` : '';
  return `${verb} these ${problems.length} problems:\n${shown.map((p) => `- ${problemLabel(p)}: ${cleanLine(p.message)}`).join('\n')}${more}`;
}

export interface ChangeInfo {
  /**
   * Whose change: the file's uncommitted change (git), one claude made, or one Claude's changes lists
   * without certainty (the file changed while claude worked, no call of claude's naming it).
   */
  kind: 'git' | 'claude' | 'claude-uncertain';
  /** The file as the user reads it (workspace-relative). */
  displayPath: string;
  /** Unified-diff lines of the hunk (`-old`, `+new`); empty for a whole file. */
  diff: string;
}

/** "About this change claude made in src/a.ts:" and the hunk's diff (capped); never claims more than is known. */
export function changePrompt(change: ChangeInfo): string {
  const file = cleanLine(change.displayPath, 300);
  const head =
    change.kind === 'claude'
      ? `About this change claude made in ${file}:`
      : change.kind === 'claude-uncertain'
        ? `About this change in ${file}, made while claude was working (maybe not by claude):`
        : `About this uncommitted change in ${file}:`;
  return change.diff.trim() === '' ? head : `${head}\n${fenced(capExcerpt(change.diff, 'head'), 'diff')}`;
}

export interface CellInfo {
  displayPath: string;
  /** 0-based cell index. */
  index: number;
  language: string;
  source: string;
  /** The outputs as text, in order (stdout, results); empty when the cell has not run. */
  output: string;
  /** The error the cell raised: `Name: message` and its traceback. */
  error?: string;
}

/** "Cell 3 of analysis.ipynb (python) raised an error:" with the code and the output/error (capped). */
export function cellPrompt(cell: CellInfo): string {
  const what = cell.error ? 'raised an error' : cell.output.trim() ? 'and its output' : '';
  const head = `Cell ${cell.index + 1} of ${cleanLine(cell.displayPath, 300)} (${cleanLine(cell.language, 40)})${what ? ` ${what}` : ''}:`;
  const parts = [head, fenced(capExcerpt(cell.source, 'head', 40, 1500), cell.language)];
  if (cell.error) parts.push('Error:', fenced(capExcerpt(cell.error, 'tail', 30, 1500)));
  else if (cell.output.trim()) parts.push('Output:', fenced(capExcerpt(cell.output, 'tail', 30, 1500)));
  return parts.join('\n');
}

/** 'From the terminal "bash":' and the selected text (capped, keeping its end). */
export function terminalPrompt(terminalName: string, selection: string): string {
  return `From the terminal "${cleanLine(terminalName, 80)}":\n${fenced(capExcerpt(selection, 'tail'))}`;
}

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/**
 * The bytes to type into claude's terminal: the text, cleaned again, inside a bracketed paste. claude's
 * prompt takes a pasted newline as a line break, not Enter (VS Code's `sendText` turns `\n` into `\r`;
 * inside a paste claude reads that as a line break too). A trailing space separates what the user adds.
 */
export function bracketedPaste(text: string): string {
  const clean = cleanUntrusted(text);
  return `${PASTE_START}${clean}${clean.endsWith(' ') || clean.endsWith('\n') ? '' : ' '}${PASTE_END}`;
}
