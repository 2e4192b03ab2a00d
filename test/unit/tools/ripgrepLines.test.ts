import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { formatListing, listFilesTool, RecursiveListingBuilder } from '../../../src/tools/listFiles';
import { buildRecursiveListing } from '../../support/recursiveListing';
import { runRipgrep } from '../../../src/tools/ripgrepRunner';

/**
 * A stand-in for rg: an executable Node script that ignores its arguments and writes the given
 * pieces to stdout one at a time, with a pause between them so that each arrives as its own chunk
 * (lines and UTF-8 characters split across chunks, as a pipe can split them).
 */
function fakeRipgrep(dir: string, pieces: Buffer[]): string {
  const file = path.join(dir, `fake-rg-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    file,
    `#!${process.execPath}
const pieces = ${JSON.stringify(pieces.map((p) => p.toString('base64')))};
let i = 0;
const next = () => { if (i < pieces.length) process.stdout.write(Buffer.from(pieces[i++], 'base64'), () => setTimeout(next, 5)); };
next();
`,
  );
  chmodSync(file, 0o755);
  return file;
}

/** The first `count` pieces of `size` bytes, then the rest in one piece. */
function split(text: string, size: number, count: number): Buffer[] {
  const bytes = Buffer.from(text);
  const pieces: Buffer[] = [];
  for (let i = 0; i < count && i * size < bytes.length; i++) pieces.push(bytes.subarray(i * size, (i + 1) * size));
  if (count * size < bytes.length) pieces.push(bytes.subarray(count * size));
  return pieces;
}

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'nc-rg-lines-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tools: rg output read line by line', () => {
  const utf8 = Buffer.from('é');
  // "a\nb" | "c\nd\n" + half of é | the other half, and no newline at the very end
  const pieces = [Buffer.from('a\nb'), Buffer.concat([Buffer.from('c\nd\n'), utf8.subarray(0, 1)]), utf8.subarray(1)];

  test('onLine: a line split across chunks is joined once, and the last line needs no newline', async () => {
    const lines: string[] = [];
    const run = await runRipgrep(fakeRipgrep(dir, pieces), [], { cwd: dir, onLine: (line) => void lines.push(line) });
    expect(run.exitCode).toBe(0);
    expect(lines).toEqual(['a', 'bc', 'd', 'é']);
  });

  test('onChunk: the bytes as rg wrote them, undecoded, and false stops rg', async () => {
    const chunks: Buffer[] = [];
    const run = await runRipgrep(fakeRipgrep(dir, pieces), [], { cwd: dir, onChunk: (chunk) => void chunks.push(chunk) });
    expect(run.exitCode).toBe(0);
    expect(Buffer.concat(chunks).equals(Buffer.concat(pieces))).toBe(true);
    const stopped = await runRipgrep(fakeRipgrep(dir, pieces), [], { cwd: dir, onChunk: () => false });
    expect(stopped.stopped).toBe('limit');
  });
});

describe('tools: list_files recursive reads rg output chunk by chunk', () => {
  // As `rg --files` prints them: "./" first, folders interleaved (rg walks them in parallel), names in
  // several scripts.
  const files: string[] = [];
  for (let d = 0; d < 40; d++) for (let f = 0; f < 30; f++) files.push(`pkg${d % 7}/modül${d}/${f % 3 === 0 ? 'ファイル' : 'file'}${f}.ts`);
  files.push('top.txt', 'pkg1/readme.md', 'pkg1/modül8/deeper/x.ts');
  const interleaved = [...files.filter((_, i) => i % 2 === 0), ...files.filter((_, i) => i % 2 === 1)];
  const output = interleaved.map((f) => `./${f}\n`).join('');

  test.each([7, 61, 997])('gives the listing of the whole paths (chunks of %i bytes)', async (size) => {
    const rg = fakeRipgrep(dir, split(output, size, 40));
    const tool = listFilesTool({ folders: () => [dir], ripgrepPath: () => rg });
    const result = await tool.handle({ path: '.', recursive: true }, { connectionId: 0, signal: new AbortController().signal });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: formatListing(buildRecursiveListing(interleaved), '') }]);
  });

  test('adds at most max lines (empty ones not counted) and nothing past them, not even the end of the last line', () => {
    const builder = new RecursiveListingBuilder(500, 'sub/');
    expect(builder.addChunk(Buffer.from('./sub/a/1\n\n./sub/a/2\n./sub/b/3\n./sub/c'), 2)).toBe(2);
    expect(builder.finish()).toEqual({ entries: ['a/', 'a/1', 'a/2'], total: 3, truncated: false });
    const whole = new RecursiveListingBuilder(500, 'sub/');
    expect(whole.addChunk(Buffer.from('./sub/a/1\n./sub/c'))).toBe(1);
    expect(whole.finish()).toEqual({ entries: ['a/', 'a/1', 'c'], total: 3, truncated: false });
  });
});
