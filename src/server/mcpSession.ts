import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ListToolsRequestSchema, type JSONRPCMessage, type ListToolsResult, type Tool, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Route } from './auth';
import { clientFromInitialize } from './clientVersion';
import { dispatchByKind } from './sdkInternals';
import { serializeOnce } from './webSocketTransport';
import type { Connection, SessionEvents, SessionFactory, SessionHandle } from './ideServer';
import { errorResult, type ToolContext, type ToolDefinition } from '../tools/toolDefinition';
import type { Logger } from '../util/logger';

/** `ide_connected` is the CLI's announcement that this connection is its IDE session (docs/protocol.md#mcp-handshake-and-ide_connected). */
const IdeConnectedNotification = z.object({
  method: z.literal('ide_connected'),
  params: z.looseObject({ pid: z.unknown() }).optional(),
});

/** A pid the CLI could have sent: a positive safe integer (`process.pid`). */
function validPid(pid: unknown): pid is number {
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0;
}

export interface SessionFactoryOptions {
  /** Tools served on each route: the CLI's IDE calls on `ide`, the model's workspace tools on `tools`. */
  toolsFor(route: Route): readonly ToolDefinition[];
  serverInfo: { name: string; version: string };
  /** MCP `instructions` per route: the CLI puts them in front of the model (src/tools/instructions.ts). */
  instructionsFor?(route: Route): string | undefined;
  log: Logger;
  /** Called when a connection's session ends, so pending work tied to it (diffs, commands) is settled. */
  onSessionClosed?(connectionId: number): void;
  /** Whether each call's duration goes to the log (in VS Code: the level is Debug or Trace); off, it costs nothing. Default: on. */
  traceCalls?(): boolean;
}

/**
 * The SDK builds an Ajv instance (meta-schemas, formats) in every `Server` unless given a validator;
 * it uses it only to check the client's answers to elicitation, which these sessions never ask for.
 * This one says so if that ever changes (and lets the bundle leave Ajv out: sdkPathsNotShipped.ts).
 */
const noElicitationValidator: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error('native-claude never asks the client for input (elicitation), so it has no JSON Schema validator for the answer');
  },
};

/**
 * `tools/list` answers, per tool set. McpServer's own handler lists every registered tool (it has no
 * way to leave out the CLI's internal calls, which must stay callable) and converts every zod schema
 * on each call; the tools of a route are the same for every connection, so the list is built once.
 */
const toolLists = new WeakMap<readonly ToolDefinition[], ListToolsResult>();

/** Who a session serves: set when a connection takes it, cleared when that connection closes. */
interface SessionOwner {
  connection?: Connection;
  events?: SessionEvents;
}

/** An `McpServer` with its tools and handlers in place, waiting for a connection. */
interface IdleSession {
  mcp: McpServer;
  owner: SessionOwner;
  route: Route;
  /** What it was built from: it is used only while these are still what the route serves. */
  tools: readonly ToolDefinition[];
  instructions: string | undefined;
}

/**
 * Idle sessions kept per route: the one built ahead for the next connection, and those whose
 * connection closed (a `claude` that reconnects, or runs again, gets its old one back).
 */
const MAX_IDLE_SESSIONS = 2;

/**
 * One `McpServer` per connection at a time (the SDK refuses a second transport on one server).
 * Building one (tools registered, tools/list replaced) is the largest single piece of a handshake's own
 * server work, so it is done ahead and reused: the next connection's is built right after each
 * connection is taken, while its client is busy answering, and a connection that closes hands its
 * server back. The SDK lets a server connect again once its transport has closed: closing aborts
 * the old connection's unfinished calls and clears its pending state, and a call's answer goes to the
 * transport it came from, so nothing of the old connection reaches the new one.
 */
export function createSessionFactory(options: SessionFactoryOptions): SessionFactory {
  const idle = new Map<Route, IdleSession[]>();
  const current = (session: IdleSession) =>
    session.tools === options.toolsFor(session.route) && session.instructions === options.instructionsFor?.(session.route);
  const take = (route: Route): IdleSession | undefined => {
    const sessions = idle.get(route) ?? [];
    for (let session = sessions.pop(); session; session = sessions.pop()) if (current(session)) return session;
    return undefined;
  };
  const keep = (session: IdleSession): void => {
    const sessions = idle.get(session.route) ?? [];
    idle.set(session.route, sessions);
    if (sessions.length < MAX_IDLE_SESSIONS && current(session)) sessions.push(session);
  };
  const prepareAhead = (route: Route): void => {
    if (idle.get(route)?.length) return;
    setImmediate(() => {
      if (!idle.get(route)?.length) keep(prepareSession(route, options, keep));
    }).unref();
  };
  return async (connection: Connection, events: SessionEvents): Promise<SessionHandle> => {
    const { mcp, owner } = take(connection.route) ?? prepareSession(connection.route, options, keep);
    Object.assign(owner, { connection, events });
    prepareAhead(connection.route);
    // The SDK keeps clientInfo but not the protocol version the client asked for, so `initialize` is
    // read here as it arrives.
    connection.transport.onreceive = (message: JSONRPCMessage): void => {
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        const client = clientFromInitialize(message.params);
        if (client) events.clientIdentified(client);
      }
    };
    const { transport } = connection;
    transport.dispatch = dispatchByKind(mcp.server, (message) => transport.send(message));
    await mcp.connect(transport);
    return {
      // The CLI's own notifications (selection_changed, at_mentioned) have no capability to check,
      // no debouncing and no task: the SDK's notification() would only add an object copy and a promise.
      notify: (method, params) => connection.transport.send({ jsonrpc: '2.0', method, params }),
    };
  };
}

