// The raw socket: a `ws` server that sends every message back. On the bulk connection it answers
// each request with a prebuilt ~1 MB response (the same bytes getDiagnostics returns), so that row
// measures moving 1 MB, nothing else.
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { serve } from './serve';
import { BULK_PATH, SMALL_FILE, bulkPanel, selectionParams } from './shared';

serve(async () => {
  const files = [
    {
      uri: `file://${SMALL_FILE}`,
      diagnostics: [
        {
          message: "Cannot find name 'x'.",
          severity: 'Error',
          range: { start: { line: 3, character: 0 }, end: { line: 3, character: 1 } },
          source: 'test',
          code: '1',
        },
      ],
    },
    ...bulkPanel().map(([file, diagnostics]) => ({ uri: `file://${file}`, diagnostics })),
  ];
  const bulkResult = JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(files) }] });
  const notification = JSON.stringify({ jsonrpc: '2.0', method: 'selection_changed', params: selectionParams });
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  wss.on('connection', (ws, req) => {
    if (req.url === BULK_PATH) {
      ws.on('message', (data) => ws.send(`{"jsonrpc":"2.0","id":${(JSON.parse(data.toString()) as { id: number }).id},"result":${bulkResult}}`));
      return;
    }
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  return {
    port: (wss.address() as AddressInfo).port,
    push: (count) => {
      for (const ws of sockets) for (let i = 0; i < count; i++) ws.send(notification);
    },
  };
});
