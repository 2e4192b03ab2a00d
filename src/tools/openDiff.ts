import { z } from 'zod';
import type { ChangeCapture } from '../host/changeCapture';
import type { DocumentWriter } from '../host/documents';
import type { ReviewHost } from '../host/review';
import type { RecentEdits } from '../review/recentEdits';
import { defineTool, errorResult } from './toolDefinition';
import { readTextIfExists, UnreadableFileError } from '../workspace/readTextIfExists';
import { mergeUnsavedEdits } from '../review/threeWayMerge';
import { detectEol, withEol } from '../workspace/textFormat';

/**
 * The CLI's Edit/Write review (docs/protocol.md#opendiff). Stays pending until a decision. The CLI writes
 * the file itself after FILE_SAVED, so nothing here touches the disk.
 * Answers: FILE_SAVED + final text (accept, with the user's edits) · DIFF_REJECTED (any rejection) ·
 * TAB_CLOSED only when the CLI itself withdrew the review (it ignores that late answer). TAB_CLOSED
 * means "accept as proposed" to the CLI, so it is never the answer to a user's rejection.
 * A file with unsaved edits in VS Code: the CLI's proposal was made from the file on disk (an Edit's
 * new_file_contents is computed from it, a Write replaces it), so the review shows that proposal merged
 * with the user's unsaved edits (docs/review.md). Accepting answers the merge, which claude writes;
 * the buffer then takes it and ends clean (`adoptWritten`). A dirty buffer without text to merge (a
 * notebook) gets no review: the error keeps the CLI's own terminal prompt up, and VS Code says why.
 */
// Long (~85 lines) on purpose: the tool's schema and its handler share the adoptions map and the
// dirty-buffer decision; the review itself lives in src/review.
export function openDiffTool(
  review: ReviewHost,
  recentEdits?: RecentEdits,
  documents?: Pick<DocumentWriter, 'isDirty' | 'unsavedText' | 'adoptWritten'>,
  changes?: ChangeCapture,
) {
  // Buffers taking claude's write of an accepted merge, by path. claude's next Edit of the file can come
  // right after its write, before the buffer took it: merging the user's old typing again would show a
  // conflict with claude's own previous change (seen with 2.1.328 and a fast model).
  const adoptions = new Map<string, Promise<void>>();
  return defineTool({
    name: 'openDiff',
    description: "Internal to the Claude Code IDE integration: shows a proposed edit in VS Code's diff viewer and waits for the user to accept or reject it.",
    // Lenient on purpose: a newer CLI may add fields, and rejecting the call would lose the review.
    inputSchema: z.looseObject({
      old_file_path: z.string(),
      new_file_path: z.string(),
      new_file_contents: z.string(),
      tab_name: z.string(),
    }),
    annotations: { readOnlyHint: true },
    internal: true,
    handle: async (args, context) => {
      // Bounded: the adoption gives up 10 s after the accept.
      await Promise.all([adoptions.get(args.new_file_path), adoptions.get(args.old_file_path)]);
      const unsaved = documents?.unsavedText?.(args.new_file_path) ?? documents?.unsavedText?.(args.old_file_path);
      if (unsaved === undefined && documents && [args.old_file_path, args.new_file_path].some((p) => documents.isDirty(p))) {
        review.notifyNotOpened?.(
          args.new_file_path,
          "it has unsaved changes here that cannot be merged (a notebook), and Claude's proposal was made from the saved file. Answer claude in its terminal: Yes writes its version to disk (your unsaved edits stay in the editor only); to have Claude work on your edits, answer No, save, and ask again.",
        );
        return errorResult(
          `No review opened: ${args.new_file_path} has unsaved changes in VS Code, and the proposal was made from the file on disk. Ask the user to save or revert the file, then read it again.`,
        );
      }
      // The file as it is before the write this review announces, for Claude's changes (docs/changes.md).
      const captured = changes?.beforeWrite(context.connectionId, args.new_file_path, 'openDiff');
      let originalText: string | undefined;
      try {
        originalText = await readTextIfExists(args.old_file_path);
      } catch (error) {
        // The CLI shows its own terminal prompt when the IDE's review fails.
        if (error instanceof UnreadableFileError) {
          changes?.writeCancelled(context.connectionId, args.new_file_path);
          return errorResult(`No review opened: ${error.message}`);
        }
        throw error;
      }
      await captured;
      // Merged in the proposal's line ends: claude sends `\n` for a CRLF file and restores CRLF itself.
      const merge = unsaved === undefined ? undefined : mergeUnsavedEdits(originalText ?? '', unsaved, args.new_file_contents);
      const decision = await review.review({
        filePath: args.new_file_path,
        originalText,
        proposedText: merge ? withEol(merge.text, detectEol(args.new_file_contents, detectEol(originalText ?? ''))) : args.new_file_contents,
        title: args.tab_name,
        connectionId: context.connectionId,
        ...(merge ? { merged: { unsavedText: unsaved!, conflicts: merge.conflicts } } : {}),
      });
      switch (decision.kind) {
        case 'accepted':
          recentEdits?.mark(args.new_file_path);
          // claude writes the merge after this answer; the buffer, still the user's text, then takes it.
          if (merge && documents?.adoptWritten) {
            const path = args.new_file_path;
            const adoption = documents.adoptWritten(path, decision.text, unsaved!).catch(() => undefined);
            adoptions.set(path, adoption);
            void adoption.then(() => adoptions.get(path) === adoption && adoptions.delete(path));
          }
          return {
            content: [
              { type: 'text', text: 'FILE_SAVED' },
              { type: 'text', text: decision.text },
            ],
          };
        case 'rejected':
          changes?.writeCancelled(context.connectionId, args.new_file_path);
          return { content: [{ type: 'text', text: 'DIFF_REJECTED' }] };
        case 'withdrawn':
          return { content: [{ type: 'text', text: 'TAB_CLOSED' }] };
      }
    },
  });
}
