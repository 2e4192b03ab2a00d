import { diffLines, type ChangeObject } from 'diff';

/**
 * The hunks between a file's before-image (as it was before claude) and its content now, and the two
 * things a user does with one: undo it (the current text gets the before lines back) or keep it (the
 * before-image takes the current lines, so the hunk is no longer shown). Lines keep their own endings
 * (`\r\n`, `\n`, none on the last line), so joining the pieces again gives the bytes back exactly.
 */
export interface ChangeHunk {
  /** Position in the file's list of hunks (0-based). */
  index: number;
  /** The before-image's lines this hunk replaces: first line (0-based) and the lines, endings included. */
  before: { start: number; lines: string[] };
  /** The current lines in their place. `lines` is empty for a deletion; `start` is then where they were. */
  current: { start: number; lines: string[] };
}

/**
 * Above this many changed lines (insertions + deletions) the two texts are not diffed, and a file changed
 * that much is kept or undone whole. The diff's work grows with the square of this number and runs on the
 * extension host: 1,000 took 66–82 ms here (all lines different, or 500 scattered changes in 50,000
 * lines), 2,000 took 340–380 ms, 4,000 took 1.6–2.1 s.
 */
export const MAX_CHANGED_LINES = 1_000;

/** One run of the diff: lines both have, or one hunk's lines on each side. */
type Piece = { same: string } | { before: string; current: string };

function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

/** The diff as pieces; undefined when the texts differ in more than MAX_CHANGED_LINES lines. */
function pieces(before: string, current: string): Piece[] | undefined {
  const changes: ChangeObject<string>[] | undefined = diffLines(before, current, { maxEditLength: MAX_CHANGED_LINES });
  if (!changes) return undefined;
  const out: Piece[] = [];
  for (const change of changes) {
    const last = out[out.length - 1];
    if (!change.added && !change.removed) out.push({ same: change.value });
    else if (last && !('same' in last)) {
      if (change.added) last.current += change.value;
      else last.before += change.value;
    } else out.push(change.added ? { before: '', current: change.value } : { before: change.value, current: '' });
  }
  return out;
}

/** The hunks from `before` to `current`, in order; undefined when they differ too much to list (see MAX_CHANGED_LINES). */
export function changeHunks(before: string, current: string): ChangeHunk[] | undefined {
  const list = pieces(before, current);
  if (!list) return undefined;
  const hunks: ChangeHunk[] = [];
  let beforeLine = 0;
  let currentLine = 0;
  for (const piece of list) {
    if ('same' in piece) {
      const count = splitLines(piece.same).length;
      beforeLine += count;
      currentLine += count;
      continue;
    }
    const beforeLines = splitLines(piece.before);
    const currentLines = splitLines(piece.current);
    hunks.push({ index: hunks.length, before: { start: beforeLine, lines: beforeLines }, current: { start: currentLine, lines: currentLines } });
    beforeLine += beforeLines.length;
    currentLine += currentLines.length;
  }
  return hunks;
}

/** Rebuilds one side, taking for each hunk the side `pick` chooses. */
function rebuild(list: Piece[], pick: (hunk: number) => 'before' | 'current'): string {
  let hunk = -1;
  let out = '';
  for (const piece of list) {
    if ('same' in piece) out += piece.same;
    else out += piece[pick(++hunk)];
  }
  return out;
}

function piecesWithHunk(before: string, current: string, index: number): Piece[] {
  const list = pieces(before, current);
  if (!list) throw new Error('the file changed too much to undo or keep hunk by hunk: undo or keep it whole');
  const count = list.filter((p) => !('same' in p)).length;
  if (!Number.isInteger(index) || index < 0 || index >= count)
    throw new Error(`there is no hunk ${index} (the file has ${count}): it changed since the list was made`);
  return list;
}

/** `current` with hunk `index` undone: its lines replaced by the before-image's; every other line as it is. */
export function undoHunk(before: string, current: string, index: number): string {
  return rebuild(piecesWithHunk(before, current, index), (h) => (h === index ? 'before' : 'current'));
}

/** The before-image with hunk `index` kept: it takes the current lines there, so only the other hunks remain. */
export function keepHunk(before: string, current: string, index: number): string {
  return rebuild(piecesWithHunk(before, current, index), (h) => (h === index ? 'current' : 'before'));
}

/**
 * The hunks that touch lines changed since claude left the file (`claudeLeft`), i.e. by someone else:
 * undoing one of those would also undo that later edit, so it is not done without asking. A hunk counts
 * when such a line lies in it or right next to it (an edit next to claude's lines is one the user may
 * have made in answer to them). Undefined when `claudeLeft` and `current` differ too much to tell: then
 * every hunk must be treated as touched.
 */
export function hunksEditedSince(claudeLeft: string, current: string, hunks: readonly ChangeHunk[]): Set<number> | undefined {
  const list = pieces(claudeLeft, current);
  if (!list) return undefined;
  // Ranges of current lines [start, end) that differ from what claude left; a deletion is an empty range.
  const edited: [number, number][] = [];
  let line = 0;
  for (const piece of list) {
    if ('same' in piece) line += splitLines(piece.same).length;
    else {
      const count = splitLines(piece.current).length;
      edited.push([line, line + count]);
      line += count;
    }
  }
  const touched = new Set<number>();
  for (const hunk of hunks) {
    const start = hunk.current.start;
    const end = start + hunk.current.lines.length;
    // Closed on both sides: a range that ends where the hunk starts, or starts where it ends, touches it.
    if (edited.some(([a, b]) => a <= end && start <= b)) touched.add(hunk.index);
  }
  return touched;
}

/**
 * The hunk an editor means by a change of the current lines `startLine`..`endLine` (1-based, as VS Code's
 * quick diff counts them; `endLine` 0 when the lines were deleted after `startLine`). The editor diffs
 * with its own algorithm, so its change and ours may be cut differently: the first hunk sharing a line
 * with it is taken (for a deletion, the one at that place). Undefined when none is there.
 */
export function hunkAtLines(hunks: readonly ChangeHunk[], startLine: number, endLine: number): number | undefined {
  if (endLine === 0) {
    // Deleted lines sit between current line startLine and the next: 0-based position startLine.
    return (
      hunks.find((h) => h.current.lines.length === 0 && h.current.start === startLine)?.index ??
      hunks.find((h) => h.current.start < startLine && startLine < h.current.start + h.current.lines.length)?.index
    );
  }
  const from = startLine - 1;
  const to = endLine; // exclusive, 0-based
  // A deletion inside the editor's range counts, not one at its edge (the editor reports that one on its own).
  return hunks.find((h) =>
    h.current.lines.length === 0 ? from < h.current.start && h.current.start < to : h.current.start < to && from < h.current.start + h.current.lines.length,
  )?.index;
}
