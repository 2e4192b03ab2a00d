import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type JSONRPCMessage,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import type { Route } from './auth';
import { clientFromInitialize } from './clientVersion';
import type { Connection, SessionEvents, SessionFactory, SessionHandle } from './ideServer';
import { errorResult, type ToolDefinition } from '../tools/toolDefinition';
import type { Logger } from '../util/logger';

/** `ide_connected` is the CLI's announcement that this connection is its IDE session (§2.3). */
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
 * `tools/list` answers, per tool set: the SDK converts every zod schema to JSON Schema on each call,
 * and the tools of a route are the same for every connection, so the first answer is kept.
 */
const toolLists = new WeakMap<readonly ToolDefinition[], Promise<ListToolsResult>>();

/** Who a prepared session serves: filled in when a connection takes it. */
interface SessionOwner {
  connection: Connection;
  events: SessionEvents;
}

/** An `McpServer` with its tools and handlers in place, waiting for a connection. */
interface PreparedSession {
  mcp: McpServer;
  owner: SessionOwner;
  /** What it was built from: a spare is used only while these are still what the route serves. */
  tools: readonly ToolDefinition[];
  instructions: string | undefined;
}

/**
 * One `McpServer` per connection (the SDK refuses a second transport on one server). Building one
 * (tools registered, handlers wrapped) is the largest single piece of a handshake's own server work,
 * so the next connection's is built right after each connection is taken, while its client is busy
 * answering: a `claude` that connects, or reconnects, finds its session ready.
 */
export function createSessionFactory(options: SessionFactoryOptions): SessionFactory {
  const spares = new Map<Route, PreparedSession>();
  const takeSpare = (route: Route): PreparedSession | undefined => {
    const spare = spares.get(route);
    spares.delete(route);
    return spare && spare.tools === options.toolsFor(route) && spare.instructions === options.instructionsFor?.(route) ? spare : undefined;
  };
  const prepareSpare = (route: Route): void => {
    setImmediate(() => {
      if (!spares.has(route)) spares.set(route, prepareSession(route, options));
    }).unref();
  };
  return async (connection: Connection, events: SessionEvents): Promise<SessionHandle> => {
    const { mcp, owner } = takeSpare(connection.route) ?? prepareSession(connection.route, options);
    Object.assign(owner, { connection, events });
    prepareSpare(connection.route);
    // The SDK keeps clientInfo but not the protocol version the client asked for; it calls a handler
    // set before connect() ahead of its own, so `initialize` is read here as it arrives (and the
    // direct dispatch below calls it too).
    const observe = (message: JSONRPCMessage): void => {
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        const client = clientFromInitialize(message.params);
        if (client) events.clientIdentified(client);
      }
    };
    connection.transport.onmessage = observe;

    // Installed as the SDK starts the transport (its handlers are set by then), so the messages
    // that queued up during the upgrade (initialize, tools/list) are dispatched directly too.
    const { transport } = connection;
    const start = transport.start.bind(transport);
    transport.start = () => {
      dispatchWithoutReclassifying(mcp.server, transport, observe);
      return start();
    };
    await mcp.connect(transport);
    return {
      // The CLI's own notifications (selection_changed, at_mentioned) have no capability to check,
      // no debouncing and no task: the SDK's notification() would only add an object copy and a promise.
      notify: (method, params) => connection.transport.send({ jsonrpc: '2.0', method, params }),
    };
  };
}

/** Builds a route's session up to the point where it needs its connection. */
function prepareSession(route: Route, options: SessionFactoryOptions): PreparedSession {
  const tools = options.toolsFor(route);
  const instructions = options.instructionsFor?.(route);
  const owner = {} as SessionOwner;
  const mcp = new McpServer(options.serverInfo, {
    // Declared up front, McpServer would install its tool handlers in its constructor; with tools to
    // register it installs them (and the same capability, tools.listChanged) at the first one, after
    // parseToolCallsOnce is in place.
    capabilities: tools.length ? {} : { tools: {} },
    instructions,
    jsonSchemaValidator: noElicitationValidator,
  });
  parseToolCallsOnce(mcp);
  for (const tool of tools) registerTool(mcp, tool, owner, options);
  serveToolListOnce(mcp, tools);

  mcp.server.setNotificationHandler(IdeConnectedNotification, (notification) => {
    if (route !== 'ide') return;
    const pid = notification.params?.pid;
    if (pid !== undefined && !validPid(pid)) {
      options.log.warn(`#${owner.connection.id}: ignored ide_connected with an invalid pid (${typeof pid === 'number' ? pid : typeof pid}); a Claude Code CLI sends its process id`);
      return;
    }
    owner.events.ideConnected(pid);
  });
  mcp.server.onclose = () => options.onSessionClosed?.(owner.connection.id);
  return { mcp, owner, tools, instructions };
}

