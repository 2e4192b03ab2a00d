// A scripted stand-in for the Anthropic Messages API, for driving the real `claude` CLI offline.
//
// The CLI's main loop sends `POST /v1/messages?beta=true` with `"stream": true` and reads the
// Messages SSE events. Each such request takes the next reply from a queue the test controls; an
// empty queue answers a short "ok". Side requests (title generation, classifiers, anything
// non-streaming or without tools) are answered on their own so they never eat a scripted reply.
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A content block as the Messages API sends and receives it (only the fields tests read are typed). */
export interface ContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
  [key: string]: unknown;
}

export interface Message {
  role: 'user' | 'assistant' | 'system' | string;
  content: string | ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  input_schema?: unknown;
  defer_loading?: boolean;
  [key: string]: unknown;
}

/** The parsed body of a `POST /v1/messages`. */
export interface MessagesRequest {
  model: string;
  messages: Message[];
  system?: string | ContentBlock[];
  tools?: ToolDefinition[];
  stream?: boolean;
  max_tokens?: number;
  [key: string]: unknown;
}

export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
  /** Generated (`toolu_fake_…`) when omitted. */
  id?: string;
}

/** One scripted model turn: some text, one or more tool calls, or both (text first). */
export type Reply = { text: string; toolUse?: undefined; toolUses?: undefined } | { toolUse: ToolUse; text?: string } | { toolUses: ToolUse[]; text?: string };

export type ReplyFn = (request: MessagesRequest) => Reply | Promise<Reply>;
export type ScriptedReply = Reply | ReplyFn;

/** Every HTTP request the fake saw, in arrival order. */
export interface HttpRecord {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, the raw text otherwise, `undefined` when empty. */
  body: unknown;
  /** `main`: consumed the script. `side`: a helper request answered automatically. `other`: not the Messages API. */
  kind: 'main' | 'side' | 'other';
  status: number;
  at: number;
}

export interface FakeModelOptions {
  /** Decide which Messages requests are side requests; defaults to {@link isSideRequest}. */
  isSide?: (request: MessagesRequest) => boolean;
  /** Text answered when the queue is empty. Default "ok". */
  defaultText?: string;
}

export interface FakeModel {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL. */
  readonly url: string;
  readonly port: number;
  /** Bodies of every `POST /v1/messages` (main and side), parsed. */
  readonly requests: MessagesRequest[];
  /** Bodies of the requests that consumed the script (the CLI's main loop). */
  readonly mainRequests: MessagesRequest[];
  /** Every HTTP request, including other paths. */
  readonly httpLog: HttpRecord[];
  /** Queue replies for the next main requests, in order. */
  respond(...replies: ScriptedReply[]): void;
  /** Replies still waiting in the queue. */
  pending(): number;
  /** Resolve with the first main request (index ≥ `from`) matching `predicate`. */
  waitForRequest(predicate?: (request: MessagesRequest) => boolean, options?: { timeoutMs?: number; from?: number }): Promise<MessagesRequest>;
  /** The `tool_result` block answering `toolUseId`, searched from the newest request. */
  toolResult(toolUseId: string): ContentBlock | undefined;
  /** The text of a tool_result (text blocks joined with "\n"), or undefined if none yet. */
  toolResultText(toolUseId: string): string | undefined;
  /** `tools[].name` of a request (default: the last main request). */
  toolNames(request?: MessagesRequest): string[];
  /** Text of the last user message of a request (default: last main request), see {@link lastUserText}. */
  lastUserText(request?: MessagesRequest): string;
  /** Ids of the tool_use blocks the fake has sent, in order. */
  readonly sentToolUseIds: string[];
  close(): Promise<void>;
}

/**
 * Heuristic for the CLI's helper calls, so they don't consume scripted replies. The main loop (and
 * sub-agents) always stream and always offer tools; helpers such as session-title generation are
 * tool-free or non-streaming, or ask for a JSON-schema output.
 */
export function isSideRequest(request: MessagesRequest): boolean {
  if (request.stream !== true) return true;
  if (!Array.isArray(request.tools) || request.tools.length === 0) return true;
  if (jsonSchemaOf(request) !== undefined) return true;
  // 1.0.x/2.0.x warm up the main loop and each sub-agent at start with a one-message "Warmup" prompt.
  if (request.messages?.length === 1 && blockText(request.messages[0].content).trim() === 'Warmup') return true;
  return false;
}

