import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { IdeServer } from '../../src/server/ideServer';
import { createSessionFactory } from '../../src/server/mcpSession';
import { applyDiffTool } from '../../src/tools/applyDiff';
import { ideGetDiagnosticsTool } from '../../src/tools/ideGetDiagnostics';
import { closeAllDiffTabsTool } from '../../src/tools/closeAllDiffTabs';
import { closeTabTool } from '../../src/tools/closeTab';
import { openDiffTool } from '../../src/tools/openDiff';
import { writeFileTool } from '../../src/tools/writeFile';
import type { ApprovalMode } from '../../src/host/approvalMode';
import { KeyedLock } from '../../src/util/keyedLock';
import { memoryLogger } from '../../src/util/logger';
import { NodeTextCodec } from '../../src/workspace/encodings';
import { DiskDocumentWriter, ScriptedReviewHost, StaticDiagnostics, diagnostic } from '../support/fakeHosts';
import { TEST_TOKEN, connectClient, waitFor } from '../support/serverFixture';

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

describe('review tools over the real socket', () => {
  let root: string;
  let review: ScriptedReviewHost;
  let documents: DiskDocumentWriter;
  let diagnostics: StaticDiagnostics;
  let approval: ApprovalMode;
  let server: IdeServer;
  let url: string;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-review-')));
    review = new ScriptedReviewHost();
    documents = new DiskDocumentWriter();
    diagnostics = new StaticDiagnostics();
    approval = 'write-only';
    const workspace = { folders: () => [root], ripgrepPath: () => undefined };
    const deps = { review, documents, diagnostics, workspace, approvalMode: () => approval, lock: new KeyedLock(), lockTimeoutMs: 300, diagnosticsWaitMs: 10 };
    server = new IdeServer({
      token: TEST_TOKEN,
      log: memoryLogger(),
      createSession: createSessionFactory({
        toolsFor: (route) =>
          route === 'ide'
            ? [openDiffTool(review, undefined, documents), closeTabTool(review), closeAllDiffTabsTool(review), ideGetDiagnosticsTool(diagnostics)]
            : [writeFileTool(workspace, deps), applyDiffTool(workspace, deps)],
        serverInfo: { name: 'native-claude', version: 't' },
        log: memoryLogger(),
        onSessionClosed: (id) => review.withdrawForConnection(id),
      }),
    });
    url = `ws://127.0.0.1:${await server.start()}`;
  });
  afterEach(async () => {
    await server.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallResult>;
  const texts = (r: CallResult) => r.content.map((c) => c.text);

  describe('openDiff', () => {
    const file = () => path.join(root, 'demo.py');
    const args = (contents: string, tab = '✻ [Claude Code] demo.py (abc123) ⧉') => ({
      old_file_path: file(),
      new_file_path: file(),
      new_file_contents: contents,
      tab_name: tab,
    });

    test("stays pending until accepted, then answers FILE_SAVED with the final text including the user's edits", async () => {
      await fs.writeFile(file(), 'a\nb\n');
      const { client } = await connectClient(url, { announce: true });
      let settled = false;
      const answer = call(client, 'openDiff', args('a\nB\n')).then((r) => ((settled = true), r));
      const [pending] = await review.waitForPending();
      expect(pending.extra).toMatchObject({ originalText: 'a\nb\n', proposedText: 'a\nB\n', title: '✻ [Claude Code] demo.py (abc123) ⧉' });
      // A later call's answer comes back on the same socket after any answer to openDiff sent before it.
      expect(texts(await call(client, 'close_tab', { tab_name: 'no such tab' }))).toEqual(['TAB_NOT_FOUND']);
      expect(settled).toBe(false);
      await review.decide({ kind: 'accepted', text: 'a\nB edited by user\n' });
      expect(texts(await answer)).toEqual(['FILE_SAVED', 'a\nB edited by user\n']);
      expect(await fs.readFile(file(), 'utf8')).toBe('a\nb\n'); // the CLI writes, not us
    });

    test('a file with unsaved edits: the review shows the merge beside the buffer; FILE_SAVED answers the merge, the buffer then takes it', async () => {
      await fs.writeFile(file(), 'a\r\nb\r\nc\r\nd\r\n');
      documents.unsaved.set(file(), 'a typed\r\nb\r\nc\r\nd\r\n');
      const { client } = await connectClient(url, { announce: true });
      const answer = call(client, 'openDiff', args('a\nb\nc\nD by claude\n')); // claude sends \n for a CRLF file
      const request = await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      expect(request).toMatchObject({
        originalText: 'a\r\nb\r\nc\r\nd\r\n',
        proposedText: 'a typed\nb\nc\nD by claude\n',
        merged: { unsavedText: 'a typed\r\nb\r\nc\r\nd\r\n', conflicts: 0 },
      });
      expect(texts(await answer)).toEqual(['FILE_SAVED', 'a typed\nb\nc\nD by claude\n']);
      expect(documents.adopted).toEqual([{ path: file(), text: 'a typed\nb\nc\nD by claude\n', unsaved: 'a typed\r\nb\r\nc\r\nd\r\n' }]);
      expect(await fs.readFile(file(), 'utf8')).toBe('a\r\nb\r\nc\r\nd\r\n'); // the CLI writes, not us
    });

    test("claude's next Edit right after it wrote an accepted merge waits for the buffer to take the write: no merge of the old typing again", async () => {
      // As in VS Code: the buffer takes claude's write only once a poll of the file sees it.
      documents.adoptPollMs = 300;
      await fs.writeFile(file(), 'one\ntwo\nthree\n');
      documents.unsaved.set(file(), 'one typed\ntwo\nthree\n');
      const { client } = await connectClient(url, { announce: true });
      const first = call(client, 'openDiff', args('one\ntwo\nTHREE\n'));
      await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      const merged = 'one typed\ntwo\nTHREE\n';
      expect(texts(await first)).toEqual(['FILE_SAVED', merged]);
      // claude writes the merge and, at once, proposes its next Edit from it.
      await fs.writeFile(file(), merged);
      const second = call(client, 'openDiff', args('one typed\nTWO\nTHREE\n', '✻ [Claude Code] demo.py (def456) ⧉'));
      const request = await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      expect(request.merged).toBeUndefined();
      expect(request).toMatchObject({ originalText: merged, proposedText: 'one typed\nTWO\nTHREE\n' });
      expect(texts(await second)).toEqual(['FILE_SAVED', 'one typed\nTWO\nTHREE\n']);
    });

    test('a file with unsaved edits, rejected: DIFF_REJECTED, the buffer is not touched', async () => {
      await fs.writeFile(file(), 'a\nb\n');
      documents.unsaved.set(file(), 'a\nb\ntyped\n');
      const { client } = await connectClient(url, { announce: true });
      const answer = call(client, 'openDiff', args('A\nb\n'));
      await review.decide({ kind: 'rejected', reason: 'user' });
      expect(texts(await answer)).toEqual(['DIFF_REJECTED']);
      expect(documents.adopted).toEqual([]);
      expect(documents.unsaved.get(file())).toBe('a\nb\ntyped\n');
    });

    test('a Write over unsaved edits on the same lines: the review holds conflict markers', async () => {
      await fs.writeFile(file(), 'a\n');
      documents.unsaved.set(file(), 'a typed\n');
      const { client } = await connectClient(url, { announce: true });
      const answer = call(client, 'openDiff', args('b\n'));
      const request = await review.decide({ kind: 'rejected', reason: 'user' });
      expect(request.proposedText).toBe("<<<<<<< your unsaved edits\na typed\n=======\nb\n>>>>>>> Claude's proposal\n");
      expect(request.merged).toEqual({ unsavedText: 'a typed\n', conflicts: 1 });
      expect(texts(await answer)).toEqual(['DIFF_REJECTED']);
    });

    test("a dirty buffer without text to merge (a notebook) opens no review: an error keeps claude's own prompt", async () => {
      await fs.writeFile(file(), 'a\n');
      documents.dirty.add(file());
      const { client } = await connectClient(url, { announce: true });
      const result = await call(client, 'openDiff', args('b\n'));
      expect(result.isError).toBe(true);
      expect(review.opened).toEqual([]);
    });

    test('a new file has an empty original', async () => {
      const { client } = await connectClient(url, { announce: true });
      const answer = call(client, 'openDiff', args('new\n'));
      const request = await review.decide({ kind: 'rejected', reason: 'tab-closed' });
      expect(request.originalText).toBeUndefined();
      expect(texts(await answer)).toEqual(['DIFF_REJECTED']);
    });

    test.each(['user', 'tab-closed', 'window-closed'] as const)('a user rejection (%s) answers DIFF_REJECTED, never TAB_CLOSED', async (reason) => {
      const { client } = await connectClient(url, { announce: true });
      const answer = call(client, 'openDiff', args('x\n'));
      await review.decide({ kind: 'rejected', reason });
      expect(texts(await answer)).toEqual(['DIFF_REJECTED']);
    });

    test('close_tab settles a still-pending diff (the user answered in the terminal) and is idempotent', async () => {
      const { client } = await connectClient(url, { announce: true });
      const answer = call(client, 'openDiff', args('x\n', 'T1'));
      await review.waitForPending();
      expect(texts(await call(client, 'close_tab', { tab_name: 'T1' }))).toEqual(['TAB_CLOSED']);
      expect(texts(await answer)).toEqual(['TAB_CLOSED']);
      expect(texts(await call(client, 'close_tab', { tab_name: 'T1' }))).toEqual(['TAB_NOT_FOUND']);
    });

    test('several diffs can be pending at once, for the same file too', async () => {
      const { client } = await connectClient(url, { announce: true });
      const one = call(client, 'openDiff', args('one\n', 'T1'));
      const two = call(client, 'openDiff', args('two\n', 'T2'));
      await review.waitForPending(2);
      review.registry.settle(review.registry.byTitle('T2')[0].id, { kind: 'accepted', text: 'two\n' });
      review.registry.settle(review.registry.byTitle('T1')[0].id, { kind: 'rejected', reason: 'user' });
      expect(texts(await one)).toEqual(['DIFF_REJECTED']);
      expect(texts(await two)).toEqual(['FILE_SAVED', 'two\n']);
    });

    test('closeAllDiffTabs settles every pending diff', async () => {
      const { client } = await connectClient(url, { announce: true });
      const one = call(client, 'openDiff', args('one\n', 'T1'));
      await review.waitForPending(1);
      await call(client, 'closeAllDiffTabs', {});
      expect(texts(await one)).toEqual(['TAB_CLOSED']);
    });

    test("two sessions: closeAllDiffTabs and close_tab from one leave the other session's review pending", async () => {
      const first = await connectClient(url, { announce: true, pid: 111 });
      const second = await connectClient(url, { announce: true, pid: 222 });
      const mine = call(first.client, 'openDiff', args('first\n', 'T'));
      let theirsSettled = false;
      const theirs = call(second.client, 'openDiff', args('second\n', 'T')).then((r) => ((theirsSettled = true), r));
      await review.waitForPending(2);
      expect(texts(await call(second.client, 'closeAllDiffTabs', {}))).toEqual(['CLOSED_1_DIFF_TABS']);
      expect(texts(await theirs)).toEqual(['TAB_CLOSED']);
      expect(review.registry.all().map((r) => r.extra.proposedText)).toEqual(['first\n']);
      expect(texts(await call(second.client, 'close_tab', { tab_name: 'T' }))).toEqual(['TAB_NOT_FOUND']);
      expect(review.registry.size).toBe(1);
      const withdrawn: number[] = [];
      const withdraw = review.withdrawForConnection.bind(review);
      review.withdrawForConnection = (id) => (withdrawn.push(id), withdraw(id));
      await second.client.close();
      await waitFor(() => withdrawn.length === 1, 3000, 'the server to end the closed session');
      expect(review.registry.size).toBe(1); // closing a session closes only its own reviews
      expect(texts(await call(first.client, 'close_tab', { tab_name: 'T' }))).toEqual(['TAB_CLOSED']);
      expect(texts(await mine)).toEqual(['TAB_CLOSED']);
      expect(theirsSettled).toBe(true);
    });

    test('a client that disconnects has its pending diffs settled', async () => {
      const { client } = await connectClient(url, { announce: true });
      void call(client, 'openDiff', args('x\n')).catch(() => undefined);
      await review.waitForPending();
      await client.close();
      await waitFor(() => review.registry.size === 0, 2000, 'pending diff withdrawn');
    });
  });

  describe('getDiagnostics (IDE)', () => {
    test('with a uri the first entry is that file, even with no problems; 0-based ranges and severity names', async () => {
      const other = path.join(root, 'other.ts');
      diagnostics.byFile.set(other, [diagnostic('bad', 3, 'Warning')]);
      const { client } = await connectClient(url, { announce: true });
      const one = JSON.parse(texts(await call(client, 'getDiagnostics', { uri: `file://${root}/clean.ts` }))[0]);
      expect(one).toEqual([{ uri: `file://${root}/clean.ts`, diagnostics: [] }]);
      const all = JSON.parse(texts(await call(client, 'getDiagnostics', {}))[0]);
      expect(all).toEqual([{ uri: `file://${other}`, diagnostics: [diagnostic('bad', 3, 'Warning')] }]);
    });

    test('is listed for the model with a description', async () => {
      const { client } = await connectClient(url, { announce: true });
      const tool = (await client.listTools()).tools.find((t) => t.name === 'getDiagnostics');
      expect(tool?.description).toMatch(/Problems panel/);
      expect(tool?.inputSchema.properties).toHaveProperty('uri');
    });
  });

  describe('write_file', () => {
    test("accepted: writes the user's version, reports user edits, formatter edits and new problems", async () => {
      const target = path.join(root, 'src', 'a.json');
      documents.format = (t) => {
        diagnostics.byFile.set(target, [diagnostic('Expected comma', 1)]); // the language server reacts to the save
        return t.replace('{"x":1}', '{ "x": 1 }');
      };
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'write_file', { path: 'src/a.json', content: '{"x":1}\n' });
      await review.decide((req) => ({ kind: 'accepted', text: `${req.proposedText}// user line\n` }));
      const result = JSON.parse(texts(await answer)[0]);
      expect(result).toMatchObject({ status: 'accepted', path: 'src/a.json', operation: 'created' });
      expect(result.user_edits).toContain('+// user line');
      expect(result.formatter_edits).toContain('+{ "x": 1 }');
      expect(result.new_diagnostics).toEqual(['[Error] src/a.json:2:1 — Expected comma (test 1)']);
      expect(await fs.readFile(target, 'utf8')).toBe('{ "x": 1 }\n// user line\n');
    });

    test('new_diagnostics: a problem that only moved down is not new; a broken importer (another file) is, most severe first', async () => {
      const lib = path.join(root, 'lib.ts');
      const main = path.join(root, 'main.ts');
      await fs.writeFile(lib, 'export const a = 1;\nconst bad: number = "s";\n');
      await fs.writeFile(main, "import { a } from './lib';\n");
      const typeError = {
        ...diagnostic("Type 'string' is not assignable to type 'number'.", 1),
        range: { start: { line: 1, character: 6 }, end: { line: 1, character: 9 } },
      };
      diagnostics.set(lib, [typeError]);
      diagnostics.set(main, [diagnostic('unused', 0, 'Hint')]);
      documents.format = (t) => {
        // The language server re-checks: the old problem two lines lower, and the importer breaks.
        diagnostics.byFile.set(lib, [{ ...typeError, range: { start: { line: 3, character: 6 }, end: { line: 3, character: 9 } } }]);
        diagnostics.byFile.set(main, [
          diagnostic('unused', 0, 'Hint'),
          diagnostic("Module './lib' has no exported member 'a'.", 0, 'Error'),
          diagnostic('deprecated', 0, 'Warning'),
        ]);
        return t;
      };
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'apply_diff', {
        path: 'lib.ts',
        diff: '<<<<<<< SEARCH\nexport const a = 1;\n=======\n// a comment\n// renamed\nexport const b = 1;\n>>>>>>> REPLACE',
      });
      await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      const result = JSON.parse(texts(await answer)[0]);
      expect(result.new_diagnostics).toEqual([
        "[Error] main.ts:1:1 — Module './lib' has no exported member 'a'. (test 1)",
        '[Warning] main.ts:1:1 — deprecated (test 1)',
      ]);
    });

    test('rejected new file: no file and no folders left behind', async () => {
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'write_file', { path: 'deep/er/new.txt', content: 'x' });
      await review.decide({ kind: 'rejected', reason: 'user' });
      expect(JSON.parse(texts(await answer)[0])).toEqual({ status: 'rejected', path: 'deep/er/new.txt' });
      await expect(fs.access(path.join(root, 'deep'))).rejects.toThrow();
    });

    test('rejected edit: the file stays byte-identical (CRLF, BOM, no final newline)', async () => {
      const bytes = Buffer.from('\uFEFFline1\r\nline2', 'utf8');
      await fs.writeFile(path.join(root, 'crlf.txt'), bytes);
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'write_file', { path: 'crlf.txt', content: 'line1\nchanged\n' });
      const request = await review.decide({ kind: 'rejected', reason: 'user' });
      expect(request.proposedText).toBe('line1\r\nchanged\r\n'); // shown in the file's own line endings
      expect(JSON.parse(texts(await answer)[0]).status).toBe('rejected');
      expect(Buffer.compare(await fs.readFile(path.join(root, 'crlf.txt')), bytes)).toBe(0);
    });

    test('refuses a dirty buffer it cannot merge with (a notebook), and paths outside the workspace', async () => {
      await fs.writeFile(path.join(root, 'dirty.txt'), 'x');
      documents.dirty.add(path.join(root, 'dirty.txt'));
      const { client } = await connectClient(`${url}/tools`);
      const dirty = await call(client, 'write_file', { path: 'dirty.txt', content: 'y' });
      expect(dirty.isError).toBe(true);
      expect(JSON.parse(dirty.content[0].text).error).toMatch(/unsaved changes in VS Code that cannot be merged/);
      const outside = await call(client, 'write_file', { path: '../escape.txt', content: 'y' });
      expect(outside.isError).toBe(true);
      expect(JSON.parse(outside.content[0].text).error).toMatch(/outside/i);
      expect(review.opened).toHaveLength(0);
    });

    test('unsaved edits made while the review was open are never overwritten on accept', async () => {
      const file = path.join(root, 'typing.txt');
      await fs.writeFile(file, 'one\n');
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'write_file', { path: 'typing.txt', content: 'two\n' });
      await review.decide((req) => {
        documents.dirty.add(file); // the user typed into the real file meanwhile
        return { kind: 'accepted', text: req.proposedText };
      });
      const result = await answer;
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0].text).error).toMatch(/edited in VS Code while the review was open/);
      expect(documents.written).toEqual([]);
      expect(await fs.readFile(file, 'utf8')).toBe('one\n');
    });

    test('a write that fails after acceptance is an {error, path} result that says what to do', async () => {
      documents.failWith = 'VS Code could not save /x';
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'write_file', { path: 'w.txt', content: 'x\n' });
      await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      const result = await answer;
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0].text)).toEqual({
        error: expect.stringMatching(/accepted but could not be written: VS Code could not save \/x\. Read the file again/),
        path: 'w.txt',
      });
    });

    test('approvalMode never: applied without waiting', async () => {
      approval = 'never';
      const { client } = await connectClient(`${url}/tools`);
      const result = JSON.parse(texts(await call(client, 'write_file', { path: 'n.txt', content: 'now\n' }))[0]);
      expect(result).toMatchObject({ status: 'accepted', operation: 'created' });
      expect(await fs.readFile(path.join(root, 'n.txt'), 'utf8')).toBe('now\n');
      expect(review.opened).toHaveLength(0);
    });

    test('approvalMode never: an editor that cannot be opened to show the written file does not turn the write into an error', async () => {
      approval = 'never';
      // Seen in code-server with two claudes writing at once: showTextDocument rejected after the write.
      documents.showFailsWith = 'Could NOT open editor for "file:///n2.txt".';
      const { client } = await connectClient(`${url}/tools`);
      const result = await call(client, 'write_file', { path: 'n2.txt', content: 'now\n' });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(texts(result)[0])).toMatchObject({ status: 'accepted', operation: 'created' });
      expect(await fs.readFile(path.join(root, 'n2.txt'), 'utf8')).toBe('now\n');
    });

    test('writes to one file are serialised, with a clear error after the lock timeout; other files proceed', async () => {
      const { client } = await connectClient(`${url}/tools`);
      const first = call(client, 'write_file', { path: 'same.txt', content: '1' });
      await review.waitForPending(1);
      const second = await call(client, 'write_file', { path: 'same.txt', content: '2' }); // lockTimeoutMs = 300
      expect(second.isError).toBe(true);
      expect(JSON.parse(second.content[0].text).error).toMatch(/still waiting for the user's review/);
      const other = call(client, 'write_file', { path: 'other.txt', content: 'o' });
      await review.waitForPending(2);
      review.registry.all().forEach((r) => review.registry.settle(r.id, { kind: 'accepted', text: r.extra.proposedText }));
      expect(JSON.parse(texts(await first)[0]).status).toBe('accepted');
      expect(JSON.parse(texts(await other)[0]).status).toBe('accepted');
    });
  });

  describe('write_file and apply_diff on a file with unsaved edits: a review of the merge', () => {
    const saved = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const typed = 'one (typed, not saved)\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const file = () => path.join(root, 'notes.txt');
    const sixToSix = '<<<<<<< SEARCH\nsix\n=======\nSIX by claude\n>>>>>>> REPLACE';

    test("disjoint edits: the review shows the merge beside the user's buffer; accept saves it, the buffer ends clean", async () => {
      await fs.writeFile(file(), saved);
      documents.unsaved.set(file(), typed);
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'apply_diff', { path: 'notes.txt', diff: sixToSix });
      const request = await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      const merged = 'one (typed, not saved)\ntwo\nthree\nfour\nfive\nSIX by claude\nseven\n';
      expect(request).toMatchObject({ originalText: saved, proposedText: merged, merged: { unsavedText: typed, conflicts: 0 } });
      const result = JSON.parse(texts(await answer)[0]);
      expect(result).toMatchObject({ status: 'accepted', operation: 'modified', merged_with_unsaved_edits: true });
      expect(result.user_edits).toContain('+one (typed, not saved)');
      expect(await fs.readFile(file(), 'utf8')).toBe(merged);
      expect(documents.unsaved.has(file())).toBe(false);
    });

    test('reject: the file keeps its bytes and the buffer its unsaved text', async () => {
      await fs.writeFile(file(), saved);
      documents.unsaved.set(file(), typed);
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'apply_diff', { path: 'notes.txt', diff: sixToSix });
      await review.decide({ kind: 'rejected', reason: 'user' });
      expect(JSON.parse(texts(await answer)[0])).toEqual({ status: 'rejected', path: 'notes.txt' });
      expect(await fs.readFile(file(), 'utf8')).toBe(saved);
      expect(documents.unsaved.get(file())).toBe(typed);
      expect(documents.written).toEqual([]);
    });

    test('a Write over the buffer: one conflict; accepting with the markers left writes nothing, resolving them writes', async () => {
      await fs.writeFile(file(), saved);
      documents.unsaved.set(file(), typed);
      const { client } = await connectClient(`${url}/tools`);
      const markers = call(client, 'write_file', { path: 'notes.txt', content: 'all new\n' });
      const request = await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      expect(request.proposedText).toBe(`<<<<<<< your unsaved edits\n${typed}=======\nall new\n>>>>>>> Claude's proposal\n`);
      expect(request.merged).toEqual({ unsavedText: typed, conflicts: 1 });
      const refused = await markers;
      expect(refused.isError).toBe(true);
      expect(JSON.parse(refused.content[0].text).error).toMatch(
        /accepted with 1 conflict with the user's unsaved edits left unresolved, so nothing was written/,
      );
      expect(await fs.readFile(file(), 'utf8')).toBe(saved);
      expect(documents.unsaved.get(file())).toBe(typed);

      const resolved = call(client, 'write_file', { path: 'notes.txt', content: 'all new\n' });
      await review.decide({ kind: 'accepted', text: 'one (typed, not saved)\nall new\n' });
      expect(JSON.parse(texts(await resolved)[0])).toMatchObject({ status: 'accepted', merged_with_unsaved_edits: true });
      expect(await fs.readFile(file(), 'utf8')).toBe('one (typed, not saved)\nall new\n');
    });

    test('a Write that keeps the lines the user edited merges without a conflict', async () => {
      await fs.writeFile(file(), saved);
      documents.unsaved.set(file(), saved.replace('seven', 'seven (typed)'));
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'write_file', { path: 'notes.txt', content: 'ONE\nfour\nfive\nsix\nseven\n' });
      const request = await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      expect(request.proposedText).toBe('ONE\nfour\nfive\nsix\nseven (typed)\n');
      expect(JSON.parse(texts(await answer)[0]).status).toBe('accepted');
    });

    test('a Latin-1 CRLF file: the merge is written in its encoding and line ends, bytes exact', async () => {
      const codec = new NodeTextCodec(() => 'iso88591');
      documents = new DiskDocumentWriter(codec);
      const workspace = { folders: () => [root], ripgrepPath: () => undefined };
      const deps = { review, documents, diagnostics, workspace, approvalMode: () => approval, lock: new KeyedLock(), diagnosticsWaitMs: 10, codec };
      await server.stop();
      server = new IdeServer({
        token: TEST_TOKEN,
        log: memoryLogger(),
        createSession: createSessionFactory({
          toolsFor: () => [applyDiffTool(workspace, deps)],
          serverInfo: { name: 'native-claude', version: 't' },
          log: memoryLogger(),
        }),
      });
      url = `ws://127.0.0.1:${await server.start()}`;
      await fs.writeFile(file(), Buffer.from('caf\xe9\r\nna\xefve\r\nz\r\n', 'latin1'));
      documents.unsaved.set(file(), 'café crème\r\nnaïve\r\nz\r\n');
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'apply_diff', { path: 'notes.txt', diff: '<<<<<<< SEARCH\nz\n=======\nZé\n>>>>>>> REPLACE' });
      await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      expect(JSON.parse(texts(await answer)[0]).status).toBe('accepted');
      expect(await fs.readFile(file())).toEqual(Buffer.from('caf\xe9 cr\xe8me\r\nna\xefve\r\nZ\xe9\r\n', 'latin1'));
    });

    test('the buffer edited again while the review was open: nothing written, nothing lost', async () => {
      await fs.writeFile(file(), saved);
      documents.unsaved.set(file(), typed);
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'apply_diff', { path: 'notes.txt', diff: sixToSix });
      await review.decide((req) => {
        documents.unsaved.set(file(), `${typed}more typing\n`);
        return { kind: 'accepted', text: req.proposedText };
      });
      const result = await answer;
      expect(JSON.parse(result.content[0].text).error).toMatch(/edited in VS Code while the review was open/);
      expect(await fs.readFile(file(), 'utf8')).toBe(saved);
      expect(documents.unsaved.get(file())).toBe(`${typed}more typing\n`);
    });

    test('the file changed on disk while the review was open: refused, not merged again', async () => {
      await fs.writeFile(file(), saved);
      documents.unsaved.set(file(), typed);
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'apply_diff', { path: 'notes.txt', diff: sixToSix });
      await review.waitForPending();
      await fs.writeFile(file(), `${saved}written by someone else\n`);
      await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      const result = await answer;
      expect(JSON.parse(result.content[0].text).error).toMatch(
        /changed on disk while the review .* was open, so nothing was written \(the unsaved edits are still in the editor\)/,
      );
      expect(await fs.readFile(file(), 'utf8')).toBe(`${saved}written by someone else\n`);
      expect(documents.unsaved.get(file())).toBe(typed);
    });

    test('approvalMode "never" still opens the review of a merge', async () => {
      approval = 'never';
      await fs.writeFile(file(), saved);
      documents.unsaved.set(file(), typed);
      const { client } = await connectClient(`${url}/tools`);
      const answer = call(client, 'apply_diff', { path: 'notes.txt', diff: sixToSix });
      await review.decide({ kind: 'rejected', reason: 'user' });
      expect(JSON.parse(texts(await answer)[0]).status).toBe('rejected');
      expect(await fs.readFile(file(), 'utf8')).toBe(saved);
    });
  });

  describe('apply_diff', () => {
    test('applies blocks in order and reports failed ones as partial', async () => {
      await fs.writeFile(path.join(root, 'm.ts'), 'one\ntwo\nthree\ntwo\n');
      const { client } = await connectClient(`${url}/tools`);
      const diff = [
        '<<<<<<< SEARCH',
        'one',
        '=======',
        'ONE',
        '>>>>>>> REPLACE',
        '<<<<<<< SEARCH',
        'two',
        '=======',
        'TWO',
        '>>>>>>> REPLACE',
        '<<<<<<< SEARCH',
        'missing',
        '=======',
        'x',
        '>>>>>>> REPLACE',
      ].join('\n');
      const answer = call(client, 'apply_diff', { path: 'm.ts', diff });
      const request = await review.decide((req) => ({ kind: 'accepted', text: req.proposedText }));
      expect(request.proposedText).toBe('ONE\ntwo\nthree\ntwo\n');
      const result = JSON.parse(texts(await answer)[0]);
      expect(result).toMatchObject({ status: 'accepted', partial: true });
      expect(result.failed_blocks.map((b: { index: number }) => b.index)).toEqual([2, 3]);
      expect(result.failed_blocks[0].reason).toMatch(/ambiguous \(2 matches found\)/);
      expect(await fs.readFile(path.join(root, 'm.ts'), 'utf8')).toBe('ONE\ntwo\nthree\ntwo\n');
    });

    test('no block applies: an error, and no review opens', async () => {
      await fs.writeFile(path.join(root, 'm.ts'), 'one\n');
      const { client } = await connectClient(`${url}/tools`);
      const result = await call(client, 'apply_diff', { path: 'm.ts', diff: '<<<<<<< SEARCH\nnope\n=======\nx\n>>>>>>> REPLACE' });
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0].text).error).toMatch(/nope/);
      expect(review.opened).toHaveLength(0);
    });

    test('a payload past the work limit: an error saying what to send instead, no review, the file unchanged', async () => {
      // Every SEARCH line is in the file but no block matches, so each block costs both passes over
      // 200,000 lines: 100 blocks are past the limit.
      const content = `y\n${'x\n'.repeat(200_000)}`;
      await fs.writeFile(path.join(root, 'big.txt'), content);
      const { client } = await connectClient(`${url}/tools`);
      const diff = Array.from({ length: 100 }, () => '<<<<<<< SEARCH\nx\ny\n=======\nz\n>>>>>>> REPLACE').join('\n');
      const result = await call(client, 'apply_diff', { path: 'big.txt', diff });
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0].text).error).toMatch(/apply_diff stopped.*Nothing was applied.*fewer blocks per call/s);
      expect(review.opened).toHaveLength(0);
      expect(await fs.readFile(path.join(root, 'big.txt'), 'utf8')).toBe(content);
    });

    test('a 200,000-line REPLACE is proposed (no call-stack overflow)', async () => {
      await fs.writeFile(path.join(root, 'm.ts'), 'one\ntwo\nthree\n');
      const { client } = await connectClient(`${url}/tools`);
      const replacement = Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join('\n');
      const answer = call(client, 'apply_diff', { path: 'm.ts', diff: `<<<<<<< SEARCH\ntwo\n=======\n${replacement}\n>>>>>>> REPLACE` });
      const request = await review.decide({ kind: 'rejected', reason: 'user' });
      expect(request.proposedText).toBe(`one\n${replacement}\nthree\n`);
      expect(JSON.parse(texts(await answer)[0])).toMatchObject({ status: 'rejected' });
    });

    test('a missing file is an error that points to write_file', async () => {
      const { client } = await connectClient(`${url}/tools`);
      const result = await call(client, 'apply_diff', { path: 'none.ts', diff: '<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE' });
      expect(result.isError).toBe(true);
    });
  });
});

describe('IDE route listing', () => {
  test('lists only getDiagnostics on the IDE route; the internal calls stay callable', async () => {
    const review = new ScriptedReviewHost();
    const server = new IdeServer({
      token: TEST_TOKEN,
      log: memoryLogger(),
      createSession: createSessionFactory({
        toolsFor: () => [openDiffTool(review), closeTabTool(review), closeAllDiffTabsTool(review), ideGetDiagnosticsTool(new StaticDiagnostics())],
        serverInfo: { name: 'native-claude', version: 't' },
        log: memoryLogger(),
      }),
    });
    const url = `ws://127.0.0.1:${await server.start()}`;
    const { client } = await connectClient(url, { announce: true });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['getDiagnostics']);
    await expect(client.callTool({ name: 'close_tab', arguments: { tab_name: 'x' } })).resolves.toMatchObject({ content: [{ text: 'TAB_NOT_FOUND' }] });
    await client.close();
    await server.stop();
  });
});
