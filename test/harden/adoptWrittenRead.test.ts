/**
 * After claude writes the merge of an `openDiff` over unsaved edits, the editor's document waits for the
 * file to hold it (`VsCodeDocumentWriter.adoptWritten`). That read is bounded like every other: a FIFO
 * swapped in at the path is refused at once (an unbounded `fs.readFile` blocked on it until a writer
 * came, holding a thread of the extension host's pool), and the user's buffer is never replaced.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const documents: Array<{ uri: { scheme: string; fsPath: string }; isDirty: boolean; getText(): string }> = [];
jest.mock('vscode', () => ({ workspace: { textDocuments: documents, notebookDocuments: [], applyEdit: async () => true } }), { virtual: true });

import { VsCodeDocumentWriter } from '../../src/vscode/review/documentWriter';
import type { TextCodec } from '../../src/host/textCodec';

const codec = { decode: async (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8') } as unknown as TextCodec;
const describeLinux = process.platform === 'linux' ? describe : describe.skip;

describeLinux("hardening: the wait for claude's write of a merge reads the file bounded", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-adopt-')));
  });
  afterEach(async () => {
    documents.length = 0;
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('a FIFO at the path: refused at once, the buffer left alone', async () => {
    const file = path.join(dir, 'a.txt');
    execFileSync('mkfifo', [file]);
    let replaced = false;
    documents.push({ uri: { scheme: 'file', fsPath: file }, isDirty: true, getText: () => ((replaced = true), 'mine\n') });
    const writer = new VsCodeDocumentWriter(codec);
    // The wait gives up after 10 s without the merge on disk; a blocked read never lets it get there.
    const outcome = await Promise.race([
      writer.adoptWritten(file, 'merged\n', 'mine\n').then(() => 'gave up'),
      new Promise((resolve) => setTimeout(() => resolve('still blocked'), 13_000)),
    ]);
    expect(outcome).toBe('gave up');
    expect(replaced).toBe(false);
  }, 20_000);
});
