import { z } from 'zod';
import type { ReviewHost } from '../host/review';
import { defineTool } from './toolDefinition';

/** close_tab (docs/protocol.md#close_tab): sent twice after every decision; idempotent, and settles a still-pending review. */
export function closeTabTool(review: ReviewHost) {
  return defineTool({
    name: 'close_tab',
    description: 'Internal to the Claude Code IDE integration: closes a review diff opened by openDiff.',
    inputSchema: z.looseObject({ tab_name: z.string() }),
    annotations: { readOnlyHint: true },
    internal: true,
    handle: async ({ tab_name }, context) => {
      // Only the asking session's review: another claude may have a review with the same tab name.
      const closed = await review.closeByTitle(tab_name, context.connectionId);
      return { content: [{ type: 'text', text: closed ? 'TAB_CLOSED' : 'TAB_NOT_FOUND' }] };
    },
  });
}
