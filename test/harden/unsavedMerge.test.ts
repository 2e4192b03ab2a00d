// Hardening — proposals merged with the user's unsaved edits (docs/review.md, "A file with unsaved
// edits"). The attacker is the proposal (a prompt-injected claude) or the file: a proposal that costs
// the diff its worst case, lines named like object properties, fake conflict markers, a hard link to
// a file outside the workspace with unsaved edits. Real server, real sockets, real files; the user's
// buffer is the scripted DiskDocumentWriter.unsaved.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OURS_MARKER, THEIRS_MARKER } from '../../src/review/threeWayMerge';
import { resultText, startWorkspaceToolServer } from '../support/workspaceToolServer';

jest.setTimeout(60_000);

describe('hardening: proposals merged with unsaved edits', () => {
  let root: string;
  let ws: string;
  let server: Awaited<ReturnType<typeof startWorkspaceToolServer>>;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-merge-')));
    ws = path.join(root, 'ws');
    await fs.mkdir(ws);
    server = await startWorkspaceToolServer(() => [ws]);
  });
  afterEach(async () => {
    await server.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  test("a Write that reverses a 1 MB file's lines (the diff's worst case): one conflict, the review opens; rejected, nothing changed", async () => {
    const file = path.join(ws, 'big.txt');
    const lines = Array.from({ length: 35_000 }, (_, i) => `line ${i} ${'x'.repeat(20)}\n`);
    await fs.writeFile(file, lines.join(''));
    const typed = lines.join('').replace('line 7 ', 'line 7 typed ');
    server.documents.unsaved.set(file, typed);
    const client = await server.tools();
    const answer = server.call(client, 'write_file', { path: 'big.txt', content: [...lines].reverse().join('') });
    const request = await server.review.decide({ kind: 'rejected', reason: 'user' });
    expect(request.merged?.conflicts).toBe(1);
    expect(request.proposedText.startsWith(`${OURS_MARKER}\n`)).toBe(true);
    expect(JSON.parse(resultText(await answer)).status).toBe('rejected');
    expect(await fs.readFile(file, 'utf8')).toBe(lines.join(''));
    expect(server.documents.unsaved.get(file)).toBe(typed);
  });

  test('lines named like object properties (__proto__, constructor, toString) merge as any other line', async () => {
    const file = path.join(ws, 'proto.txt');
    const saved = '__proto__\nconstructor\ntoString\nhasOwnProperty\nvalueOf\n';
    await fs.writeFile(file, saved);
    server.documents.unsaved.set(file, saved.replace('constructor', 'constructor typed'));
    const client = await server.tools();
    const answer = server.call(client, 'apply_diff', { path: 'proto.txt', diff: '<<<<<<< SEARCH\nvalueOf\n=======\n__proto__\n>>>>>>> REPLACE' });
    const request = await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect(request.proposedText).toBe('__proto__\nconstructor typed\ntoString\nhasOwnProperty\n__proto__\n');
    expect(JSON.parse(resultText(await answer)).status).toBe('accepted');
    expect(await fs.readFile(file, 'utf8')).toBe('__proto__\nconstructor typed\ntoString\nhasOwnProperty\n__proto__\n');
  });

  test("a proposal carrying our own conflict markers into a merge cannot be accepted as it is; in a clean file's review they are plain text", async () => {
    const dirty = path.join(ws, 'dirty.txt');
    await fs.writeFile(dirty, 'a\nb\nc\n');
    server.documents.unsaved.set(dirty, 'a typed\nb\nc\n');
    const client = await server.tools();
    const forged = `a\nb\n${OURS_MARKER}\nc\n${THEIRS_MARKER}\n`;
    const refused = server.call(client, 'write_file', { path: 'dirty.txt', content: forged });
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect(JSON.parse(resultText(await refused)).error).toMatch(/conflict.*left unresolved, so nothing was written/);
    expect(await fs.readFile(dirty, 'utf8')).toBe('a\nb\nc\n');

    const clean = path.join(ws, 'clean.txt');
    await fs.writeFile(clean, 'x\n');
    const accepted = server.call(client, 'write_file', { path: 'clean.txt', content: forged });
    await server.review.decide((r) => ({ kind: 'accepted', text: r.proposedText }));
    expect(JSON.parse(resultText(await accepted)).status).toBe('accepted');
    expect(await fs.readFile(clean, 'utf8')).toBe(forged);
  });

  test('a hard link to a file outside the workspace, with unsaved edits: refused before any review, as without them', async () => {
    const outside = path.join(root, 'secret.txt');
    await fs.writeFile(outside, 'secret\n');
    const linked = path.join(ws, 'linked.txt');
    await fs.link(outside, linked);
    server.documents.unsaved.set(linked, 'secret\ntyped\n');
    const client = await server.tools();
    const answer = await server.call(client, 'write_file', { path: 'linked.txt', content: 'PWNED\n' });
    expect(answer.isError).toBe(true);
    expect(resultText(answer)).toMatch(/hard links/);
    expect(server.review.opened).toEqual([]);
    expect(await fs.readFile(outside, 'utf8')).toBe('secret\n');
  });
});
