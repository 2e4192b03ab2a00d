import type { ChildProcess } from 'node:child_process';
import { spawnScriptClient, stopChild } from './scriptClient';

export interface Announcer {
  child: ChildProcess;
  pid: number;
  /** The local (source) port of its connection to the server. */
  localPort: number;
  /** Every notification the server sent it, as `method filePath`. */
  received: string[];
  stop(): void;
}

/**
 * A separate node process that connects as the claude CLI does (initialize, initialized,
 * ide_connected) and announces `pid`, by default its own, so the server's peer is a real other process.
 */
export function spawnAnnouncer(url: string, pid?: number): Promise<Announcer> {
  const script = `
    const WebSocket = require('ws');
    const ws = new WebSocket(process.argv[1], ['mcp'], { headers: { [process.argv[2]]: process.argv[3] } });
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.328' } } })));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.method) process.stdout.write('got ' + message.method + ' ' + (message.params && message.params.filePath) + '\\n');
      if (message.id !== 0) return;
      ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid: Number(process.argv[4]) || process.pid } }));
      process.stdout.write('announced ' + ws._socket.localPort + '\\n');
    });
    ws.on('close', () => process.exit(0));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
  const received: string[] = [];
  return spawnScriptClient<Announcer>('announcer', script, url, [String(pid ?? 0)], (line, child, resolve) => {
    if (line.startsWith('announced ')) resolve({ child, pid: child.pid!, localPort: Number(line.slice(10)), received, stop: () => stopChild(child) });
    else if (line.startsWith('got ')) received.push(line.slice(4));
  });
}
