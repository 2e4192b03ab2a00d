import * as vscode from 'vscode';
import type { TextCodec } from '../../host/textCodec';
import { decodeUtf8, encodingByBom, isUtf8 } from '../../workspace/encodings';

/**
 * Files in their own encoding, as VS Code decodes them: an open document's encoding, else the
 * settings (`files.encoding`, `files.autoGuessEncoding`, per language) and the byte order mark, else
 * VS Code's own decision (workspace.decode, or the encoding it opens the document in). UTF-8 is
 * decoded here, without a round trip to the workbench, so large UTF-8 files read as fast as before.
 */
export class VsCodeTextCodec implements TextCodec {
  quickEncoding(absolutePath: string, head: Uint8Array): string | undefined {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === absolutePath);
    if (open) return open.encoding; // what it was opened (or reopened by the user) with, and will be saved in
    const files = vscode.workspace.getConfiguration('files', vscode.Uri.file(absolutePath));
    // Set for some language: only the file's language, which VS Code knows, decides.
    if (files.inspect('encoding')?.languageIds?.length || files.inspect('autoGuessEncoding')?.languageIds?.length) return undefined;
    const bom = encodingByBom(head);
    if (bom) return bom;
    if (files.get<boolean>('autoGuessEncoding')) return undefined; // a guess from the whole content
    const configured = files.get<string>('encoding') || 'utf8';
    return configured === 'utf8bom' ? undefined : configured; // a file without its BOM: VS Code's call
  }

  async readText(bytes: Uint8Array, absolutePath: string): Promise<string> {
    const quick = this.quickEncoding(absolutePath, bytes);
    if (quick) return this.decode(bytes, quick);
    return vscode.workspace.decode(bytes, { uri: vscode.Uri.file(absolutePath) });
  }

  async readForEdit(bytes: Uint8Array, absolutePath: string): Promise<{ text: string; encoding: string }> {
    // Only the document tells which encoding VS Code guessed; it is the one the save will use.
    const encoding = this.quickEncoding(absolutePath, bytes) ?? (await vscode.workspace.openTextDocument(vscode.Uri.file(absolutePath))).encoding;
    return { text: await this.decode(bytes, encoding), encoding };
  }

  newFileEncoding(absolutePath: string): string {
    return vscode.workspace.getConfiguration('files', vscode.Uri.file(absolutePath)).get<string>('encoding') || 'utf8';
  }

  async decode(bytes: Uint8Array, encoding: string): Promise<string> {
    if (isUtf8(encoding)) return decodeUtf8(bytes);
    return vscode.workspace.decode(bytes, { encoding });
  }

  async encode(text: string, encoding: string): Promise<Uint8Array> {
    if (encoding === 'utf8') return Buffer.from(text, 'utf8');
    return vscode.workspace.encode(text, { encoding });
  }
}
