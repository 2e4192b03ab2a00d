import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Route } from './auth';
import { clientFromInitialize } from './clientVersion';
import type { Connection, SessionEvents, SessionFactory, SessionHandle } from './ideServer';
import { errorResult, type ToolDefinition } from '../tools/toolDefinition';
import type { Logger } from '../util/logger';

/** `ide_connected` is the CLI's announcement that this connection is its IDE session (§2.3). */
const IdeConnectedNotification = z.object({
  method: z.literal('ide_connected'),
  params: z.looseObject({ pid: z.number().optional() }).optional(),
});

export interface SessionFactoryOptions {
  /** Tools served on each route: the CLI's IDE calls on `ide`, the model's workspace tools on `tools`. */
  toolsFor(route: Route): readonly ToolDefinition[];
  serverInfo: { name: string; version: string };
  log: Logger;
  /** Called when a connection's session ends, so pending work tied to it (diffs, commands) is settled. */
  onSessionClosed?(connectionId: number): void;
}

/** One `McpServer` per connection (the SDK refuses a second transport on one server). */
export function createSessionFactory(options: SessionFactoryOptions): SessionFactory {
  return async (connection: Connection, events: SessionEvents): Promise<SessionHandle> => {
    const mcp = new McpServer(options.serverInfo, { capabilities: { tools: {} } });
    const tools = options.toolsFor(connection.route);
    for (const tool of tools) registerTool(mcp, tool, connection, options.log);
    hideInternalTools(mcp, new Set(tools.filter((t) => t.internal).map((t) => t.name)));

    mcp.server.setNotificationHandler(IdeConnectedNotification, (notification) => {
      if (connection.route === 'ide') events.ideConnected(notification.params?.pid);
    });
    mcp.server.onclose = () => options.onSessionClosed?.(connection.id);
    // The SDK keeps clientInfo but not the protocol version the client asked for; it calls a handler
    // set before connect() ahead of its own, so `initialize` is read here as it arrives.
    connection.transport.onmessage = (message) => {
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        const client = clientFromInitialize(message.params);
        if (client) events.clientIdentified(client);
      }
    };

    await mcp.connect(connection.transport);
    return {
      notify: (method, params) => mcp.server.notification({ method, params }),
    };
  };
}

function registerTool(mcp: McpServer, tool: ToolDefinition, connection: Connection, log: Logger): void {
  mcp.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations },
    async (args: unknown, extra) => {
      const started = Date.now();
      try {
        const result = await tool.handle(args as never, { connectionId: connection.id, signal: extra.signal });
        log.debug(`#${connection.id} ${tool.name} answered in ${Date.now() - started} ms${result.isError ? ' (error)' : ''}`);
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

/**
 * Leaves the CLI's internal calls out of `tools/list` while keeping them callable. McpServer has no
 * option for that, so its own list handler is wrapped; if a future SDK moves it, everything is
 * listed as before (integration test "lists only getDiagnostics on the IDE route" catches it).
 */
function hideInternalTools(mcp: McpServer, hidden: ReadonlySet<string>): void {
  if (hidden.size === 0) return;
  const handlers = (mcp.server as unknown as { _requestHandlers?: Map<string, (request: unknown, extra: unknown) => Promise<ListToolsResult>> })._requestHandlers;
  const listTools = handlers?.get('tools/list');
  if (!listTools) return;
  mcp.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const result = await listTools(request, extra);
    return { ...result, tools: result.tools.filter((tool) => !hidden.has(tool.name)) };
  });
}
