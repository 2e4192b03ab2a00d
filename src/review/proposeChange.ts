import * as path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { DiagnosticsSource } from '../host/diagnostics';
import type { ApprovalMode } from '../host/approvalMode';
import type { ChangeCapture } from '../host/changeCapture';
import type { DocumentWriter } from '../host/documents';
import type { ReviewHost, ReviewRequest } from '../host/review';
import type { TextCodec } from '../host/textCodec';
import { KeyedLock, LockTimeoutError } from '../util/keyedLock';
import { detectEol, matchOriginalFormat, stripBom, toLf, withEol } from '../workspace/textFormat';
import { conflictsLeft, mergeUnsavedEdits } from './threeWayMerge';
import { confirmWorkspacePath, WorkspacePathError, type WorkspacePath } from '../workspace/workspacePaths';
import { assertNoLinkSwappedIn, HardLinkedFileError, PathChangedError } from '../workspace/noFollowWrite';
import { readBytesIfExists, UnreadableFileError } from '../workspace/readTextIfExists';
import { decodedLosslessly, NodeTextCodec, notLosslessMessage, unencodableCharacters, unencodableMessage } from '../workspace/encodings';
import { CHANGE_DIAGNOSTICS_WAIT_MS, trackChangeDiagnostics } from '../diagnostics/changeDiagnostics';
import { displayPathOf } from '../workspace/displayPaths';

export interface ChangeDependencies {
  review: ReviewHost;
  documents: DocumentWriter;
  diagnostics: DiagnosticsSource;
  approvalMode(): ApprovalMode;
  lock: KeyedLock;
  /** How long a write waits for an earlier one to the same file (60 s). */
  lockTimeoutMs?: number;
  /** The most a write waits for language servers to report on the saved file and the files using it. */
  diagnosticsWaitMs?: number;
  /** Workspace folders, to show other files' paths relative to them in new_diagnostics. */
  workspace?: { folders(): readonly string[] };
  /** Each file's encoding as the editor reads and saves it; UTF-8 (BOM and UTF-16 by their marks) when absent. */
  codec?: TextCodec;
  /** Told the file's bytes before each write, for Claude's changes (docs/changes.md). */
  changes?: ChangeCapture;
}

/** The new text, or why there is none. May be computed asynchronously (apply_diff yields while matching). */
export type Proposal = { text: string } | { error: string };

const PLAIN_CODEC = new NodeTextCodec();

export type ChangeResult =
  | {
      status: 'accepted';
      path: string;
      operation: 'created' | 'modified';
      user_edits?: string;
      formatter_edits?: string;
      new_diagnostics?: string[];
      partial?: true;
      failed_blocks?: unknown[];
      /** The user had unsaved edits in the file: the change was merged with them, and they were saved too. */
      merged_with_unsaved_edits?: true;
    }
  | { status: 'rejected'; path: string; partial?: true; failed_blocks?: unknown[] }
  | { error: string; path: string };

/**
 * The one review path for write_file and apply_diff: propose → review diff → (accepted) write
 * through the editor → report the user's edits, the formatter's changes and new problems.
 * Writes to one file are serialised; different files proceed in parallel.
 */
export async function proposeChange(
  target: WorkspacePath,
  title: string,
  connectionId: number,
  makeProposal: (original: string | undefined) => Proposal | Promise<Proposal>,
  deps: ChangeDependencies,
  extra: { partial?: true; failed_blocks?: unknown[] } = {},
): Promise<ChangeResult> {
  const shown = target.relative;
  try {
    return await deps.lock.run(
      target.realPath,
      deps.lockTimeoutMs ?? 60_000,
      () => reviewAndWrite(target, title, connectionId, makeProposal, deps, extra),
      shown,
    );
  } catch (error) {
    if (error instanceof LockTimeoutError) return { error: error.message, path: shown };
    throw error;
  }
}

/** The user's unsaved text of the file (under its real path or the path as named), if any. */
function unsavedTextOf(target: WorkspacePath, deps: ChangeDependencies): string | undefined {
  return deps.documents.unsavedText?.(target.realPath) ?? deps.documents.unsavedText?.(target.absolute);
}

function isDirty(target: WorkspacePath, deps: ChangeDependencies): boolean {
  return deps.documents.isDirty(target.realPath) || deps.documents.isDirty(target.absolute);
}

