import type { ChildProcess } from 'node:child_process';
import { spawnScriptClient, stopChild } from './scriptClient';

/** A separate node process holding connections of its own, as one claude holds its IDE route and its tools route. */
export interface ClaudeLikeProcess {
  child: ChildProcess;
  pid: number;
  /** Opens the IDE route: initialize, initialized, ide_connected with this process's pid (or `pid`). */
  openIde(pid?: number): Promise<void>;
  /** Opens the tools route (`/tools`): initialize, initialized; no announcement, as the CLI's MCP client. */
  openTools(): Promise<void>;
  stop(): void;
}

const SCRIPT = `
  const WebSocket = require('ws');
  const [url, header, token] = process.argv.slice(1);
  const open = (path, announce) => {
    const ws = new WebSocket(url + path, ['mcp'], { headers: { [header]: token } });
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.328' } } })));
    ws.on('message', (data) => {
      if (JSON.parse(String(data)).id !== 0) return;
      ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      if (announce !== undefined) ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'ide_connected', params: { pid: announce || process.pid } }));
      process.stdout.write((announce !== undefined ? 'ide' : 'tools') + ' open\\n');
    });
    ws.on('error', (e) => process.stdout.write('error ' + e.message + '\\n'));
  };
  let buffered = '';
  process.stdin.on('data', (d) => {
    buffered += d;
    const lines = buffered.split('\\n');
    buffered = lines.pop();
    for (const line of lines) {
      const [what, pid] = line.split(' ');
      if (what === 'ide') open('/', Number(pid) || 0);
      if (what === 'tools') open('/tools', undefined);
    }
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdout.write('ready\\n');`;

/** Starts the process; it opens its connections when told to (`openIde`, `openTools`), in any order. */
export function spawnClaudeLike(url: string): Promise<ClaudeLikeProcess> {
  const waiting = new Map<string, () => void>();
  const request = (child: ChildProcess, what: string, line: string) =>
    new Promise<void>((resolve) => {
      waiting.set(what, resolve);
      child.stdin!.write(`${line}\n`);
    });
  return spawnScriptClient<ClaudeLikeProcess>('claude-like process', SCRIPT, url, [], (line, child, resolve, reject) => {
    if (line === 'ready')
      resolve({
        child,
        pid: child.pid!,
        openIde: (pid) => request(child, 'ide', `ide ${pid ?? 0}`),
        openTools: () => request(child, 'tools', 'tools'),
        stop: () => stopChild(child),
      });
    else if (line.startsWith('error ')) reject(new Error(line));
    else waiting.get(line.split(' ')[0])?.();
  });
}

/** Claude-like processes against the server at `url()`: `start` one, `stopAll` of them (in afterEach). */
export function claudeLikes(url: () => string) {
  const processes: ClaudeLikeProcess[] = [];
  return {
    start: async () => {
      const p = await spawnClaudeLike(url());
      processes.push(p);
      return p;
    },
    stopAll: () => processes.splice(0).forEach((p) => p.stop()),
  };
}
