// search_files: a regex search over the workspace with the ripgrep VS Code ships
// (docs/vscode-traps.md, traps 18-20); rg itself is run by ripgrepRunner.ts, shared with list_files.

import { promises as fs } from 'fs';
import { z } from 'zod';
import type { WorkspaceHost } from '../host/workspace';
import { displayPath } from '../workspace/displayPaths';
import { isForbiddenListingRoot } from '../workspace/workspacePaths';
import { cleanRipgrepPath, commonRipgrepArgs, ripgrepMissingMessage, ripgrepTarget, runRipgrep } from './ripgrepRunner';
import { defineTool, errorResult, textResult, type ToolDefinition } from './toolDefinition';
import { workspaceTarget } from './workspaceTarget';

/** At most this many matching lines are reported; rg is stopped at the next one. */
const SEARCH_MATCH_LIMIT = 300;
/** A matching line longer than this is shown as a window around its first match. */
const SEARCH_LINE_CHARS = 300;
/** A search still running after this long is stopped and its results so far are returned. */
const SEARCH_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// rg --json parsing and grouping (pure)

interface RgText {
  text?: string;
  bytes?: string;
}
interface RgLineData {
  path: RgText;
  lines: RgText;
  line_number: number | null;
  submatches?: { start: number; end: number }[];
}

export interface SearchLine {
  line: number;
  text: string;
  isMatch: boolean;
}

export interface SearchFileGroup {
  path: string;
  lines: SearchLine[];
}

/** `text` when rg could decode it as UTF-8, else base64 `bytes` (trap 20), decoded lossily. */
export function rgText(value: RgText | undefined): string {
  if (!value) return '';
  if (typeof value.text === 'string') return value.text;
  if (typeof value.bytes === 'string') return Buffer.from(value.bytes, 'base64').toString('utf8');
  return '';
}

