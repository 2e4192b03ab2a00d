import * as vscode from 'vscode';
import type { FileChange } from '../../changes/changeLedger';
import type { TextCodec } from '../../host/textCodec';

/** The before-images' scheme: `claude-before:<file path>?<blob id | absent>`, read-only. */
export const BEFORE_SCHEME = 'claude-before';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The before-image of a change as a read-only document. */
export function beforeUri(change: Pick<FileChange, 'path' | 'before'>): vscode.Uri {
  return vscode.Uri.from({ scheme: BEFORE_SCHEME, path: vscode.Uri.file(change.path).path, query: 'blob' in change.before ? change.before.blob : 'absent' });
}

/**
 * The before-images as read-only files: `claude-before:<file path>?<blob id | absent>`. A file system, not
 * a text document content provider: VS Code resolves a content provider's document again when it is
 * asked for while its last reference is being let go, and then refuses the second model ("ModelService:
 * Cannot add model because it already exists!"), for good: after a hunk undo from the quick diff's peek,
 * and after a reload, a click on the listed file opened nothing (issue 31, finding 6). Its documents are
 * files of VS Code's file service, and `onFileSystem:claude-before` activates the extension for the
 * editors a reload restores.
 */
export class BeforeContentProvider implements vscode.FileSystemProvider, vscode.Disposable {
  /** Never fired: a before-image's URI names its content (a blob id), which never changes. */
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  /** The before-image last served (its URI and its bytes as given to VS Code). */
  private last: { key: string; at: number; bytes: Promise<Uint8Array> } | undefined;

  constructor(
    /** A stored blob's bytes (the tracker's store). */
    private readonly bytesOf: (blob: string) => Promise<Buffer>,
    /** How VS Code decodes each file: a before-image is shown in its file's encoding (absent: UTF-8). */
    private readonly codec?: TextCodec,
  ) {}

  // Content-addressed: what a URI names never changes.
  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    return { type: vscode.FileType.File, ctime: 0, mtime: 0, size: (await this.readFile(uri)).byteLength, permissions: vscode.FilePermission.Readonly };
  }

  /**
   * A before-image as the editor is to show it: decoded in its file's own encoding (an open editor's, else
   * the settings' and its byte order mark, as VS Code decodes the file: `TextCodec`), given to VS Code as
   * UTF-8 behind a byte order mark, which VS Code takes over any configured encoding and leaves out of
   * the text. So the quick diff compares the same characters on both sides (a Latin-1 file decoded as
   * UTF-8 showed every line with an accented letter as changed, and its hunks could not be undone).
   */
  readFile(uri: vscode.Uri): Promise<Uint8Array> {
    // VS Code asks for the size (stat), then the content: decoded once for both (and again later: the
    // file's encoding may have changed).
    const key = uri.toString();
    if (this.last?.key !== key || Date.now() - this.last.at > 2_000) this.last = { key, at: Date.now(), bytes: this.decoded(uri) };
    const pending = this.last;
    return pending.bytes.catch((error: Error) => {
      if (this.last === pending) this.last = undefined;
      throw error;
    });
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    readOnly();
  }
  writeFile(): void {
    readOnly();
  }
  delete(): void {
    readOnly();
  }
  rename(): void {
    readOnly();
  }

  dispose(): void {
    this.changed.dispose();
  }

  private async decoded(uri: vscode.Uri): Promise<Uint8Array> {
    let bytes: Buffer;
    try {
      bytes = uri.query === 'absent' ? Buffer.alloc(0) : await this.bytesOf(uri.query);
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return Buffer.concat([UTF8_BOM, Buffer.from(await beforeText(bytes, vscode.Uri.from({ scheme: 'file', path: uri.path }).fsPath, this.codec), 'utf8')]);
  }
}

function readOnly(): never {
  throw vscode.FileSystemError.NoPermissions("Claude's changes: the content before Claude's change is read-only");
}

/**
 * A before-image's text in its file's encoding, without a byte order mark (the editor shows none).
 * Bytes the editor would take for binary, or no codec: UTF-8.
 */
async function beforeText(bytes: Uint8Array, filePath: string, codec: TextCodec | undefined): Promise<string> {
  let text: string | undefined;
  if (codec) text = await codec.readText(bytes, filePath).catch(() => undefined);
  text ??= new TextDecoder('utf-8').decode(bytes);
  return text.startsWith('\ufeff') ? text.slice(1) : text;
}