/**
 * The file as the change starts from: refused when it is not a regular file, has other hard links, or
 * does not decode to text that gives its bytes back; undefined text for a new file. `unsaved`: the
 * user's unsaved text, which the proposal (made from the saved file) is merged with; a dirty buffer
 * without text to merge (a notebook) is refused.
 */
async function readForChange(
  target: WorkspacePath,
  deps: ChangeDependencies,
): Promise<
  { bytes: Buffer | undefined; original: string | undefined; encoding: string; codec: TextCodec; unsaved?: string } | { error: string; path: string }
> {
  const shown = target.relative;
  const unsaved = unsavedTextOf(target, deps);
  if (unsaved === undefined && isDirty(target, deps)) {
    return {
      error: `${shown} has unsaved changes in VS Code that cannot be merged with a change (a notebook). Nothing was changed. Ask the user to save or revert the file, then read it again and retry.`,
      path: shown,
    };
  }
  let bytes: Buffer | undefined;
  try {
    bytes = await readBytesIfExists(target.realPath, { shown });
  } catch (error) {
    if (error instanceof UnreadableFileError) return { error: `${error.message} Nothing was changed.`, path: shown };
    throw error;
  }
  if (bytes !== undefined) {
    // A file with other names (hard links) may be a file outside the workspace: refused before any review.
    try {
      await assertNoLinkSwappedIn(target.realPath);
    } catch (error) {
      if (error instanceof HardLinkedFileError || error instanceof PathChangedError) return { error: error.message, path: shown };
      throw error;
    }
  }
  // The file in its own encoding, as the editor decodes and will save it: an edit must not change a
  // byte it does not touch (a Latin-1 `é` read as UTF-8 would be saved back as U+FFFD).
  const codec = deps.codec ?? PLAIN_CODEC;
  let original: string | undefined;
  let encoding: string;
  if (bytes === undefined) {
    encoding = codec.newFileEncoding(target.realPath);
  } else {
    try {
      ({ text: original, encoding } = await codec.readForEdit(bytes, target.realPath));
    } catch (error) {
      return {
        error: `${shown} cannot be read as text (${(error as Error).message}). Nothing was changed. Edit it with a shell command if it is binary.`,
        path: shown,
      };
    }
    if (!(await decodedLosslessly(codec, bytes, original, encoding))) return { error: notLosslessMessage(shown, encoding), path: shown };
  }
  return { bytes, original, encoding, codec, ...(unsaved === undefined ? {} : { unsaved: stripBom(unsaved) }) };
}

/**
 * A change ready for review: the file as it was read, the proposal in its format, and (when the user
 * has unsaved edits) the text shown beside their buffer.
 */
export interface PreparedChange {
  target: WorkspacePath;
  bytes: Buffer | undefined;
  original: string | undefined;
  encoding: string;
  codec: TextCodec;
  /** The user's unsaved text the change was merged with (or, `fromUnsaved`, made from). */
  unsaved?: string;
  /** The proposal in the file's line endings, no BOM. */
  proposedText: string;
  /** Set when the change is shown beside the user's unsaved edits. */
  merge?: { conflicts: number };
  /** What the review shows on its right side (the merge, or the proposal). */
  reviewed: string;
}

/**
 * Reads the file and makes the proposal. `makeProposal` gets the saved text; `{ fromUnsaved: true }`
 * gets the user's unsaved text instead when there is one (a rename VS Code computed on the buffer), and
 * its proposal is then shown beside that buffer as a merge without conflicts.
 */
