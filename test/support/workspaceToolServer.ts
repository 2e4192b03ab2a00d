// A real server on a real loopback port serving every tool of both routes over a temp workspace,
// with the review answered by the test and accepted writes going to disk. For the path and fault tests.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalMode } from '../../src/host/documents';
import { ideTools, workspaceTools } from '../../src/tools/registry';
import { KeyedLock } from '../../src/util/keyedLock';
import { DiskDocumentWriter, ScriptedReviewHost, StaticDiagnostics } from './fakeHosts';
import { locateRipgrep } from './ripgrep';
import { connectClient, startTestServer } from './serverFixture';

export type ToolCallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

export async function startWorkspaceToolServer(folders: () => string[], options: { approval?: ApprovalMode } = {}) {
  const review = new ScriptedReviewHost();
  const documents = new DiskDocumentWriter();
  const diagnostics = new StaticDiagnostics();
  const rg = locateRipgrep();
  const hosts = {
    review,
    documents,
    diagnostics,
    approvalMode: () => options.approval ?? 'write-only',
    lock: new KeyedLock(),
    lockTimeoutMs: 2000,
    diagnosticsWaitMs: 10,
    workspace: { folders, ripgrepPath: () => rg },
  };
  const fixture = await startTestServer({ tools: { ide: ideTools(hosts), tools: workspaceTools(hosts) } });
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