function registerTool(mcp: McpServer, tool: ToolDefinition, owner: SessionOwner, { log, traceCalls }: SessionFactoryOptions): void {
  mcp.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations },
    async (args: unknown, extra) => {
      const { connection } = owner;
      const started = (traceCalls?.() ?? true) ? performance.now() : undefined;
      try {
        const result = await tool.handle(args as never, { connectionId: connection.id, signal: extra.signal });
        if (started !== undefined) log.debug(`#${connection.id} ${tool.name} answered in ${(performance.now() - started).toFixed(1)} ms${result.isError ? ' (error)' : ''}`);
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

type ServerSetRequestHandler = McpServer['server']['setRequestHandler'];
type ToolCallHandler = (request: unknown, extra: unknown) => unknown;

/**
 * Every `tools/call` went through CallToolRequestSchema twice: the SDK's Protocol parses each request
 * against its handler's schema, then the SDK's Server wraps the tools/call handler to parse the
 * already-parsed request again (and to check the result). McpServer's tools/call handler is installed
 * here with the Protocol's single parse (so a malformed request gets the same error as before), and
 * the result check the Server wrapper did is kept. Must run before the first tool is registered
 * (McpServer installs its handlers then, unless the tools capability was passed to its constructor); if a future SDK installs it differently, the SDK's own
 * path stays in place (integration test "a tools/call request is parsed once" catches it).
 */
function parseToolCallsOnce(mcp: McpServer): void {
  const server = mcp.server;
  const serverSetRequestHandler: ServerSetRequestHandler = server.setRequestHandler;
  server.setRequestHandler = ((schema, handler) => {
    if ((schema as unknown) !== CallToolRequestSchema) return serverSetRequestHandler.call(server, schema, handler);
    const callTool = handler as ToolCallHandler;
    Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, async (request, extra) => checkedToolResult(await callTool(request, extra)));
  }) as ServerSetRequestHandler;
}

/** What the SDK's Server checks a tool's result against, with its error for a result that fails. */
function checkedToolResult(result: unknown) {
  const checked = CallToolResultSchema.safeParse(result);
  if (!checked.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${checked.error.message}`);
  return checked.data;
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<ListToolsResult>;

/**
 * Answers `tools/list` from the first answer for this tool set, and leaves the CLI's internal calls
 * out of it while keeping them callable. McpServer has no option for either, so its own list handler
 * is wrapped; if a future SDK moves it, everything is listed as before (integration test "lists only
 * getDiagnostics on the IDE route" catches it).
 */
function serveToolListOnce(mcp: McpServer, tools: readonly ToolDefinition[]): void {
  const handlers = (mcp.server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers;
  const listTools = handlers?.get('tools/list');
  if (!listTools) return;
  const hidden = new Set(tools.filter((t) => t.internal).map((t) => t.name));
  mcp.server.setRequestHandler(ListToolsRequestSchema, (request, extra) => {
    let list = toolLists.get(tools);
    if (!list) {
      list = listTools(request, extra).then((result) => ({ ...result, tools: result.tools.filter((tool) => !hidden.has(tool.name)) }));
      toolLists.set(tools, list);
      list.catch(() => toolLists.delete(tools));
    }
    return list;
  });
}

interface ProtocolInternals {
  _onrequest?(message: JSONRPCMessage, extra?: unknown): void;
  _onnotification?(message: JSONRPCMessage): void;
  _onresponse?(message: JSONRPCMessage): void;
}

/**
 * The transport hands over only messages the SDK's own `JSONRPCMessageSchema` accepts (messageGuard.ts),
 * whose four members are strict objects told apart by their keys. The SDK's `connect` re-classifies each
 * one with up to four more zod parses, the first two of which fail for every request (~10 µs and
 * most of the garbage of a call). Knowing the kind already, this hands each message straight to
 * the SDK's own handler for that kind, in the SDK's order (responses, requests, notifications).
 * If a future SDK renames those handlers, its own dispatch stays in place.
 */
function dispatchWithoutReclassifying(server: object, transport: Transport, observe: (message: JSONRPCMessage) => void): void {
  const protocol = server as ProtocolInternals;
  const { _onrequest, _onnotification, _onresponse } = protocol;
  if (typeof _onrequest !== 'function' || typeof _onnotification !== 'function' || typeof _onresponse !== 'function') return;
  transport.onmessage = (message, extra) => {
    observe(message);
    if ('result' in message || 'error' in message) _onresponse.call(protocol, message);
    else if ('id' in message) _onrequest.call(protocol, message, extra);
    else _onnotification.call(protocol, message);
  };
}
