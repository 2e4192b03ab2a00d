// The server under attack, in its own plain-Node process: a crash is this process exiting, and its
// memory and file descriptors are measured apart from the attacking clients'. Started by
// hardenServer.ts with `fork`; answers {type:'stats'|'log'|'stop'} requests over IPC.
import { readdirSync } from 'node:fs';
import { z } from 'zod';
import { IdeServer } from '../../../src/server/ideServer';
import { createSessionFactory } from '../../../src/server/mcpSession';
import { defineTool, textResult } from '../../../src/tools/toolDefinition';
import { memoryLogger } from '../../../src/util/logger';

const token = process.env.HARDEN_TOKEN!;
const echo = defineTool({
  name: 'echo',
  description: 'Echoes its input.',
  inputSchema: z.object({ text: z.string() }),
  handle: async ({ text }) => textResult(text),
});
const blob = defineTool({
  name: 'blob',
  description: 'Returns 256 KiB of text.',
  inputSchema: z.object({ n: z.number() }),
  handle: async ({ n }) => textResult(String(n).padEnd(256 * 1024, 'x')),
});

const log: string[] = [];
const server = new IdeServer({
  token,
  log: memoryLogger(log),
  maxMessageBytes: Number(process.env.HARDEN_MAX_MESSAGE_BYTES ?? 1024 * 1024),
  maxBufferedBytes: process.env.HARDEN_MAX_BUFFERED_BYTES ? Number(process.env.HARDEN_MAX_BUFFERED_BYTES) : undefined,
  createSession: createSessionFactory({
    toolsFor: () => [echo, blob],
    serverInfo: { name: 'native-claude', version: 'harden' },
    log: memoryLogger(log),
  }),
});

function stats() {
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  return {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    connections: server.connections().length,
    fds: readdirSync('/proc/self/fd').length,
    logLines: log.length,
    longestLogLine: log.reduce((max, line) => Math.max(max, line.length), 0),
  };
}

process.on('message', (request: { id: number; type: string }) => void answer(request));

async function answer(request: { id: number; type: string }): Promise<void> {
  const reply = (body: unknown) => process.send!({ id: request.id, body });
  if (request.type === 'stats') reply(stats());
  else if (request.type === 'log') reply(log);
  else if (request.type === 'stop') {
    const started = Date.now();
    await server.stop();
    reply({ took: Date.now() - started });
  }
}

void server.start().then((port) => process.send!({ type: 'ready', port }));
