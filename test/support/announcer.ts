import { spawn, type ChildProcess } from 'node:child_process';
import { AUTH_HEADER } from '../../src/server/auth';
import { TEST_TOKEN } from './serverFixture';

export interface Announcer {
  child: ChildProcess;
  pid: number;
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
      process.stdout.write('announced\\n');
    });
    ws.on('close', () => process.exit(0));
    process.stdin.on('end', () => process.exit(0));
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['-e', script, url, AUTH_HEADER, TEST_TOKEN, String(pid ?? 0)], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
  const received: string[] = [];
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`announcer exited early (${code})`)));
    let buffered = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffered += String(data);
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line === 'announced') resolve({ child, pid: child.pid!, received, stop: () => void (child.exitCode === null && child.kill()) });
        else if (line.startsWith('got ')) received.push(line.slice(4));
      }
    });
  });
}