/** Text of every block of a message: text blocks, tool_result text, nested content. */
export function blockText(content: string | ContentBlock[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'tool_result' && block.content !== undefined) parts.push(blockText(block.content));
  }
  return parts.join('\n');
}

/**
 * Text of the last `user` message plus the `system` turns the CLI appends after it (it puts
 * environment and attachment context such as `<system-reminder>` there).
 */
export function lastUserText(request: MessagesRequest): string {
  const msgs = request.messages ?? [];
  let i = msgs.length - 1;
  while (i >= 0 && msgs[i].role !== 'user') i--;
  if (i < 0) return '';
  return msgs
    .slice(i)
    .filter((m) => m.role === 'user' || m.role === 'system')
    .map((m) => blockText(m.content))
    .join('\n');
}

export function findToolResult(requests: readonly MessagesRequest[], toolUseId: string): ContentBlock | undefined {
  for (let r = requests.length - 1; r >= 0; r--) {
    for (const msg of requests[r].messages ?? []) {
      if (typeof msg.content === 'string') continue;
      for (const block of msg.content) {
        if (block.type === 'tool_result' && block.tool_use_id === toolUseId) return block;
      }
    }
  }
  return undefined;
}

export async function startFakeModel(options: FakeModelOptions = {}): Promise<FakeModel> {
  const isSide = options.isSide ?? isSideRequest;
  const defaultText = options.defaultText ?? 'ok';
  const queue: ScriptedReply[] = [];
  const requests: MessagesRequest[] = [];
  const mainRequests: MessagesRequest[] = [];
  const httpLog: HttpRecord[] = [];
  const sentToolUseIds: string[] = [];
  const waiters = new Set<() => void>();
  let messageCounter = 0;

  const notify = (): void => {
    for (const w of [...waiters]) w();
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
      });
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    let body: unknown = undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const record: HttpRecord = { method, path, headers: req.headers, body, kind: 'other', status: 200, at: Date.now() };
    httpLog.push(record);

    const pathname = path.split('?')[0];
    if (method === 'POST' && pathname === '/v1/messages' && isObject(body)) {
      const request = body as MessagesRequest;
      requests.push(request);
      if (isSide(request)) {
        record.kind = 'side';
        answer(res, request, sideReply(request));
      } else {
        record.kind = 'main';
        mainRequests.push(request);
        notify();
        const next = queue.shift();
        const reply: Reply = next === undefined ? { text: defaultText } : typeof next === 'function' ? await next(request) : next;
        answer(res, request, reply);
      }
      return;
    }
    if (method === 'POST' && pathname === '/v1/messages/count_tokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 100 }));
      return;
    }
    // HEAD /api/hello and anything else: harmless answers, recorded above.
    const status = method === 'HEAD' || pathname === '/' ? 200 : 404;
    record.status = status;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      status === 200 || method === 'HEAD' ? '{}' : JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'fake model: no such path' } }),
    );
  }

  function answer(res: http.ServerResponse, request: MessagesRequest, reply: Reply): void {
    const content = toContent(reply);
    for (const block of content) if (block.type === 'tool_use' && block.id) sentToolUseIds.push(block.id);
    const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const id = `msg_fake_${++messageCounter}`;
    const model = typeof request.model === 'string' ? request.model : 'claude-fake';
    const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (request.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
      res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
    const event = (type: string, data: Record<string, unknown>): void => {
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    };
    event('message_start', {
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        event('content_block_start', { index, content_block: { type: 'text', text: '' } });
        event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text ?? '' } });
      } else {
        event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        const json = JSON.stringify(block.input ?? {});
        // Split the JSON in two deltas, as the real API streams it in pieces.
        const cut = Math.floor(json.length / 2);
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, cut) } });
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(cut) } });
      }
      event('content_block_stop', { index });
    });
    event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    event('message_stop', {});
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const model: FakeModel = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    mainRequests,
    httpLog,
    sentToolUseIds,
    respond: (...replies) => {
      queue.push(...replies);
    },
    pending: () => queue.length,
    waitForRequest: (predicate = () => true, { timeoutMs = 30_000, from = 0 } = {}) =>
      new Promise<MessagesRequest>((resolve, reject) => {
        const check = (): boolean => {
          const found = mainRequests.slice(from).find(predicate);
          if (found === undefined) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake model: no matching request within ${timeoutMs} ms (${mainRequests.length} main, ${requests.length} total requests seen)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    toolResult: (toolUseId) => findToolResult(requests, toolUseId),
    toolResultText: (toolUseId) => {
      const block = findToolResult(requests, toolUseId);
      return block === undefined ? undefined : blockText(block.content);
    },
    toolNames: (request) => (request ?? mainRequests[mainRequests.length - 1])?.tools?.map((t) => t.name) ?? [],
    lastUserText: (request) => {
      const r = request ?? mainRequests[mainRequests.length - 1];
      return r === undefined ? '' : lastUserText(r);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return model;
}

function toContent(reply: Reply): ContentBlock[] {
  const content: ContentBlock[] = [];
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  const uses = 'toolUses' in reply && reply.toolUses ? reply.toolUses : 'toolUse' in reply && reply.toolUse ? [reply.toolUse] : [];
  for (const use of uses) {
    content.push({ type: 'tool_use', id: use.id ?? `toolu_fake_${randomBytes(9).toString('hex')}`, name: use.name, input: use.input });
  }
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return content;
}

/** A plausible answer for a helper request: a value matching its JSON schema, or a short text. */
function sideReply(request: MessagesRequest): Reply {
  const schema = jsonSchemaOf(request);
  if (schema !== undefined) return { text: JSON.stringify(sampleForSchema(schema)) };
  return { text: 'ok' };
}

function jsonSchemaOf(request: MessagesRequest): unknown {
  const candidates = [request.output_format, isObject(request.output_config) ? request.output_config.format : undefined];
  for (const c of candidates) if (isObject(c) && c.type === 'json_schema' && c.schema !== undefined) return c.schema;
  return undefined;
}

function sampleForSchema(schema: unknown): unknown {
  if (!isObject(schema)) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isObject(schema.properties) ? schema.properties : {};
      for (const [k, v] of Object.entries(props)) out[k] = k === 'title' ? 'Test session' : sampleForSchema(v);
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return 'ok';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of a message, its text blocks joined. */
export function textOf(m: Message): string {
  if (typeof m.content === 'string') return m.content;
  return m.content.map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
}

/** The messages after the last assistant message: what is new in this request. */
export function freshMessages(request: MessagesRequest): Message[] {
  const msgs = request.messages ?? [];
  let i = msgs.length - 1;
  while (i >= 0 && msgs[i].role !== 'assistant') i--;
  return msgs.slice(i + 1);
}

/** Every content block of `messages` (string contents have none). */
export const contentBlocks = (messages: readonly Message[]): ContentBlock[] => messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content));

/**
 * The scenario of a request for a model scripted by scenario: the last prompt holding `scenario:<name>`,
 * and how many tool calls were answered since it (a tool result that came in the prompt's own message,
 * before its text, answers the turn before: claude sends a rejected call's result with the next prompt).
 */
export function scenarioOf(request: MessagesRequest): { name?: string; answered: number } {
  const messages = request.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user' || !/scenario:[\w-]+/.test(textOf(m))) continue;
    const content = typeof m.content === 'string' ? [] : m.content;
    const at = content.findIndex((b) => typeof b.text === 'string' && /scenario:[\w-]+/.test(b.text));
    const name = /scenario:([\w-]+)/.exec(textOf(m))![1];
    const since = [...content.slice(at + 1), ...contentBlocks(messages.slice(i + 1))];
    return { name, answered: since.filter((b) => b.type === 'tool_result').length };
  }
  return { answered: 0 };
}

/**
 * A model that answers a prompt `scenario:<name>` with the scenario's tool calls, one per request and in
 * order (ids `toolu_nc_<prefix>_<name>_<n>`), then with the text `done <name>`; anything else with `ok`.
 */
export function scenarioModel(prefix: string, stepsOf: (name: string) => ToolUse[]): ReplyFn {
  return (request) => {
    const { name, answered } = scenarioOf(request);
    if (!name) return { text: 'ok' };
    const steps = stepsOf(name);
    return answered < steps.length ? { toolUse: { ...steps[answered], id: `toolu_nc_${prefix}_${name}_${answered}` } } : { text: `done ${name}` };
  };
}
