import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** Returns the parent pid of `pid`, or undefined when it cannot be known (gone, other OS, no rights). */
export type ParentPidReader = (pid: number) => Promise<number | undefined>;

/** The `claude` pid, its parent, grandparent… up to (not including) pid 0/1, without looping. */
export async function processAncestry(pid: number, readParent: ParentPidReader, maxDepth = 64): Promise<number[]> {
  const chain: number[] = [];
  const seen = new Set<number>();
  let current: number | undefined = pid;
  while (current !== undefined && current > 1 && !seen.has(current) && chain.length < maxDepth) {
    chain.push(current);
    seen.add(current);
    current = await readParent(current).catch(() => undefined);
  }
  return chain;
}

/**
 * A terminal's shell pid (VS Code's `Terminal.processId`), or undefined: it stays pending for a terminal
 * whose process has not started, so it is not waited on longer than `timeoutMs`.
 */
export function processIdOf(terminal: { readonly processId: PromiseLike<number | undefined> }, timeoutMs = 500): Promise<number | undefined> {
  return Promise.race([
    Promise.resolve(terminal.processId).catch(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs)),
  ]);
}

export interface TerminalCandidate<T> {
  terminal: T;
  /** The pid of the terminal's shell (VS Code's `Terminal.processId`). */
  pid: number | undefined;
  name: string;
}

/** The terminals as {@link findClaudeTerminal} takes them: each with its name and shell pid (bounded wait, {@link processIdOf}). */
export function terminalCandidates<T extends { readonly name: string; readonly processId: PromiseLike<number | undefined> }>(
  terminals: readonly T[],
): Promise<TerminalCandidate<T>[]> {
  return Promise.all(terminals.map(async (terminal) => ({ terminal, name: terminal.name, pid: await processIdOf(terminal) })));
}

/**
 * The terminal that runs the CLI with pid `cliPid`: the one whose shell is the CLI or one of its
 * ancestors (the nearest wins); else one named like Claude (the launch command names it "Claude");
 * else the active one. Under tmux or ssh the chain does not reach the terminal's shell: then the
 * name or the active terminal decides.
 */
export async function findClaudeTerminal<T>(
  cliPid: number | undefined,
  candidates: readonly TerminalCandidate<T>[],
  readParent: ParentPidReader,
  active?: T,
): Promise<T | undefined> {
  if (cliPid !== undefined && candidates.some((c) => c.pid !== undefined)) {
    const chain = await processAncestry(cliPid, readParent);
    for (const pid of chain) {
      const match = candidates.find((c) => c.pid === pid);
      if (match) return match.terminal;
    }
  }
  const named = candidates.find((c) => c.name === 'Claude') ?? candidates.find((c) => /claude/i.test(c.name));
  return named?.terminal ?? active;
}

/**
 * The ppid field of a `/proc/<pid>/stat` line. The command name (field 2) is in parentheses and may
 * itself contain spaces and `)`, so fields are counted from the last `)`.
 */
export function parseProcStatParentPid(stat: string): number | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) && ppid >= 0 ? ppid : undefined;
}

export const procParentPid: ParentPidReader = async (pid) => parseProcStatParentPid(await readFile(`/proc/${pid}/stat`, 'utf8'));

/** macOS and the BSDs have no /proc: ask `ps`. */
const psParentPid: ParentPidReader = (pid) =>
  new Promise((resolve) => {
    execFile('ps', ['-o', 'ppid=', '-p', String(pid)], { timeout: 2000 }, (error, stdout) => {
      const ppid = Number(stdout.trim());
      resolve(!error && Number.isInteger(ppid) && stdout.trim() !== '' ? ppid : undefined);
    });
  });

/** Windows has no cheap parent lookup; the terminal is then found by name. */
export function parentPidReaderFor(platform: NodeJS.Platform = process.platform): ParentPidReader {
  if (platform === 'linux') return procParentPid;
  if (platform === 'win32') return async () => undefined;
  return psParentPid;
}