/**
 * Builds a route's session up to the point where it needs its connection. When that connection
 * closes, the session is handed to `release` (its owner cleared, so it keeps nothing of it).
 */
function prepareSession(route: Route, options: SessionFactoryOptions, release: (session: IdleSession) => void): IdleSession {
  const tools = options.toolsFor(route);
  const instructions = options.instructionsFor?.(route);
  const owner: SessionOwner = {};
  const mcp = new McpServer(options.serverInfo, {
    // Declared here, McpServer installs its tool handlers (and tools.listChanged) now, tools or not.
    capabilities: { tools: {} },
    instructions,
    jsonSchemaValidator: noElicitationValidator,
  });
  for (const tool of tools) registerTool(mcp, tool, owner, options);
  // Replaces McpServer's tools/list handler (installed by its constructor): the server's public API.
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => toolList(tools));

  mcp.server.setNotificationHandler(IdeConnectedNotification, (notification) => {
    const { connection, events } = owner;
    if (route !== 'ide' || !connection || !events) return;
    const pid = notification.params?.pid;
    if (pid !== undefined && !validPid(pid)) {
      options.log.warn(
        `#${connection.id}: ignored ide_connected with an invalid pid (${typeof pid === 'number' ? pid : typeof pid}); a Claude Code CLI sends its process id`,
      );
      return;
    }
    events.ideConnected(pid);
  });
  const session: IdleSession = { mcp, owner, route, tools, instructions };
  // The SDK has cleared the connection's state (pending calls aborted, transport dropped) before this.
  mcp.server.onclose = () => {
    const { connection } = owner;
    owner.connection = owner.events = undefined;
    if (connection) options.onSessionClosed?.(connection.id);
    release(session);
  };
  return session;
}

function registerTool(mcp: McpServer, tool: ToolDefinition, owner: SessionOwner, { log, traceCalls }: SessionFactoryOptions): void {
  mcp.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations },
    async (args: unknown, extra) => {
      const { connection } = owner;
      // A call that arrived just before its connection closed: its answer would reach nobody.
      if (!connection) return errorResult(`${tool.name} was not run: the connection closed`);
      const started = (traceCalls?.() ?? true) ? performance.now() : undefined;
      try {
        const result = await tool.handle(args as never, { connectionId: connection.id, signal: extra.signal, ...callerOf(extra) });
        if (started !== undefined)
          log.debug(`#${connection.id} ${tool.name} answered in ${(performance.now() - started).toFixed(1)} ms${result.isError ? ' (error)' : ''}`);
        return result;
      } catch (error) {
        // An unexpected failure still reaches the caller as a readable result, never a dead socket.
        const message = error instanceof Error ? error.message : String(error);
        log.error(`#${connection.id} ${tool.name} failed: ${message}`);
        return errorResult(`${tool.name} failed unexpectedly: ${message}`);
      }
    },
  );
}

/** Who made a call (the model, or claude itself) and how to report progress to it, from the request's `_meta`. */
function callerOf(extra: {
  _meta?: Record<string, unknown>;
  sendNotification(notification: ServerNotification): Promise<void>;
}): Pick<ToolContext, 'modelToolUseId' | 'progress'> {
  const meta = extra._meta;
  const toolUseId = meta?.['claudecode/toolUseId'];
  const token = meta?.progressToken;
  let step = 0;
  return {
    modelToolUseId: typeof toolUseId === 'string' && toolUseId ? toolUseId : undefined,
    progress:
      typeof token === 'string' || typeof token === 'number'
        ? (message) =>
            void extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } })
              .catch(() => undefined)
        : undefined,
  };
}

/**
 * What McpServer lists for a tool, built as it builds it (its tools/list handler: the same keys in
 * the same order, the zod schema converted by zod's own toJSONSchema with the SDK's options). The
 * integration test "the CLI gets the tools/list a plain McpServer sends" compares the two byte for byte.
 */
function listedTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema, { target: 'draft-7', io: 'input' }) as Tool['inputSchema'],
    annotations: tool.annotations,
    // What registerTool() gives a tool that has no task handler.
    execution: { taskSupport: 'forbidden' },
  };
}

/** The `tools/list` answer for a tool set: the tools the model may call, built (and its JSON text made) on the first request. */
function toolList(tools: readonly ToolDefinition[]): ListToolsResult {
  let list = toolLists.get(tools);
  if (!list) {
    list = serializeOnce({ tools: tools.filter((tool) => !tool.internal).map(listedTool) });
    toolLists.set(tools, list);
  }
  return list;
}
