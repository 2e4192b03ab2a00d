// The floor: the least a JSON-RPC-over-ws MCP server can do. Auth header check, JSON.parse,
// dispatch by method, the tools' own handlers (the same tools of the same route as the real server,
// and tools/list answers the same list), JSON.stringify. No validation, no SDK; the tool list is built once.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { z } from 'zod';
import { checkUpgradeRequest } from '../../src/server/auth';
import { ideTools } from '../../src/tools/registry';
import type { ToolDefinition } from '../../src/tools/toolDefinition';
import { benchHosts } from './hosts';
import { serve } from './serve';
import { BENCH_TOKEN, BULK_PATH, selectionParams } from './shared';

type Message = {
  jsonrpc?: unknown;
  id?: number | string;
  method?: string;
  params?: { name?: string; arguments?: Record<string, unknown>; protocolVersion?: string };
};

serve(async () => {
  const tools = new Map<string, ToolDefinition>(ideTools(benchHosts().hosts).map((t) => [t.name, t]));
  const toolList = {
    // As the real server lists them: the CLI's internal calls (openDiff, close_tab, …) stay callable but unlisted.
    tools: [...tools.values()]
      .filter((t) => !t.internal)
      .map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: z.toJSONSchema(t.inputSchema, { io: 'input' }),
        annotations: t.annotations,
      })),
  };
  const sockets = new Set<WebSocket>();
  const reply = (ws: WebSocket, message: object) => ws.send(JSON.stringify(message));
  const answer = async (ws: WebSocket, text: string) => {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return reply(ws, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    if (message.jsonrpc !== '2.0' || typeof message.method !== 'string' || message.id === undefined) return; // notifications: nothing to do
    const id = message.id;
    switch (message.method) {
      case 'initialize':
        return reply(ws, {
          jsonrpc: '2.0',
          id,
          result: {
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: { listChanged: true } },
            serverInfo: { name: 'floor', version: '1' },
          },
        });
      case 'tools/list':
        return reply(ws, { jsonrpc: '2.0', id, result: toolList });
      case 'tools/call': {
        const tool = tools.get(message.params?.name ?? '');
        if (!tool) return reply(ws, { jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } });
        const result = await tool.handle(message.params?.arguments as never, { connectionId: 0, signal: new AbortController().signal });
        return reply(ws, { jsonrpc: '2.0', id, result });
      }
      default:
        return reply(ws, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
    }
  };

  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, handleProtocols: (p) => (p.has('mcp') ? 'mcp' : false) });
  const server = http.createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket, head) => {
    const verdict = checkUpgradeRequest(req, BENCH_TOKEN);
    if (!verdict.ok) return void socket.end(`HTTP/1.1 ${verdict.status} ${http.STATUS_CODES[verdict.status]}\r\n\r\n`);
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (req.url !== BULK_PATH) sockets.add(ws); // notifications go to the main connection only, as in the real server
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data) => void answer(ws, data.toString()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    push: (count) => {
      for (const ws of sockets) for (let i = 0; i < count; i++) reply(ws, { jsonrpc: '2.0', method: 'selection_changed', params: selectionParams });
    },
  };
});
