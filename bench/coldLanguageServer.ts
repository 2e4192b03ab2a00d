// The claude CLI's own LSP-tool path, for comparison with the language tools: a standalone
// typescript-language-server (npm, package.json's devDependencies; it runs the repo's TypeScript) started
// cold on a project and spoken to over stdio as an LSP client does: initialize, initialized, didOpen,
// then one request. Timed from the spawn to the first real answer: an empty one is asked again (every
// 50 ms, within the bound), as a model would have to.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const SERVER = path.join(__dirname, '..', 'node_modules', 'typescript-language-server', 'lib', 'cli.mjs');
const SERVER_VERSION = (JSON.parse(fs.readFileSync(path.join(path.dirname(SERVER), '..', 'package.json'), 'utf8')) as { version: string }).version;

export type ColdQuery = 'textDocument/definition' | 'textDocument/references';

export interface ColdAnswer {
  /** From the spawn to the first non-empty answer. */
  ms: number;
  /** From the spawn to initialize's answer. */
  initializeMs: number;
  /** Requests sent until one answered with something. */
  asked: number;
  /** How many locations the answer had. */
  locations: number;
  /** The server's version, as its initialize answer names it. */
  server: string;
}

/** Asks `query` at `position` (0-based) of `file` from a new typescript-language-server on `workspace`. */
export async function coldServerFirstAnswer(options: {
  workspace: string;
  file: string;
  position: { line: number; character: number };
  query: ColdQuery;
  timeoutMs?: number;
}): Promise<ColdAnswer> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = performance.now();
  const child = spawn(process.execPath, [SERVER, '--stdio'], { cwd: options.workspace, stdio: ['pipe', 'pipe', 'pipe'] });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const send = (message: Record<string, unknown>) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }), 'utf8');
    child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin.write(body);
  };
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  const notify = (method: string, params: unknown) => send({ method, params });
  let buffer = Buffer.alloc(0);
  const stderr: string[] = [];
  child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')) as {
        id?: number;
        method?: string;
        params?: { items?: unknown[] };
        result?: unknown;
        error?: { message: string };
      };
      buffer = buffer.subarray(headerEnd + 4 + length);
      if (message.method !== undefined && message.id !== undefined) {
        // The server's own requests (configuration, progress tokens, registrations): answered plainly.
        send({ id: message.id, result: message.method === 'workspace/configuration' ? (message.params?.items ?? []).map(() => null) : null });
      } else if (message.id !== undefined && pending.has(message.id)) {
        const waiter = pending.get(message.id)!;
        pending.delete(message.id);
        if (message.error) waiter.reject(new Error(message.error.message));
        else waiter.resolve(message.result);
      }
    }
  });
  const exited = new Promise<never>((_, reject) =>
    child.on('exit', (code) => reject(new Error(`typescript-language-server exited (${code}): ${stderr.join('').slice(-2000)}`))),
  );
  exited.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`typescript-language-server gave no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const work = (async () => {
      const rootUri = pathToFileURL(options.workspace).href;
      const init = (await request('initialize', {
        processId: process.pid,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: path.basename(options.workspace) }],
        capabilities: {
          textDocument: { definition: { linkSupport: true }, references: {}, synchronization: { didSave: true } },
          workspace: { configuration: true, workspaceFolders: true },
        },
      })) as { serverInfo?: { name?: string; version?: string } };
      const initializeMs = performance.now() - started;
      notify('initialized', {});
      const uri = pathToFileURL(options.file).href;
      notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: fs.readFileSync(options.file, 'utf8') } });
      const params = {
        textDocument: { uri },
        position: options.position,
        ...(options.query === 'textDocument/references' ? { context: { includeDeclaration: true } } : {}),
      };
      for (let asked = 1; ; asked++) {
        const answer = await request(options.query, params);
        const locations = Array.isArray(answer) ? answer.length : answer ? 1 : 0;
        if (locations > 0) {
          return {
            ms: performance.now() - started,
            initializeMs,
            asked,
            locations,
            server: `${init.serverInfo?.name ?? 'typescript-language-server'} ${SERVER_VERSION}`,
          };
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    return await Promise.race([work, exited, bound]);
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) {
      await Promise.race([request('shutdown', null).then(() => notify('exit', null)), new Promise((r) => setTimeout(r, 2000))]).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      if (child.exitCode === null) child.kill();
    }
  }
}
