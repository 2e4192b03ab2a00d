/**
 * The .vsix (issue 12): only what the extension loads and what a user reads, no source maps, within
 * 300 KiB, and its chunks leave webpack.config.js's externals (vscode, bufferutil, utf-8-validate) to
 * require(). Uses dist/native-claude.vsix when it is newer than everything it is built from; otherwise runs
 * `npm run package` first (about 30–60 s), so on a fresh clone this test builds the package itself.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as yauzl from 'yauzl';
import { packagedReadme } from '../../scripts/packaged-readme';
import { findPlaceholders, MAX_VSIX_BYTES, readVsix, type VsixContents } from '../../scripts/vsixContents';

const ROOT = path.resolve(__dirname, '..', '..');
const VSIX = path.join(ROOT, 'dist', 'native-claude.vsix');
const INPUTS = [
  'src',
  'media',
  'package.json',
  '.vscodeignore',
  'README.md',
  'CHANGELOG.md',
  'LICENSE',
  'webpack.config.js',
  'tsconfig.build.json',
  'scripts/packaged-readme.ts',
];

function newestInput(p: string): number {
  const full = path.join(ROOT, p);
  if (!fs.existsSync(full)) return 0;
  const st = fs.statSync(full);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...fs.readdirSync(full).map((e) => newestInput(path.join(p, e))));
}

function packageNow(): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('npm', ['run', 'package'], { cwd: ROOT, timeout: 300_000, maxBuffer: 32 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`npm run package failed: ${err.message}\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`)) : resolve(stdout),
    ),
  );
}

/** What may be in the .vsix: the bundle and its chunks, the manifest, the user's documents, the icon, the walkthrough pages. */
const ALLOWED = [
  /^\[Content_Types\]\.xml$/,
  /^extension\.vsixmanifest$/,
  /^extension\/package\.json$/,
  /^extension\/readme\.md$/,
  /^extension\/changelog\.md$/,
  /^extension\/LICENSE\.txt$/,
  /^extension\/media\/icon\.png$/,
  /^extension\/media\/walkthrough\/[\w-]+\.md$/,
  /^extension\/dist\/[\w./-]+\.js$/,
];

/** The text of every dist/*.js the .vsix ships (what VS Code loads), by path inside the archive. */
function readShippedChunks(file: string): Promise<Map<string, string>> {
  return readShippedText(file, /^extension\/dist\/[\w./-]+\.js$/);
}

