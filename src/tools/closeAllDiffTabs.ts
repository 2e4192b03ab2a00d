import { z } from 'zod';
import type { ChangeCapture } from '../host/changeCapture';
import type { ReviewHost } from '../host/review';
import { defineTool } from './toolDefinition';

/**
 * closeAllDiffTabs (docs/protocol.md#closealldifftabs): sent at the start of every turn; closes only the diffs this extension opened
 * for this session (another claude in the window keeps its pending reviews). It is also the call a claude
 * still makes before its edits after a reconnect, when it sends no baselines any more (docs/changes.md).
 */
export function closeAllDiffTabsTool(review: ReviewHost, changes?: ChangeCapture) {
  return defineTool({
    name: 'closeAllDiffTabs',
    description: 'Internal to the Claude Code IDE integration: closes every review diff this extension opened for this session.',
    inputSchema: z.looseObject({}),
    annotations: { readOnlyHint: true },
    internal: true,
    handle: async (_args, context) => {
      changes?.noteCall(context.connectionId);
      const count = await review.closeAll(context.connectionId);
      return { content: [{ type: 'text', text: `CLOSED_${count}_DIFF_TABS` }] };
    },
  });
}
