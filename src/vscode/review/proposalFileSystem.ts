import * as vscode from 'vscode';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Right side of a review diff: editable, saved only in memory. */
export const PROPOSAL_SCHEME = 'native-claude-proposal';
/** Left side: the file as it was when the proposal arrived, read-only. */
export const ORIGINAL_SCHEME = 'native-claude-original';

/**
 * An in-memory file system for the two sides of a review. The proposal never lives in the real
 * file's editor, so `files.autoSave` can only save it here, never to disk (docs/vscode-traps.md, trap 1),
 * and content is kept in a store rather than in a URI query (trap 8).
 */
export class MemoryFileSystem implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  /** Fires after VS Code saved a document into this store (any reason). */
  private readonly written = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidWrite = this.written.event;

  set(uri: vscode.Uri, text: string): void {
    // With a BOM, VS Code decodes it as UTF-8 whatever `files.encoding` says (a Latin-1 setting would
    // show `café` as `cafÃ©`, and accepting would write that).
    this.files.set(uri.path, { data: Buffer.concat([UTF8_BOM, Buffer.from(text, 'utf8')]), mtime: Date.now() });
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  text(uri: vscode.Uri): string | undefined {
    const file = this.files.get(uri.path);
    return file ? new TextDecoder('utf-8').decode(file.data) : undefined; // the BOM dropped
  }

  remove(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.files.get(uri.path);
    if (file) return { type: vscode.FileType.File, ctime: file.mtime, mtime: file.mtime, size: file.data.byteLength };
    if ([...this.files.keys()].some((p) => p.startsWith(uri.path.endsWith('/') ? uri.path : `${uri.path}/`))) {
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    }
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const file = this.files.get(uri.path);
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return file.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.files.has(uri.path)) throw vscode.FileSystemError.NoPermissions('Only open review proposals can be saved here');
    this.files.set(uri.path, { data: content, mtime: Date.now() });
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
    this.written.fire(uri);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('Review proposals cannot hold folders');
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('Review proposals cannot be renamed');
  }
}
