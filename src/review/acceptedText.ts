import type { ReviewRequest } from '../host/review';
import { detectEol, stripBom, toLf, withEol } from '../workspace/textFormat';

/**
 * The text an accepted review answers with: the right side as the user left it, in the proposal's line
 * endings (docs/vscode-traps.md, trap 2). The editor may hold the text in either line ending, so it is converted
 * from `\n`. The proposal's, not the file's: write_file/apply_diff proposals already carry the file's
 * (proposeChange), and the CLI sends openDiff proposals with `\n` for a CRLF file and restores CRLF when
 * it writes; answering in CRLF made it tell the model "the user modified your proposed changes" when
 * nobody had (seen with claude 2.1.328). A proposal without a line break takes the file's. A BOM is
 * never part of the answer (the writer keeps the file's own).
 */
export function acceptedText(request: Pick<ReviewRequest, 'originalText' | 'proposedText'>, editorText: string): string {
  const fileEol = detectEol(stripBom(request.originalText ?? ''));
  return withEol(toLf(stripBom(editorText)), detectEol(stripBom(request.proposedText), fileEol));
}

/**
 * Whether `written` (the file after claude's write, `\n` line ends, no BOM) is claude's write of the
 * `accepted` answer: the same text, or, from claude up to 2.1.328, the same text without its last newline
 * (it rebuilds a Write accepted with other text than proposed from one hunk and drops it; docs/protocol.md).
 */
export function isClaudesWriteOf(written: string, accepted: string): boolean {
  return written === accepted || (accepted.endsWith('\n') && written === accepted.slice(0, -1));
}
