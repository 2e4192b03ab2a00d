import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/** What every tool handler gets besides its arguments. */
export interface ToolContext {
  /** The connection the call came on; pending work is tied to it and cleaned up when it closes. */
  readonly connectionId: number;
  /** Aborted when the peer cancels the call or disconnects. */
  readonly signal: AbortSignal;
  /**
   * The model's tool_use id when the model made the call: claude marks its model's calls with
   * `_meta["claudecode/toolUseId"]` (1.0.128, 2.0.77 and 2.1.328 alike), never its own calls (the
   * diagnostics baseline, openDiff, close_tab…), which it abandons after short timeouts.
   */
  readonly modelToolUseId?: string;
  /** Sends MCP progress (claude shows the message under the running tool); absent when the caller asked for none. */
  readonly progress?: (message: string) => void;
}

/**
 * One tool: its schema, the description the model reads, MCP annotations and its handler.
 * A handler returns expected failures as `isError` results with a message saying what to do;
 * anything it throws is turned into such a result by the registry, never into a transport error.
 */
export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Schema;
  readonly annotations?: ToolAnnotations;
  /**
   * Called by the CLI itself, never by the model: left out of `tools/list` (the CLI calls openDiff,
   * close_tab and closeAllDiffTabs whether they are listed or not, ide-protocol.md §3).
   */
  readonly internal?: boolean;
  handle(args: z.infer<Schema>, context: ToolContext): Promise<CallToolResult>;
}

/** Helper so each tool file keeps its argument types inferred from its schema. */
export function defineTool<Schema extends z.ZodObject>(definition: ToolDefinition<Schema>): ToolDefinition<Schema> {
  return definition;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