/** The text of each entry whose path inside the archive matches `which`. */
function readShippedText(file: string, which: RegExp): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error(`cannot open ${file}`));
      const chunks = new Map<string, string>();
      zip.on('entry', (e: yauzl.Entry) => {
        if (!which.test(e.fileName)) return zip.readEntry();
        zip.openReadStream(e, (streamErr, stream) => {
          if (streamErr || !stream) return reject(streamErr ?? new Error(`cannot read ${e.fileName}`));
          const parts: Buffer[] = [];
          stream.on('data', (b: Buffer) => parts.push(b));
          stream.on('end', () => {
            chunks.set(e.fileName, Buffer.concat(parts).toString('utf8'));
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(chunks));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

describe('the packaged .vsix', () => {
  let vsix: VsixContents;

  beforeAll(async () => {
    const inputs = Math.max(...INPUTS.map(newestInput));
    if (!fs.existsSync(VSIX) || fs.statSync(VSIX).mtimeMs < inputs) await packageNow();
    vsix = await readVsix(VSIX);
  }, 320_000);

  it('holds only the bundle, package.json, README, CHANGELOG, LICENSE, the icon and the walkthrough pages', () => {
    const paths = vsix.entries.map((e) => e.path);
    expect(paths.filter((p) => !ALLOWED.some((re) => re.test(p)))).toEqual([]);
    for (const needed of [
      'extension/dist/extension.js',
      'extension/package.json',
      'extension/readme.md',
      'extension/changelog.md',
      'extension/LICENSE.txt',
      'extension/media/icon.png',
    ]) {
      expect(paths).toContain(needed);
    }
  });

  it('has no source maps in it; they stay beside it in dist/', () => {
    expect(vsix.entries.filter((e) => /\.map$/.test(e.path))).toEqual([]);
    expect(fs.existsSync(path.join(ROOT, 'dist', 'extension.js.map'))).toBe(true);
  });

  it('ships every walkthrough page package.json points at, and the icon', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      icon: string;
      contributes: { walkthroughs: Array<{ steps: Array<{ media: { markdown?: string; image?: string } }> }> };
    };
    const referenced = [pkg.icon, ...pkg.contributes.walkthroughs.flatMap((w) => w.steps.map((s) => s.media.markdown ?? s.media.image ?? ''))];
    const paths = vsix.entries.map((e) => e.path);
    for (const file of referenced) expect(paths).toContain(`extension/${file}`);
  });

  // webpack.config.js externals: `vscode` is the host's, and ws's optional native speed-ups are not
  // shipped. Bundled or left unresolved, the first would break activation and the others would make
  // ws load a webpack "Cannot find module" stub instead of trying (and quietly missing) the real package.
  it('requires vscode, bufferutil and utf-8-validate at run time by their bare names instead of bundling them', async () => {
    const chunks = await readShippedChunks(VSIX);
    const extension = chunks.get('extension/dist/extension.js') ?? '';
    const all = [...chunks.values()].join('\n');
    const count = (text: string, needle: string) => text.split(needle).length - 1;
    const NAMES = ['vscode', 'bufferutil', 'utf-8-validate'];
    // Each is one external module (`e.exports=require("name")`) in the chunk activation loads, where ws
    // and the vscode adapters are: not bundled, not a second copy, not a webpack missing-module stub.
    expect(NAMES.map((name) => [name, count(extension, `require("${name}")`), count(all, `require("${name}")`)])).toEqual(NAMES.map((name) => [name, 1, 1]));
    expect(NAMES.filter((name) => all.includes(`Cannot find module '${name}'`))).toEqual([]);
  });

  // webpack.config.js swaps the SDK's zod 3 and Ajv paths for src/server/sdkPathsNotShipped.ts. Without
  // the swap each of these strings is in the session chunk (checked against the build before it).
  it('leaves Ajv, zod 3 and zod-to-json-schema out of the chunks, with the stand-in that says why', async () => {
    const all = [...(await readShippedChunks(VSIX)).values()].join('\n');
    const leftOut = { ajv: 'must NOT have additional properties', 'zod 3': 'ZodFirstPartyTypeKind', 'zod-to-json-schema': 'Recursive reference detected' };
    expect(Object.entries(leftOut).filter(([, text]) => all.includes(text))).toEqual([]);
    expect(all).toContain("is left out of native-claude's bundle");
  });

  // V8 keeps a script's source for as long as the script runs (to compile functions when first
  // called), one byte a character only if every character is Latin-1: a single "→" in a message
  // doubles the memory the whole chunk's source takes (webpack.config.js writes such characters as escapes).
  it('ships chunks whose source is all ASCII, so V8 keeps them at one byte a character', async () => {
    const chunks = await readShippedChunks(VSIX);
    const notAscii = [...chunks].map(([file, text]) => [file, [...new Set(text.match(/[^\x00-\x7f]/g) ?? [])].join('')]).filter(([, chars]) => chars);
    expect(notAscii).toEqual([]);
    expect(chunks.size).toBeGreaterThanOrEqual(3); // extension.js, session.js, terminal.js
  });

  // Issue 25: package.json and the README's pictures pointed at https://github.com/REPLACE-WITH-OWNER/...
  // VS Code's extension page drops pictures without an https address (a broken-image box instead), and
  // there is no public address for them: the README goes in without its pictures, text and links kept.
  it('ships README.md without its pictures, and no placeholder in any text it ships', async () => {
    const texts = await readShippedText(VSIX, /^(extension\.vsixmanifest|extension\/(package\.json|readme\.md|changelog\.md|media\/walkthrough\/[\w-]+\.md))$/);
    const readme = texts.get('extension/readme.md') ?? '';
    expect(readme).toBe(packagedReadme(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')));
    expect(readme).toContain('## Install');
    expect(readme.match(/!\[[^\]]*\]\([^)]*\)|<img\b[^>]*>/g) ?? []).toEqual([]);
    expect(texts.size).toBeGreaterThanOrEqual(4);
    const found = [...texts].flatMap(([file, text]) => findPlaceholders(text).map((p) => `${file} ${p}`));
    expect(found).toEqual([]);
  });

  it(`is at most ${MAX_VSIX_BYTES / 1024} KiB`, () => {
    expect(vsix.bytes).toBeGreaterThan(50 * 1024); // a real bundle, not an empty archive
    expect(vsix.bytes).toBeLessThanOrEqual(MAX_VSIX_BYTES);
  });

  it('`npm run package` prints the file list and the size (its last step, scripts/package-report.ts)', async () => {
    const printed = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', 'scripts/package-report.ts'],
        { cwd: ROOT, timeout: 60_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    for (const e of vsix.entries) expect(printed).toContain(e.path);
    expect(printed).toContain(`size: ${vsix.bytes} bytes`);
    expect(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).toMatch(
      /"package": "[^"]*vsce package[^"]*&& node -r ts-node\/register\/transpile-only scripts\/package-report\.ts"/,
    );
  }, 60_000);
});
