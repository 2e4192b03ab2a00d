import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { DocumentWriter } from '../../host/documents';
import type { TextCodec } from '../../host/textCodec';
import { assertNoLinkSwappedIn, writeWithoutFollowing } from '../../workspace/noFollowWrite';
import { encodingName, unencodableCharacters, unencodableMessage } from '../../workspace/encodings';
import { readBytesIfExists } from '../../workspace/readTextIfExists';
import { stripBom, toLf, withEol } from '../../workspace/textFormat';
import { isClaudesWriteOf } from '../../review/acceptedText';

/**
 * Writes accepted changes through a VS Code document and saves it, so format-on-save, the file's
 * encoding (BOM included) and its line endings are handled by the editor as for a user's save.
 */
export class VsCodeDocumentWriter implements DocumentWriter {
  constructor(private readonly codec: TextCodec) {}

  isDirty(absolutePath: string): boolean {
    // A notebook open in the notebook editor is not among the text documents (its cells are).
    const same = (d: { uri: vscode.Uri; isDirty: boolean }) => d.uri.scheme === 'file' && d.uri.fsPath === absolutePath && d.isDirty;
    return vscode.workspace.textDocuments.some(same) || vscode.workspace.notebookDocuments.some(same);
  }

  unsavedText(absolutePath: string): string | undefined {
    // A notebook's cells are text documents of another scheme: a dirty notebook has no text here.
    const document = this.fileDocument(absolutePath);
    return document?.isDirty ? stripBom(document.getText()) : undefined;
  }

  /**
   * After claude wrote the merge it was answered (openDiff over unsaved edits): the buffer takes the
   * same text as one undoable edit and is saved. VS Code saves without its "file is newer" conflict when
   * the bytes it writes are the file's (checked in code-server 4.139.1's file service), so the editor
   * ends clean with the user's undo history.
   */
  async adoptWritten(absolutePath: string, text: string, unsaved: string): Promise<void> {
    const document = this.fileDocument(absolutePath);
    if (!document) return;
    const accepted = toLf(stripBom(text));
    // claude writes right after the answer; wait (at most 10 s) until the file holds the merge as claude
    // writes it (2.1.328 drops the last newline of a Write accepted with other text).
    let written: Buffer | undefined;
    let onDisk: string;
    for (let waited = 0; ; waited += 100) {
      // Bounded like every read: a FIFO or a device swapped in is refused, never waited on.
      written = await readBytesIfExists(absolutePath).catch(() => undefined);
      onDisk = written ? toLf(stripBom(await this.codec.decode(written, document.encoding).catch(() => ''))) : '';
      if (written && isClaudesWriteOf(onDisk, accepted)) break;
      if (waited >= 10_000) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Edited again since the review opened: never replace the user's text.
    if (!document.isDirty || toLf(stripBom(document.getText())) !== toLf(stripBom(unsaved))) return;
    const edit = new vscode.WorkspaceEdit();
    const all = new vscode.Range(document.lineAt(0).range.start, document.lineAt(document.lineCount - 1).rangeIncludingLineBreak.end);
    const merged = withEol(onDisk, document.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n');
    edit.replace(document.uri, all, merged);
    if (!(await vscode.workspace.applyEdit(edit))) return;
    // Saved only when that writes the very bytes claude wrote (else VS Code would ask about a newer file):
    // a file claude wrote otherwise (a BOM it dropped) keeps the merge in the buffer, unsaved.
    if (Buffer.from(await this.codec.encode(merged, document.encoding)).equals(written)) await document.save();
  }

  private fileDocument(absolutePath: string): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === absolutePath);
  }

  async write(absolutePath: string, text: string, encoding?: string): Promise<{ savedText: string }> {
    const uri = vscode.Uri.file(absolutePath);
    // Created only now, after acceptance: a rejected new file leaves no file and no folders. Neither
    // the creation nor the save may follow a symbolic link swapped in since the path was checked.
    const created = !(await assertNoLinkSwappedIn(absolutePath));
    if (created) await writeWithoutFollowing(absolutePath, '');
    const document = await vscode.workspace.openTextDocument(uri);
    // The save encodes in the document's encoding: the file's own, or bytes the change did not touch
    // would change (and characters it cannot hold would be substituted without a word).
    const refusal = await this.encodingRefusal(document, stripBom(text), encoding);
    if (refusal) {
      if (created) await fs.rm(absolutePath, { force: true }); // the empty file made above
      throw new Error(refusal);
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(document.lineAt(0).range.start, document.lineAt(document.lineCount - 1).rangeIncludingLineBreak.end), stripBom(text));
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused the edit to ${absolutePath}`);
    await assertNoLinkSwappedIn(absolutePath); // right before VS Code writes the file
    if (!(await document.save())) throw new Error(`VS Code could not save ${absolutePath}`);
    return { savedText: document.getText() };
  }

  private async encodingRefusal(document: vscode.TextDocument, text: string, expected: string | undefined): Promise<string | undefined> {
    if (expected !== undefined && document.encoding !== expected) {
      return `VS Code now has it in ${encodingName(document.encoding)}, not in ${encodingName(expected)} as when the change was proposed, so nothing was written`;
    }
    const unencodable = await unencodableCharacters(this.codec, text, document.encoding);
    return unencodable.length ? unencodableMessage(vscode.workspace.asRelativePath(document.uri, false), text, unencodable, document.encoding) : undefined;
  }

  async showApplied(absolutePath: string): Promise<void> {
    await vscode.window.showTextDocument(vscode.Uri.file(absolutePath), { preview: true, preserveFocus: true });
  }
}