export async function prepareChange(
  target: WorkspacePath,
  makeProposal: (original: string | undefined) => Proposal | Promise<Proposal>,
  deps: ChangeDependencies,
  options: { fromUnsaved?: true } = {},
): Promise<PreparedChange | { error: string; path: string }> {
  const shown = target.relative;
  const current = await readForChange(target, deps);
  if ('error' in current) return current;
  const { bytes, original, encoding, codec, unsaved } = current;
  const madeFromUnsaved = options.fromUnsaved && unsaved !== undefined;
  const base = madeFromUnsaved ? unsaved : original;
  const proposal = await makeProposal(base);
  if ('error' in proposal) return { error: proposal.error, path: shown };
  // Line endings and final newline follow the file; a BOM is kept by the editor's encoding on save.
  const proposedText = stripBom(base === undefined ? proposal.text : matchOriginalFormat(base, proposal.text));
  if (base !== undefined && proposedText === stripBom(base)) {
    return { error: `The proposed content of ${shown} is identical to the file; nothing to change.`, path: shown };
  }
  const unencodable = await unencodableCharacters(codec, proposedText, encoding);
  if (unencodable.length) return { error: unencodableMessage(shown, proposedText, unencodable, encoding), path: shown };
  if (madeFromUnsaved) return { target, bytes, original, encoding, codec, unsaved, proposedText, merge: { conflicts: 0 }, reviewed: proposedText };

  // Unsaved edits: the review shows Claude's proposal merged with them (the saved file is the base),
  // always, whatever the approval mode, since conflicts need the user.
  const merge = unsaved === undefined ? undefined : mergeUnsavedEdits(original ?? '', unsaved, proposedText);
  const reviewed = merge ? withEol(merge.text, detectEol(original ?? unsaved ?? '', detectEol(proposedText))) : proposedText;
  return { target, bytes, original, encoding, codec, unsaved, proposedText, ...(merge ? { merge: { conflicts: merge.conflicts } } : {}), reviewed };
}

/** Whether the change needs the user: always over unsaved edits, else unless the approval mode is "never". */
export function needsReview(prepared: PreparedChange, deps: ChangeDependencies): boolean {
  return prepared.merge !== undefined || deps.approvalMode() !== 'never';
}

/** The review the user decides on. */
export function reviewRequestOf(prepared: PreparedChange, title: string, connectionId: number): ReviewRequest {
  const { target, original, reviewed, merge, unsaved } = prepared;
  return {
    filePath: target.realPath,
    originalText: original,
    proposedText: reviewed,
    title,
    connectionId,
    ...(merge ? { merged: { unsavedText: unsaved!, conflicts: merge.conflicts } } : {}),
  };
}

async function reviewAndWrite(
  target: WorkspacePath,
  title: string,
  connectionId: number,
  makeProposal: (original: string | undefined) => Proposal | Promise<Proposal>,
  deps: ChangeDependencies,
  extra: { partial?: true; failed_blocks?: unknown[] },
): Promise<ChangeResult> {
  const shown = target.relative;
  const prepared = await prepareChange(target, makeProposal, deps);
  if ('error' in prepared) return prepared;
  let acceptedText = prepared.reviewed;
  if (needsReview(prepared, deps)) {
    const decision = await deps.review.review(reviewRequestOf(prepared, title, connectionId));
    if (decision.kind !== 'accepted') return { status: 'rejected', path: shown, ...extra };
    acceptedText = decision.text;
  }
  const refused = await refusedAfterReview(prepared, acceptedText, deps);
  if (refused) return refused;
  const problems = trackChangeDiagnostics(deps.diagnostics, target.realPath, deps.diagnosticsWaitMs ?? CHANGE_DIAGNOSTICS_WAIT_MS);
  const written = await writeAccepted(prepared, acceptedText, connectionId, deps, extra);
  if ('error' in written) return written;
  const added = await problems.finish(prepared.original ?? '', written.savedText, (file) =>
    file === target.realPath ? shown : displayPathOf(file, deps.workspace?.folders() ?? []),
  );
  const result = written.result;
  if (added.lines.length) result.new_diagnostics = added.lines;
  return result;
}

/**
 * Why an accepted change may not be written now, checked after the review and before any write:
 * conflicts left, the buffer or the file changed meanwhile, characters the encoding cannot hold typed
 * into the review, the path no longer inside the workspace. Undefined when it may be written.
 */