function stripLineEnd(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

/** Converts rg's byte offset within a line to a UTF-16 index into the decoded text. */
function charIndexOfByte(data: RgLineData, byteOffset: number): number {
  if (typeof data.lines.text === 'string') return Buffer.from(data.lines.text, 'utf8').subarray(0, byteOffset).toString('utf8').length;
  return Buffer.from(data.lines.bytes ?? '', 'base64')
    .subarray(0, byteOffset)
    .toString('utf8').length;
}

/** A long line is cut to a window around its first match, so a minified file cannot flood the result. */
export function clipLine(text: string, matchStart: number | undefined, maxChars = SEARCH_LINE_CHARS): string {
  if (text.length <= maxChars) return text;
  const from = Math.max(0, Math.min((matchStart ?? 0) - Math.floor(maxChars / 3), text.length - maxChars));
  const to = from + maxChars;
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}

/**
 * Collects rg `--json` events into per-file groups and counts matching lines; `add` returns false
 * when a match beyond `limit` arrives (the caller then stops rg and reports truncation).
 */
export class SearchCollector {
  private readonly groups = new Map<string, SearchFileGroup>();
  matches = 0;
  truncated = false;

  constructor(
    private readonly limit = SEARCH_MATCH_LIMIT,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  /** Feeds one line of rg's JSON output. Returns false once the match limit is exceeded. */
  add(jsonLine: string): boolean {
    if (jsonLine.trim() === '') return true;
    let event: { type?: string; data?: RgLineData };
    try {
      event = JSON.parse(jsonLine) as typeof event;
    } catch {
      return true; // not an event (rg never prints these, but a stray line must not fail the search)
    }
    if ((event.type !== 'match' && event.type !== 'context') || !event.data) return true;
    const isMatch = event.type === 'match';
    if (isMatch && this.matches >= this.limit) {
      this.truncated = true;
      return false;
    }
    const data = event.data;
    const file = cleanRipgrepPath(rgText(data.path), this.platform);
    const text = stripLineEnd(rgText(data.lines));
    const firstMatch = isMatch && data.submatches?.length ? charIndexOfByte(data, data.submatches[0].start) : undefined;
    let group = this.groups.get(file);
    if (!group) {
      group = { path: file, lines: [] };
      this.groups.set(file, group);
    }
    group.lines.push({ line: data.line_number ?? 0, text: clipLine(text, firstMatch), isMatch });
    if (isMatch) this.matches++;
    return true;
  }

  /**
   * Groups sorted by path, so the result does not depend on rg's thread scheduling. A context line
   * next to no reported match (the lead-in of the match that hit the limit) is dropped.
   */
  result(): SearchFileGroup[] {
    const groups: SearchFileGroup[] = [];
    for (const group of this.groups.values()) {
      const matchLines = new Set(group.lines.filter((l) => l.isMatch).map((l) => l.line));
      if (matchLines.size === 0) continue;
      const lines = group.lines.filter((l) => l.isMatch || matchLines.has(l.line - 1) || matchLines.has(l.line + 1));
      groups.push({ path: group.path, lines: lines.sort((a, b) => a.line - b.line) });
    }
    return groups.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

/**
 * ```
 * src/a.ts
 *   11- line before
 *   12: the matching line
 *   13- line after
 *   --
 *   40: another match
 * ```
 */
export function formatSearchGroups(groups: readonly SearchFileGroup[], displayFile: (file: string) => string = (f) => f): string {
  const out: string[] = [];
  for (const group of groups) {
    out.push(displayFile(group.path));
    const width = String(group.lines[group.lines.length - 1]?.line ?? 0).length;
    let previous: number | undefined;
    for (const line of group.lines) {
      if (previous !== undefined && line.line > previous + 1) out.push('  --');
      out.push(`  ${String(line.line).padStart(width)}${line.isMatch ? ':' : '-'} ${line.text}`);
      previous = line.line;
    }
  }
  return out.join('\n');
}

/**
 * rg arguments for a file pattern. A plain name pattern (`*.ts`, `*.{ts,tsx}`) becomes a custom
 * file type, which keeps .gitignore in force; a `--glob` whitelist would override it and pull in
 * ignored files. Patterns with a slash or a leading `!` need `--glob` (types match names only).
 */
export function filePatternArgs(pattern: string | undefined): string[] {
  if (pattern === undefined || pattern.trim() === '') return [];
  const p = pattern.trim();
  if (p.includes('/') || p.startsWith('!') || p.includes(':')) return ['--glob', p];
  return ['--type-add', `nativeclaudepattern:${p}`, '--type', 'nativeclaudepattern'];
}

export function searchArgs(regex: string, filePattern: string | undefined, start: string): string[] {
  return [
    '--json',
    ...commonRipgrepArgs(),
    '--context',
    '1',
    // Rust regex first; PCRE2 only when the pattern needs it (look-around, backreferences).
    '--engine',
    'auto',
    ...filePatternArgs(filePattern),
    '--regexp',
    regex,
    '--',
    start,
  ];
}

/** Turns rg's exit-2 message into what the model should do about it. */
export function ripgrepErrorMessage(stderr: string, regex: string, filePattern: string | undefined): string {
  const detail = stderr.replace(/^rg: /gm, '').trim();
  if (/regex parse error|could not be compiled|error compiling pattern/i.test(detail)) {
    return (
      `The regex ${JSON.stringify(regex)} is not valid:\n${detail}\n` +
      'Fix the pattern and retry: the syntax is Rust/PCRE2-style; escape literal ( ) [ ] { } . * + ? | \\ with a backslash.'
    );
  }
  if (/glob/i.test(detail) && filePattern !== undefined) {
    return `The file_pattern ${JSON.stringify(filePattern)} is not a valid glob:\n${detail}\nUse a glob such as "*.ts", "*.{ts,tsx}" or "src/**/*.test.ts".`;
  }
  return `The search failed (ripgrep exit code 2):\n${detail || '(no message)'}`;
}

const inputSchema = z
  .object({
    path: z.string().min(1).describe('Folder (or single file) to search, relative to the workspace folder, e.g. "." or "src".'),
    regex: z
      .string()
      .min(1)
      .describe('Regular expression (Rust regex syntax; look-around and backreferences also work). Case-sensitive; prefix with (?i) to ignore case.'),
    file_pattern: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts", "*.{ts,tsx}" or "src/**/*.test.ts". Default: all files.'),
  })
  .strict();

export function searchFilesTool(host: WorkspaceHost): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'search_files',
    title: 'Search files',
    description:
      'Search the contents of the files in a workspace folder with a regular expression (ripgrep). ' +
      'Returns the matching lines grouped by file, each with its line number and one line of context before and after ' +
      '("12:" marks a matching line, "11-" a context line, "--" a gap). ' +
      `At most ${SEARCH_MATCH_LIMIT} matching lines are returned; when there are more, the result says so and you should narrow the search ` +
      '(a subfolder path, a more specific regex, or file_pattern). Files ignored by .gitignore, binary files and folders such as node_modules and .git are skipped. ' +
      'Paths in the result are relative to the workspace folder and can be passed to read_file. It searches the files on disk with the ripgrep VS Code ships, as the built-in Grep does; either is fine.',
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ path: input, regex, file_pattern }, context) => {
      const folders = host.folders();
      const target = await workspaceTarget(host, input, { mustExist: true });
      if ('error' in target) return errorResult(target.error);
      const stat = await fs.stat(target.realPath);
      if (!stat.isDirectory() && !stat.isFile()) {
        return errorResult(
          `"${input}" is not a regular file or folder (a device, socket or pipe), so it is not searched (reading it could block or never end). Search a folder or a regular file.`,
        );
      }
      if (stat.isDirectory() && isForbiddenListingRoot(target.realPath)) {
        return errorResult(`Searching "${input}" is refused: it is the file system root or the home folder. Search a project folder inside it instead.`);
      }
      const rg = host.ripgrepPath();
      if (!rg) return errorResult(ripgrepMissingMessage());

      const { cwd, start } = await ripgrepTarget(target);
      const collector = new SearchCollector();
      const run = await runRipgrep(rg, searchArgs(regex, file_pattern, start), {
        cwd,
        signal: context.signal,
        timeoutMs: SEARCH_TIMEOUT_MS,
        onLine: (line) => collector.add(line),
      });
      if (run.spawnError) return errorResult(`ripgrep could not be started (${rg}): ${run.spawnError.message}`);

      const groups = collector.result();
      const where = displayPath(target.folder, target.relative, folders.length) || '.';
      if (groups.length === 0) {
        if (run.exitCode === 2) return errorResult(ripgrepErrorMessage(run.stderr, regex, file_pattern));
        if (run.stopped === 'timeout')
          return errorResult(`The search was stopped after ${SEARCH_TIMEOUT_MS / 1000} s without a match. Search a smaller folder or use file_pattern.`);
        return textResult(
          `No matches for ${JSON.stringify(regex)} in ${where}${file_pattern ? ` (files matching ${JSON.stringify(file_pattern)})` : ''}. ` +
            'Files ignored by .gitignore and folders like node_modules are not searched.',
        );
      }

      const fileCount = groups.length;
      const notes: string[] = [];
      if (collector.truncated) {
        notes.push(
          `truncated: true — stopped at ${SEARCH_MATCH_LIMIT} matching lines; there are more. Narrow the search (a subfolder path, a more specific regex, or file_pattern).`,
        );
      }
      if (run.stopped === 'timeout')
        notes.push(`truncated: true — the search was stopped after ${SEARCH_TIMEOUT_MS / 1000} s; these are the matches found so far.`);
      if (run.exitCode === 2 && run.stderr.trim() !== '')
        notes.push(`Some files could not be searched: ${run.stderr.trim().split('\n')[0].replace(/^rg: /, '')}`);

      const header = `${collector.matches} matching line${collector.matches === 1 ? '' : 's'} in ${fileCount} file${fileCount === 1 ? '' : 's'}`;
      const body = formatSearchGroups(groups, (file) => displayPath(target.folder, file, folders.length));
      return textResult([header, body, ...notes].join('\n'));
    },
  });
}
