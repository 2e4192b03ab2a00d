import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DocumentWriter } from '../host/documents';
import { stripBom } from '../util/textFormat';

/**
 * Writes accepted changes through a VS Code document and saves it, so format-on-save, the file's
 * encoding (BOM included) and its line endings are handled by the editor as for a user's save.
 */
export class VsCodeDocumentWriter implements DocumentWriter {
  isDirty(absolutePath: string): boolean {
    return vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'file' && d.uri.fsPath === absolutePath && d.isDirty);
  }

  async write(absolutePath: string, text: string): Promise<{ savedText: string }> {
    const uri = vscode.Uri.file(absolutePath);
    const exists = await fs.stat(absolutePath).then(() => true, () => false);
    if (!exists) {
      // Created only now, after acceptance: a rejected new file leaves no file and no folders.
      await fs.mkdir(path.dirname(absolutePath), { recursive: true });
      await fs.writeFile(absolutePath, '', { flag: 'wx' });
    }
    const document = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(document.lineAt(0).range.start, document.lineAt(document.lineCount - 1).rangeIncludingLineBreak.end), stripBom(text));
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused the edit to ${absolutePath}`);
    if (!(await document.save())) throw new Error(`VS Code could not save ${absolutePath}`);
    return { savedText: document.getText() };
  }

  async showApplied(absolutePath: string): Promise<void> {
    await vscode.window.showTextDocument(vscode.Uri.file(absolutePath), { preview: true, preserveFocus: true });
  }
}