export async function refusedAfterReview(
  prepared: PreparedChange,
  acceptedText: string,
  deps: ChangeDependencies,
): Promise<{ error: string; path: string } | undefined> {
  const { target, merge, unsaved, bytes, codec, encoding, proposedText } = prepared;
  const shown = target.relative;
  const left = conflictsLeft(acceptedText);
  if (merge && left) {
    return {
      error: `The change to ${shown} was accepted with ${left} conflict${left > 1 ? 's' : ''} with the user's unsaved edits left unresolved, so nothing was written.`,
      path: shown,
    };
  }
  // The user may have typed into the real file while the review was open: never overwrite that.
  if (unsaved === undefined ? isDirty(target, deps) : unsavedTextOf(target, deps) !== unsaved) {
    return {
      error: `${shown} was edited in VS Code while the review was open and those edits are not saved, so the accepted change was not written (nothing was lost). Ask the user to save or revert the file, then read it again and retry.`,
      path: shown,
    };
  }
  // The merge's base must still be the file: saving over a newer file would lose that version.
  if (merge && !(await sameBytes(target.realPath, bytes))) {
    return {
      error: `${shown} changed on disk while the review of the change merged with the user's unsaved edits was open, so nothing was written (the unsaved edits are still in the editor). Read the file again and retry.`,
      path: shown,
    };
  }
  // The user may have typed characters the file's encoding cannot hold into the review.
  const typed = acceptedText === proposedText ? [] : await unencodableCharacters(codec, acceptedText, encoding);
  if (typed.length)
    return { error: `The change to ${shown} was accepted but not written: ${unencodableMessage(shown, acceptedText, typed, encoding)}`, path: shown };
  // The boundary must hold now, not only when the review opened: a folder may have been swapped for a link.
  try {
    await confirmWorkspacePath(target);
  } catch (error) {
    if (error instanceof WorkspacePathError) return { error: `The change to ${shown} was accepted but not written: ${error.message}`, path: shown };
    throw error;
  }
  return undefined;
}

/**
 * Writes an accepted change (checked by `refusedAfterReview`) through the DocumentWriter (no-follow, the
 * file's encoding, format on save), telling Claude's changes first. The result has no new_diagnostics:
 * the caller tracks them (trackChangeDiagnostics before, finish after).
 */
export async function writeAccepted(
  prepared: PreparedChange,
  acceptedText: string,
  connectionId: number,
  deps: ChangeDependencies,
  extra: { partial?: true; failed_blocks?: unknown[] } = {},
): Promise<{ result: Extract<ChangeResult, { status: 'accepted' }>; savedText: string } | { error: string; path: string }> {
  const { target, original, encoding, bytes, merge, proposedText } = prepared;
  const shown = target.relative;
  // The bytes the proposal was made from (already read) are the file before this write.
  await deps.changes?.beforeWrite(connectionId, target.realPath, 'tools-route', { bytes });
  let savedText: string;
  try {
    ({ savedText } = await deps.documents.write(target.realPath, acceptedText, original === undefined ? undefined : encoding));
  } catch (error) {
    deps.changes?.writeCancelled(connectionId, target.realPath);
    return {
      error: `The change to ${shown} was accepted but could not be written: ${(error as Error).message}. Read the file again to see its current content before retrying.`,
      path: shown,
    };
  }
  // The file is written: an editor that cannot be opened to show it (code-server, two writes at once)
  // must not tell the model the write failed.
  if (deps.approvalMode() === 'never') await deps.documents.showApplied?.(target.realPath).catch(() => undefined);
  const result: Extract<ChangeResult, { status: 'accepted' }> = {
    status: 'accepted',
    path: shown,
    operation: original === undefined ? 'created' : 'modified',
    ...extra,
  };
  if (merge) result.merged_with_unsaved_edits = true;
  const userEdits = patch(shown, proposedText, acceptedText, 'proposed', 'accepted by the user');
  if (userEdits) result.user_edits = userEdits;
  const formatterEdits = patch(shown, acceptedText, savedText, 'accepted', 'saved (format on save)');
  if (formatterEdits) result.formatter_edits = formatterEdits;
  return { result, savedText };
}

/** Whether the file still has the bytes it had (or is still absent). */
async function sameBytes(file: string, before: Buffer | undefined): Promise<boolean> {
  let now: Buffer | undefined;
  try {
    now = await readBytesIfExists(file);
  } catch {
    return false;
  }
  return now === undefined ? before === undefined : before !== undefined && now.equals(before);
}

/** A unified diff, or undefined when the texts are the same apart from line endings. */
function patch(name: string, from: string, to: string, fromLabel: string, toLabel: string): string | undefined {
  if (toLf(from) === toLf(to)) return undefined;
  const base = path.posix.basename(name);
  return createTwoFilesPatch(`${base} (${fromLabel})`, `${base} (${toLabel})`, toLf(from), toLf(to), undefined, undefined, { context: 2 });
}
