import { z } from 'zod';
import type { ReviewHost } from '../host/review';
import { defineTool } from './toolDefinition';

/**
 * closeAllDiffTabs (docs/protocol.md#closealldifftabs): sent at the start of every turn; closes only the diffs this extension opened
 * for this session (another claude in the window keeps its pending reviews).
 */
export function closeAllDiffTabsTool(review: ReviewHost) {
  return defineTool({
    name: 'closeAllDiffTabs',
    description: 'Internal to the Claude Code IDE integration: closes every review diff this extension opened for this session.',
    inputSchema: z.looseObject({}),
    annotations: { readOnlyHint: true },
    internal: true,
    handle: async (_args, context) => {
      const count = await review.closeAll(context.connectionId);
      return { content: [{ type: 'text', text: `CLOSED_${count}_DIFF_TABS` }] };
    },
  });
}
