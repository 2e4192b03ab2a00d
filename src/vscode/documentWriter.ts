import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { DocumentWriter } from '../host/documents';
import type { TextCodec } from '../host/textCodec';
import { assertNoLinkSwappedIn, writeWithoutFollowing } from '../workspace/noFollowWrite';
import { encodingName, unencodableCharacters, unencodableMessage } from '../workspace/encodings';
import { stripBom } from '../workspace/textFormat';

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
