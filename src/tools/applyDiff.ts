import { z } from 'zod';
import type { WorkspaceHost } from '../host/workspace';
import { proposeChange, type ChangeDependencies } from '../review/proposeChange';
import { applyDiffPayload, SearchReplaceLimitError, SearchReplaceParseError } from './searchReplaceBlocks';
import { changeResult } from './changeResult';
import { defineTool } from './toolDefinition';
import { workspaceTarget } from './workspaceTarget';

export function applyDiffTool(workspace: WorkspaceHost, deps: ChangeDependencies) {
  return defineTool({
    name: 'apply_diff',
    description:
      "Edit part of an existing file with one or more search/replace blocks; the result opens in VS Code's diff viewer for the user to review. Format:\n" +
      '<<<<<<< SEARCH\n(exact lines currently in the file)\n=======\n(replacement lines)\n>>>>>>> REPLACE\n' +
      'Blocks apply in order, each to the result of the previous one. Each SEARCH must match whole lines in exactly one place, character for character ' +
      '(whitespace included); include enough surrounding lines to make it unique. If some blocks fail, the others are still proposed and ' +
      'the result says partial: true with failed_blocks. Returns the same shape as write_file (user_edits, formatter_edits, new_diagnostics; merged_with_unsaved_edits when the user had unsaved edits in the file: the blocks match the saved file and the result is merged with those edits). ' +
      'Use it instead of the built-in Edit when the user should review the change in VS Code.',
    inputSchema: z.strictObject({
      path: z.string().min(1).describe('File path, relative to the workspace folder or absolute inside it'),
      diff: z.string().min(1).describe('One or more SEARCH/REPLACE blocks'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handle: async ({ path, diff }, context) => {
      const target = await workspaceTarget(workspace, path, { mustExist: true });
      if ('error' in target) return changeResult({ error: target.error, path });
      let failed: unknown[] = [];
      const result = await proposeChange(
        target,
        `✻ Claude proposes: ${target.relative || path}`,
        context.connectionId,
        async (original) => {
          if (original === undefined) return { error: `${target.relative} does not exist. Use write_file to create it.` };
          let applied;
          try {
            applied = await applyDiffPayload(original, diff);
          } catch (error) {
            if (error instanceof SearchReplaceParseError || error instanceof SearchReplaceLimitError) return { error: error.message };
            throw error;
          }
          failed = applied.failedBlocks;
          if (applied.applied === 0) {
            return { error: `No block could be applied to ${target.relative}:\n${applied.failedBlocks.map((b) => b.reason).join('\n')}` };
          }
          return { text: applied.content };
        },
        deps,
      );
      if (failed.length && !('error' in result)) Object.assign(result, { partial: true, failed_blocks: failed });
      return changeResult(result);
    },
  });
}
