// Files keep their own encoding through read_file, write_file and apply_diff (issue 22, finding 12):
// real files on disk, the tools' real read and write path, the plain codec standing in for VS Code's
// `files.encoding` (test/vscode/suites/tools-encoding.test.ts runs the same cases in VS Code).
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WorkspaceHost } from '../../src/host/workspace';
import { applyDiffTool } from '../../src/tools/applyDiff';
import { readFileTool } from '../../src/tools/readFile';
import type { ToolContext } from '../../src/tools/toolDefinition';
import { writeFileTool } from '../../src/tools/writeFile';
import { KeyedLock } from '../../src/util/keyedLock';
import { NodeTextCodec } from '../../src/workspace/encodings';
import { DiskDocumentWriter, ScriptedReviewHost, StaticDiagnostics } from '../support/fakeHosts';

type Result = { content: Array<{ type: string; text: string }>; isError?: boolean };

// "café\nnaïve\nlast line\n" in ISO-8859-1: é = E9, ï = EF.
const LATIN1 = Buffer.from('63 61 66 e9 0a 6e 61 ef 76 65 0a 6c 61 73 74 20 6c 69 6e 65 0a'.split(' ').map((h) => parseInt(h, 16)));
const LAST_LINE_DIFF = '<<<<<<< SEARCH\nlast line\n=======\nthe end\n>>>>>>> REPLACE';

describe('files in their own encoding', () => {
  let root: string;
  let review: ScriptedReviewHost;
  let settings: Record<string, string>; // file name → files.encoding, as VS Code's settings would say
  let tools: { read: ReturnType<typeof readFileTool>; write: ReturnType<typeof writeFileTool>; apply: ReturnType<typeof applyDiffTool> };
  const context: ToolContext = { connectionId: 1, signal: new AbortController().signal };
  const file = (name: string) => path.join(root, name);
  const error = (r: Result) => (r.isError ? (JSON.parse(r.content[0].text) as { error: string }).error : `not an error: ${r.content[0].text}`);

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-encoding-')));
    review = new ScriptedReviewHost();
    settings = {};
    const codec = new NodeTextCodec((p) => settings[path.basename(p)] ?? 'utf8');
    const workspace: WorkspaceHost = { folders: () => [root], ripgrepPath: () => undefined, codec };
    const deps = {
      review,
      documents: new DiskDocumentWriter(codec),
      diagnostics: new StaticDiagnostics(),
      workspace,
      codec,
      approvalMode: () => 'write-only' as const,
      lock: new KeyedLock(),
      diagnosticsWaitMs: 10,
    };
    tools = { read: readFileTool(workspace), write: writeFileTool(workspace, deps), apply: applyDiffTool(workspace, deps) };
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  describe('a Latin-1 file (files.encoding: iso88591)', () => {
    beforeEach(async () => {
      settings['legacy.txt'] = 'iso88591';
      await fs.writeFile(file('legacy.txt'), LATIN1);
    });

    test('apply_diff on the last line leaves every other byte as it was', async () => {
      const answer = tools.apply.handle({ path: 'legacy.txt', diff: LAST_LINE_DIFF }, context) as Promise<Result>;
      const request = await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      expect(request.originalText).toBe('café\nnaïve\nlast line\n'); // the review shows the real characters
      expect((await answer).isError).toBeFalsy();
      expect(await fs.readFile(file('legacy.txt'))).toEqual(Buffer.concat([LATIN1.subarray(0, 11), Buffer.from('the end\n', 'latin1')]));
    });

    test('read_file shows the real characters', async () => {
      const result = (await tools.read.handle({ path: 'legacy.txt' }, context)) as Result;
      expect(result.content[0].text).toBe('1 | café\n2 | naïve\n3 | last line\ntotal_lines: 3');
    });

    test('a character Latin-1 cannot hold is refused before any review, saying which and what to do; the file is unchanged', async () => {
      const result = (await tools.write.handle({ path: 'legacy.txt', content: 'café\nnaïve\nprice: 5 €\n' }, context)) as Result;
      expect(error(result)).toMatch(/ISO-8859-1 \(Latin-1\), which cannot hold "€" \(U\+20AC, line 3\).*nothing was written.*escape sequence.*UTF-8/s);
      expect(review.opened).toHaveLength(0);
      expect(await fs.readFile(file('legacy.txt'))).toEqual(LATIN1);
    });

    test('one the user types into the review is refused too, and the file is unchanged', async () => {
      const answer = tools.apply.handle({ path: 'legacy.txt', diff: LAST_LINE_DIFF }, context) as Promise<Result>;
      await review.decide({ kind: 'accepted', text: 'café\nnaïve\nthe end €\n' });
      expect(error(await answer)).toMatch(/accepted but not written: .*cannot hold "€" \(U\+20AC, line 3\)/);
      expect(await fs.readFile(file('legacy.txt'))).toEqual(LATIN1);
    });
  });

  test('read as UTF-8 (the default settings) a Latin-1 file would lose its é: a change is refused, saying how to set its encoding', async () => {
    await fs.writeFile(file('legacy.txt'), LATIN1);
    for (const result of [
      (await tools.apply.handle({ path: 'legacy.txt', diff: LAST_LINE_DIFF }, context)) as Result,
      (await tools.write.handle({ path: 'legacy.txt', content: 'new\n' }, context)) as Result,
    ]) {
      expect(error(result)).toMatch(/not valid UTF-8.*rewrite bytes the change does not touch\. Nothing was changed\..*"files\.encoding"/s);
    }
    expect(review.opened).toHaveLength(0);
    expect(await fs.readFile(file('legacy.txt'))).toEqual(LATIN1);
  });

  test('a UTF-8 file with a BOM keeps it, and only the edited line changes', async () => {
    const before = Buffer.from('\ufeffcafé\nlast line\n', 'utf8');
    await fs.writeFile(file('bom.txt'), before);
    const answer = tools.apply.handle({ path: 'bom.txt', diff: LAST_LINE_DIFF }, context) as Promise<Result>;
    await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
    expect((await answer).isError).toBeFalsy();
    expect(await fs.readFile(file('bom.txt'))).toEqual(Buffer.from('\ufeffcafé\nthe end\n', 'utf8'));
  });

  test('UTF-16 LE with a BOM: read_file shows its text, and apply_diff keeps it UTF-16', async () => {
    const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    await fs.writeFile(file('wide.txt'), utf16('café\nlast line\n'));
    expect(((await tools.read.handle({ path: 'wide.txt' }, context)) as Result).content[0].text).toBe('1 | café\n2 | last line\ntotal_lines: 2');
    const answer = tools.apply.handle({ path: 'wide.txt', diff: LAST_LINE_DIFF }, context) as Promise<Result>;
    await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
    expect((await answer).isError).toBeFalsy();
    expect(await fs.readFile(file('wide.txt'))).toEqual(utf16('café\nthe end\n'));
  });

  test('a lone surrogate cannot be written in UTF-8 either', async () => {
    const result = (await tools.write.handle({ path: 'new.txt', content: 'a\ud800b\n' }, context)) as Result;
    expect(error(result)).toMatch(/UTF-8, which cannot hold "\ud800" \(U\+D800, line 1\)/);
    await expect(fs.stat(file('new.txt'))).rejects.toThrow(/ENOENT/);
  });
});
