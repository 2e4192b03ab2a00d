import diff3Merge from 'diff3';
import { stripBom, toLf } from '../workspace/textFormat';

/**
 * A proposal for a file the user has unsaved edits in, merged with those edits (docs/review.md,
 * "A file with unsaved edits"): base = the saved file (what the proposal was made from), ours = the
 * user's buffer, theirs = Claude's proposal. The merge itself is the `diff3` package's (GitKraken's
 * diff3 over Wu's O(NP) diff); this module only splits lines, bounds the work and writes the markers.
 */

/** The conflict markers: git's, so VS Code's merge-conflict support and every user recognise them. */
export const OURS_MARKER = '<<<<<<< your unsaved edits';
export const SEPARATOR_MARKER = '=======';
export const THEIRS_MARKER = ">>>>>>> Claude's proposal";

/**
 * The most line comparisons the merge may cost (its diff is O((N+M)·P), P the lines of the shorter
 * side not in their longest common subsequence), bounded from above in linear time. 10,000 disjoint
 * edits of a 1 MB file of 35,000 lines are 3.5·10^8: merged, in about 2.5 s (bench/merge.bench.ts).
 * Past it the changed region is one conflict, shown at once, so the extension host is not held for long
 * (a proposal that reorders the lines of a large file would otherwise cost N²).
 */
const MERGE_WORK_LIMIT = 4e8;

export interface UnsavedEditsMerge {
  /** The merged text, `\n` line ends, no BOM; with conflict markers where both changed the same lines. */
  text: string;
  /** How many regions conflict (both sides changed the same or adjacent lines differently). */
  conflicts: number;
  /** The work limit was passed: the whole changed region was made one conflict without a line merge. */
  tooLarge: boolean;
}

/**
 * Merges Claude's proposal with the user's unsaved edits. Line ends (`\r\n`/`\n`) and a BOM are
 * ignored here: the caller writes the result in the file's (or the proposal's) own.
 */
export function mergeUnsavedEdits(saved: string, unsaved: string, proposal: string): UnsavedEditsMerge {
  const o = linesOf(saved);
  const a = linesOf(unsaved);
  const b = linesOf(proposal);
  // Lines the three share at the start and end take no part in the merge: only the middle is diffed.
  let head = 0;
  while (head < o.length && head < a.length && head < b.length && o[head] === a[head] && o[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < o.length - head &&
    tail < a.length - head &&
    tail < b.length - head &&
    o[o.length - 1 - tail] === a[a.length - 1 - tail] &&
    o[o.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const middle = (xs: string[]) => xs.slice(head, xs.length - tail);
  const [om, am, bm] = [middle(o), middle(a), middle(b)];
  const out: string[] = o.slice(0, head);
  let conflicts = 0;
  let tooLarge = false;
  if (same(am, om)) out.push(...bm);
  else if (same(bm, om) || same(am, bm)) out.push(...am);
  else if (work(om, am) > MERGE_WORK_LIMIT || work(om, bm) > MERGE_WORK_LIMIT) {
    tooLarge = true;
    conflicts = 1;
    pushConflict(out, am, bm);
  } else {
    for (const region of diff3Merge(am, om, bm)) {
      if (region.ok) out.push(...region.ok);
      else if (region.conflict) {
        conflicts++;
        pushConflict(out, region.conflict.a, region.conflict.b);
      }
    }
  }
  out.push(...o.slice(o.length - tail));
  return { text: out.join(''), conflicts, tooLarge };
}

/** How many conflict regions the text still holds (its `<<<<<<< your unsaved edits` lines). */
export function conflictsLeft(text: string): number {
  let count = 0;
  for (const line of toLf(text).split('\n')) if (line === OURS_MARKER) count++;
  return count;
}

/** One conflict left in a review's right side: 0-based lines of its three markers, and each side's lines. */
export interface ConflictRegion {
  start: number;
  separator: number;
  end: number;
  ours: string[];
  theirs: string[];
}

/**
 * The conflicts the text holds, in order: a `<<<<<<< your unsaved edits` line, then `=======`, then
 * `>>>>>>> Claude's proposal`. A region whose markers the user broke (one deleted, another conflict
 * started inside) is not one: nothing is offered for it.
 */
export function conflictRegions(text: string): ConflictRegion[] {
  const lines = toLf(text).split('\n');
  const regions: ConflictRegion[] = [];
  for (let start = 0; start < lines.length; start++) {
    if (lines[start] !== OURS_MARKER) continue;
    const separator = lines.findIndex((l, i) => i > start && (l === SEPARATOR_MARKER || l === OURS_MARKER || l === THEIRS_MARKER));
    if (separator === -1 || lines[separator] !== SEPARATOR_MARKER) continue;
    const end = lines.findIndex((l, i) => i > separator && (l === THEIRS_MARKER || l === OURS_MARKER || l === SEPARATOR_MARKER));
    if (end === -1 || lines[end] !== THEIRS_MARKER) continue;
    regions.push({ start, separator, end, ours: lines.slice(start + 1, separator), theirs: lines.slice(separator + 1, end) });
    start = end;
  }
  return regions;
}

/** The lines a conflict becomes when the user keeps one side, or both (theirs after ours). */
export function keptLines(region: ConflictRegion, keep: 'ours' | 'theirs' | 'both'): string[] {
  return keep === 'ours' ? region.ours : keep === 'theirs' ? region.theirs : [...region.ours, ...region.theirs];
}

/** Lines with their `\n`; the last one has none when the text does not end with a line break. */
function linesOf(text: string): string[] {
  const lf = toLf(stripBom(text));
  const lines = lf.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

function pushConflict(out: string[], ours: string[], theirs: string[]): void {
  out.push(`${OURS_MARKER}\n`, ...terminated(ours), `${SEPARATOR_MARKER}\n`, ...terminated(theirs), `${THEIRS_MARKER}\n`);
}

/** A side's lines inside markers: its last line gets a line break so the next marker starts a line. */
function terminated(lines: string[]): string[] {
  const last = lines[lines.length - 1];
  return last === undefined || last.endsWith('\n') ? lines : [...lines.slice(0, -1), `${last}\n`];
}

function same(x: string[], y: string[]): boolean {
  return x.length === y.length && x.every((line, i) => line === y[i]);
}

/**
 * An upper bound of the diff's cost: (N+M) times P, with P taken from a common subsequence found
 * greedily (each line of `side` matched to the next equal line of `base`, in order), which is never
 * longer than the longest one. Linear apart from the binary searches.
 */
function work(base: string[], side: string[]): number {
  const positions = new Map<string, number[]>();
  base.forEach((line, i) => {
    const list = positions.get(line);
    if (list) list.push(i);
    else positions.set(line, [i]);
  });
  let next = 0;
  let common = 0;
  for (const line of side) {
    const list = positions.get(line);
    if (!list || list[list.length - 1] < next) continue;
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid] < next) lo = mid + 1;
      else hi = mid;
    }
    common++;
    next = list[lo] + 1;
  }
  return (base.length + side.length) * (Math.min(base.length, side.length) - common);
}
