import { z } from 'zod';
import type { WorkspaceHost } from '../host/workspace';
import { proposeChange, type ChangeDependencies } from '../review/proposeChange';
import { changeResult } from './changeResult';
import { defineTool } from './toolDefinition';
import { workspaceTarget } from './workspaceTarget';

export function writeFileTool(workspace: WorkspaceHost, deps: ChangeDependencies) {
  return defineTool({
    name: 'write_file',
    description:
      "Create a file or replace its whole content. The change opens in VS Code's diff viewer for the user to review: " +
      'they may edit your proposal before accepting, or reject it. Returns {status:"accepted", path, operation:"created"|"modified", ' +
      'user_edits? (unified diff of what the user changed in your proposal), formatter_edits? (changes made by format-on-save), ' +
      'new_diagnostics? (problems VS Code\'s language servers report that the change introduced, in this file and in up to 10 files that use it, with notes naming files not checked; a problem that only moved is not listed)} or {status:"rejected", path}. ' +
      'If rejected, do not retry the same change; ask the user what they want instead. For small edits to large files prefer apply_diff. ' +
      'If the user has unsaved edits in the file, the review shows your content merged with them (the saved file as the base) and the result adds merged_with_unsaved_edits: true; user_edits then includes their edits. ' +
      'Use it instead of the built-in Write when the user should review the change in VS Code. ' +
      'Paths are relative to the workspace folder (or absolute inside it).',
    inputSchema: z.strictObject({
      path: z.string().min(1).describe('File path, relative to the workspace folder or absolute inside it'),
      content: z.string().describe('The complete new content of the file'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handle: async ({ path, content }, context) => {
      const target = await workspaceTarget(workspace, path);
      if ('error' in target) return changeResult({ error: target.error, path });
      const result = await proposeChange(target, `✻ Claude proposes: ${target.relative || path}`, context.connectionId, () => ({ text: content }), deps);
      return changeResult(result);
    },
  });
}
