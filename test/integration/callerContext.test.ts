// Who made a tools/call (the model, or claude itself) and MCP progress back to it, through the real SDK
// client over the real server (src/server/mcpSession.ts callerOf).
import { z } from 'zod';
import { defineTool, textResult, type ToolContext } from '../../src/tools/toolDefinition';
import { connectClient, startTestServer } from '../support/serverFixture';

describe('tool context: the model marker and progress', () => {
  test("a call carrying _meta['claudecode/toolUseId'] is the model's; one without is claude's own; progress reaches the caller's onprogress", async () => {
    const seen: Array<Pick<ToolContext, 'modelToolUseId'> & { canReport: boolean }> = [];
    const probe = defineTool({
      name: 'probe',
      description: 'Records its context and reports progress twice.',
      inputSchema: z.object({}),
      handle: async (_args, ctx) => {
        seen.push({ modelToolUseId: ctx.modelToolUseId, canReport: ctx.progress !== undefined });
        ctx.progress?.('first');
        ctx.progress?.('second');
        // Answering at once can overtake them (they go through the SDK's async notification()): work a moment, as a tool does.
        await new Promise((r) => setTimeout(r, 50));
        return textResult('ok');
      },
    });
    const fixture = await startTestServer({ tools: { ide: [probe] } });
    try {
      const { client } = await connectClient(fixture.url);
      const progress: Array<{ progress: number; message?: string }> = [];
      await client.callTool({ name: 'probe', arguments: {}, _meta: { 'claudecode/toolUseId': 'toolu_01abc' } }, undefined, {
        onprogress: (p) => progress.push({ progress: p.progress, message: p.message }),
      });
      await client.callTool({ name: 'probe', arguments: {} });
      await client.callTool({ name: 'probe', arguments: {}, _meta: { 'claudecode/toolUseId': 42 } });
      expect(seen).toEqual([
        { modelToolUseId: 'toolu_01abc', canReport: true },
        { modelToolUseId: undefined, canReport: false },
        { modelToolUseId: undefined, canReport: false },
      ]);
      expect(progress).toEqual([
        { progress: 1, message: 'first' },
        { progress: 2, message: 'second' },
      ]);
      await client.close();
    } finally {
      await fixture.server.stop();
    }
  });
});
