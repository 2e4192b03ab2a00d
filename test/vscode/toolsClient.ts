/**
 * Helpers for the tools-*.test.ts inner suites (test/real/vscode-tools.test.ts runs them): a real MCP
 * `Client` on the extension's `/tools` route, connected exactly as the CLI's user-scope entry would be
 * (port and token from the lock file in $CLAUDE_CONFIG_DIR/ide), the review tabs, per-test results for
 * the outer test, and the common setup of those suites (`toolsSuite()`). Probes (questions only the outer
 * test can answer) are `probe()` from ./util.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HeaderWebSocketClientTransport } from '../support/wsClientTransport';
import { afterEach, before, beforeEach } from './bdd';
import { installedExtension, sleep, waitFor } from './util';

export const PROPOSAL_SCHEME = 'native-claude-proposal';
export const ORIGINAL_SCHEME = 'native-claude-original';
export const AUTH_HEADER = 'x-claude-code-ide-authorization';

/** The outer test's environment (test/real/vscode-tools.test.ts). */
export const TOOLS_ENV = {
  results: process.env.NC_TOOLS_RESULTS ?? '',
};
/** True when the outer test started this run (the suites skip otherwise). */
export const toolsRunActive = (): boolean => TOOLS_ENV.results !== '';

export interface NativeClaudeApi {
  status(): { running: boolean; port?: number; lockFilePath?: string; sessionCount: number; connections: number };
  pendingReviews(): number;
}

export interface ToolAnswer {
  isError: boolean;
  text: string;
  /** The text parsed as JSON, when it is JSON. */
  json?: Record<string, unknown>;
}

export interface ToolsConnection {
  client: Client;
  port: number;
  lockPath: string;
  api: NativeClaudeApi;
  call(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<ToolAnswer>;
}

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open');
  return folder.uri.fsPath;
}

function answerOf(result: CallToolResult): ToolAnswer {
  const text = result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
  } catch {
    // plain text
  }
  return { isError: result.isError === true, text, json };
}

const connections = new Map<string, Promise<ToolsConnection>>();

/**
 * One connection for the whole run: the lock file of this window (in $CLAUDE_CONFIG_DIR/ide, the one
 * naming this workspace) gives the port and the token, as for the CLI.
 */
export function tools(): Promise<ToolsConnection> {
  return connect('/tools');
}

/** The IDE route (`/`), as the CLI's IDE connection: openDiff, close_tab, closeAllDiffTabs. */
export function ideRoute(): Promise<ToolsConnection> {
  return connect('/');
}

function connect(route: '/' | '/tools'): Promise<ToolsConnection> {
  let connection = connections.get(route);
  connection ??= (async () => {
    const ext = await installedExtension<NativeClaudeApi>();
    const api = ext.exports;
    await waitFor('the IDE server to run', () => api.status().running, 30_000);
    const configDir = process.env.CLAUDE_CONFIG_DIR;
    assert.ok(configDir, 'CLAUDE_CONFIG_DIR is set for code-server');
    const lockDir = path.join(configDir, 'ide');
    const workspace = fs.realpathSync(workspaceRoot());
    const locks = fs
      .readdirSync(lockDir)
      .filter((f) => /^\d+\.lock$/.test(f))
      .map((f) => ({
        file: path.join(lockDir, f),
        port: Number(f.slice(0, -'.lock'.length)),
        content: JSON.parse(fs.readFileSync(path.join(lockDir, f), 'utf8')) as { workspaceFolders: string[]; authToken: string },
      }))
      .filter((l) => l.content.workspaceFolders.includes(workspace));
    assert.strictEqual(locks.length, 1, `exactly one lock file names ${workspace}: ${JSON.stringify(locks.map((l) => l.file))}`);
    const [lock] = locks;
    assert.strictEqual(lock.port, api.status().port, "the lock file is the running server's");
    const transport = new HeaderWebSocketClientTransport(`ws://127.0.0.1:${lock.port}${route}`, { [AUTH_HEADER]: lock.content.authToken });
    const client = new Client({ name: 'native-claude-tools-test', version: '0.0.0' });
    await client.connect(transport);
    return {
      client,
      port: lock.port,
      lockPath: lock.file,
      api,
      call: async (name, args, timeoutMs = 120_000) =>
        answerOf((await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as CallToolResult),
    };
  })();
  connections.set(route, connection);
  return connection;
}

// ---------------------------------------------------------------------------------------------
// Review tabs

export interface ProposalTab {
  tab: vscode.Tab;
  input: vscode.TabInputTextDiff;
}

export function proposalTabs(): ProposalTab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME)
    .map((tab) => ({ tab, input: tab.input as vscode.TabInputTextDiff }));
}

