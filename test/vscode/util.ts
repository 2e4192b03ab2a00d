/** Helpers for inner suites (they run inside the extension host; `vscode` is the real API). */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { pollUntil } from '../support/poll';

export const EXTENSION_ID = 'native-claude.native-claude';
export const DRIVER_ID = 'native-claude-test.native-claude-test-driver';

export interface DriverApi {
  context: vscode.ExtensionContext;
  activatedAt: number;
  pid: number;
}

/** The driver extension's API (its ExtensionContext). */
export async function driver(): Promise<DriverApi> {
  const ext = vscode.extensions.getExtension<DriverApi>(DRIVER_ID);
  if (!ext) throw new Error(`driver extension ${DRIVER_ID} is not loaded`);
  return ext.isActive ? ext.exports : await ext.activate();
}

/** The installed (packaged) extension under test, activated. */
export async function installedExtension<T = unknown>(id = EXTENSION_ID): Promise<vscode.Extension<T>> {
  const ext = vscode.extensions.getExtension<T>(id);
  if (!ext) {
    const ids = vscode.extensions.all.filter((e) => !e.id.startsWith('vscode.')).map((e) => e.id);
    throw new Error(`${id} is not installed; non-builtin extensions: ${ids.join(', ')}`);
  }
  if (!ext.isActive) await ext.activate();
  return ext;
}

export { sleep } from '../support/poll';

/** Polls `fn` until it returns a truthy value; throws with `what` after `timeoutMs`. */
export function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 50): Promise<NonNullable<T>> {
  return pollUntil(what, fn, timeoutMs, intervalMs);
}

/** Resolves with the first event `event` fires that passes `filter`, or rejects after `timeoutMs`. */
export function nextEvent<T>(event: vscode.Event<T>, what: string, timeoutMs = 10_000, filter: (e: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const sub = event((e) => {
      if (!filter(e)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}

/** A new terminal with shell integration active (bash), or throws after `timeoutMs`. */
export async function terminalWithShellIntegration(options: vscode.TerminalOptions, timeoutMs = 15_000): Promise<vscode.Terminal> {
  const terminal = vscode.window.createTerminal(options);
  if (terminal.shellIntegration) return terminal;
  await nextEvent(vscode.window.onDidChangeTerminalShellIntegration, 'shell integration', timeoutMs, (e) => e.terminal === terminal);
  return terminal;
}

/** The environment of process `pid` (from /proc). */
export function readEnviron(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const i = entry.indexOf('=');
    if (i > 0) env[entry.slice(0, i)] = entry.slice(i + 1);
  }
  return env;
}

let probeSeq = 0;
/**
 * Asks the outer test (which has the workbench page) something: logs `[nc-probe] <id> <name> <json arg>`
 * and waits for the answer in `$NC_PROBE_DIR/<id>.json` (runSuiteInVsCode in test/real/harness/codeServer.ts
 * writes it; keep the marker in sync with its PROBE_MARKER).
 */
export async function probe<T>(name: string, arg?: unknown, timeoutMs = 20_000): Promise<T> {
  const id = `${process.pid}-${++probeSeq}`;
  console.log(`[nc-probe] ${id} ${name}${arg === undefined ? '' : ` ${JSON.stringify(arg)}`}`);
  const file = path.join(process.env.NC_PROBE_DIR ?? '', `${id}.json`);
  const answer = await waitFor(
    `the outer test to answer probe ${name}`,
    () => (fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { ok: boolean; value?: T; error?: string }) : undefined),
    timeoutMs,
  );
  if (!answer.ok) throw new Error(`probe ${name}: ${answer.error}`);
  return answer.value as T;
}
