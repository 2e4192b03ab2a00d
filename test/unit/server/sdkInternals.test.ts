import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SDK_VERSION_READ, dispatchByKind } from '../../../src/server/sdkInternals';

// src/server/sdkInternals.ts uses members of the MCP SDK that are not its public API. They were read
// from one SDK version; another version must be checked again before it ships.
describe('server/sdkInternals', () => {
  test('the installed MCP SDK is the version sdkInternals.ts was read from (after an upgrade: check its private members again, run npm run bench with and without, then move SDK_VERSION_READ)', () => {
    const root = path.join(__dirname, '..', '..', '..');
    const installed = (JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as { version: string })
      .version;
    const declared = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies[
      '@modelcontextprotocol/sdk'
    ];
    expect({ installed, declared }).toEqual({ installed: SDK_VERSION_READ, declared: SDK_VERSION_READ });
  });

  test('this SDK still has what the dispatch uses: a handshake request is answered from the handler the SDK registered', async () => {
    const mcp = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    const sent: unknown[] = [];
    const dispatch = dispatchByKind(mcp.server, async (message) => void sent.push(message));
    expect(dispatch).toBeInstanceOf(Function);
    dispatch!({ jsonrpc: '2.0', id: 7, method: 'ping' });
    dispatch!({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} });
    for (let i = 0; i < 20 && sent.length < 2; i++) await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([
      { result: {}, jsonrpc: '2.0', id: 7 },
      { result: { tools: [] }, jsonrpc: '2.0', id: 8 },
    ]);
    expect(dispatchByKind({}, async () => undefined)).toBeUndefined();
  });
});