/**
 * The review diff of the file named `base`, fully open: the tab exists and its right side is the active
 * editor (the `vscode.diff` command has finished), plus a human moment before anyone decides.
 */
export async function openedReview(base: string, timeoutMs = 20_000): Promise<ProposalTab & { document: vscode.TextDocument }> {
  const found = await waitFor(
    `a review diff tab for ${base}`,
    () => proposalTabs().find((t) => path.posix.basename(t.input.modified.path) === base),
    timeoutMs,
  );
  const uri = found.input.modified.toString();
  await waitFor(`the review of ${base} to be the active editor`, () => vscode.window.activeTextEditor?.document.uri.toString() === uri, 10_000);
  await sleep(300);
  const document = await vscode.workspace.openTextDocument(found.input.modified);
  return { ...found, document };
}

export function tabOpen(modified: vscode.Uri): boolean {
  return proposalTabs().some((t) => t.input.modified.toString() === modified.toString());
}

// ---------------------------------------------------------------------------------------------
// Results for the outer test, keyed by the `[key]` that starts each test title

type Result = { state?: string; error?: string; ms?: number; data?: Record<string, unknown> };
const results: Record<string, Result> = {};
const data: Record<string, Record<string, unknown>> = {};
const keyOf = (title: string) => /^\[([\w-]+)\]/.exec(title)?.[1] ?? title;

/** Data a test wants the outer test to see (and print when it fails). */
export function record(key: string, values: Record<string, unknown>): void {
  Object.assign((data[key] ??= {}), values);
}

/** Call inside a describe: writes each test's outcome to $NC_TOOLS_RESULTS after it ran. */
export function recordOutcomes(): void {
  let started = 0;
  beforeEach(() => {
    started = Date.now();
  });
  afterEach(function () {
    const test = (this as unknown as { currentTest?: { title: string; state?: string; err?: Error } }).currentTest;
    if (!test || !toolsRunActive()) return;
    const key = keyOf(test.title);
    results[key] = { state: test.state, error: test.err ? String(test.err.stack ?? test.err) : undefined, ms: Date.now() - started, data: data[key] };
    fs.writeFileSync(TOOLS_ENV.results, JSON.stringify(results, null, 2));
  });
}

/**
 * Call inside a tools-*.test.ts describe: records each test's outcome (recordOutcomes), skips the suite
 * unless the outer test started this run, else connects and hands `setup` the connection and the workspace
 * folder (then runs the rest of the suite's own preparation).
 */
export function toolsSuite(setup: (t: ToolsConnection, ws: string) => void | Promise<void>): void {
  recordOutcomes();
  before(async function () {
    if (!toolsRunActive()) this.skip();
    this.timeout(90_000);
    const ws = workspaceRoot();
    await setup(await tools(), ws);
  });
}

/** Sets a user setting and waits until the configuration reports it. */
export async function setUserSetting(section: string, key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration(section).update(key, value, vscode.ConfigurationTarget.Global);
  await waitFor(
    `${section}.${key} = ${JSON.stringify(value)}`,
    () => JSON.stringify(vscode.workspace.getConfiguration(section).get(key)) === JSON.stringify(value),
    5_000,
  );
}
