// A real server on a real loopback port serving every tool of both routes over a temp workspace,
// with the review answered by the test and accepted writes going to disk. For the path and fault tests.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalMode } from '../../src/host/approvalMode';
import type { ChangeCapture } from '../../src/host/changeCapture';
import type { LanguageFeatures } from '../../src/host/languageFeatures';
import type { TerminalHost } from '../../src/host/terminal';
import type { LanguageBudgets } from '../../src/tools/languageQuery';
import { ideTools, workspaceTools } from '../../src/tools/registry';
import { KeyedLock } from '../../src/util/keyedLock';
import { DiskDocumentWriter, ScriptedReviewHost, StaticDiagnostics } from './fakeHosts';
import { locateRipgrep } from './ripgrep';
import { IdeServer } from '../../src/server/ideServer';
import { createSessionFactory } from '../../src/server/mcpSession';
import { memoryLogger } from '../../src/util/logger';
import { connectClient, TEST_TOKEN } from './serverFixture';

export type ToolCallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

export async function startWorkspaceToolServer(
  folders: () => string[],
  options: { approval?: ApprovalMode; language?: LanguageFeatures; languageBudgets?: LanguageBudgets; changes?: ChangeCapture } = {},
) {
  const review = new ScriptedReviewHost();
  const documents = new DiskDocumentWriter();
  const diagnostics = new StaticDiagnostics();
  const rg = locateRipgrep();
  const workspace = { folders, ripgrepPath: () => rg };
  // The terminal is a stand-in that records what would run (real terminals are tested in VS Code).
  const commands: Array<{ command: string; cwd: string }> = [];
  const terminal: TerminalHost = {
    run: async (command, { cwd }) => {
      commands.push({ command, cwd });
      return { exit_code: 0, output: '', cwd, output_captured: true };
    },
  };
  const hosts = {
    review,
    documents,
    diagnostics,
    approvalMode: () => options.approval ?? 'write-only',
    lock: new KeyedLock(),
    lockTimeoutMs: 2000,
    diagnosticsWaitMs: 10,
    workspace,
    terminal,
    language: options.language,
    languageBudgets: options.languageBudgets,
    changes: options.changes,
  };
  const log: string[] = [];
  const server = new IdeServer({
    token: TEST_TOKEN,
    log: memoryLogger(log),
    createSession: createSessionFactory({
      toolsFor: (route) => (route === 'ide' ? ideTools(hosts) : workspaceTools(hosts)),
      serverInfo: { name: 'native-claude', version: 'test' },
      log: memoryLogger(log),
      onSessionClosed: (id) => review.withdrawForConnection(id), // as extension.ts wires it
    }),
  });
  const port = await server.start();
  const fixture = { server, port, log, url: `ws://127.0.0.1:${port}` };
  const clients: Client[] = [];
  const connect = async (announce = false) => {
    const { client } = await connectClient(announce ? fixture.url : `${fixture.url}/tools`, { announce });
    clients.push(client);
    return client;
  };
  return {
    ...fixture,
    review,
    documents,
    diagnostics,
    commands,
    rg,
    /** A client on the /tools route (the model's tools). */
    tools: () => connect(false),
    /** A client on the IDE route (openDiff, …), announced as the CLI does. */
    ide: () => connect(true),
    call: (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<ToolCallResult>,
    async stop() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await fixture.server.stop();
    },
  };
}

export const resultText = (r: ToolCallResult | CallToolResult): string => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
