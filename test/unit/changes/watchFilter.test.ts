import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../../src/changes/beforeImageStore';
import { ChangeTracker } from '../../../src/changes/changeTracker';
import { WatchFilter } from '../../../src/changes/watchFilter';

/** What VS Code's git extension runs for Repository.checkIgnore: one `git check-ignore -v -z --stdin` for all paths. */
function gitCheckIgnore(repo: string, counter: { runs: number }) {
  return (paths: readonly string[]) =>
    new Promise<Set<string>>((resolve, reject) => {
      counter.runs++;
      const child = execFile('git', ['check-ignore', '-v', '-z', '--stdin'], { cwd: repo }, (error, stdout) => {
        if (error && error.code !== 1) return reject(error);
        const fields = stdout.split('\0');
        const ignored = new Set<string>();
        for (let i = 0; i + 3 < fields.length; i += 4) if (fields[i + 2] && !fields[i + 2].startsWith('!')) ignored.add(fields[i + 3]);
        resolve(ignored);
      });
      child.stdin!.end(paths.join('\0'));
    });
}

const git = (cwd: string, ...args: string[]) => new Promise<void>((resolve, reject) => execFile('git', args, { cwd }, (e) => (e ? reject(e) : resolve())));

describe('WatchFilter', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-watchfilter-')));
    await git(root, 'init', '-q');
    await fs.writeFile(path.join(root, '.gitignore'), 'dist/\n*.pyc\n!keep.pyc\n');
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });
  const file = (name: string) => path.join(root, name);

  test('the exclude settings skip a path they name or a folder above it, relative to its workspace folder; false, `when` and other folders do not', () => {
    const filter = new WatchFilter({
      excludes: [{ '**/node_modules/*/**': true, '**/.venv': true }, { '**/*.log': true, '**/*.js': { when: '$(basename).ts' }, '**/build': false }],
      folders: [root],
    });
    expect(filter.excluded(file('node_modules/pkg/index.js'))).toBe(true);
    expect(filter.excluded(file('sub/.venv/lib/site.py'))).toBe(true);
    expect(filter.excluded(file('out/app.log'))).toBe(true);
    expect(filter.excluded(file('src/app.js'))).toBe(false);
    expect(filter.excluded(file('build/app.o'))).toBe(false);
    expect(filter.excluded(file('src/app.ts'))).toBe(false);
    expect(filter.excluded(path.join(os.tmpdir(), 'elsewhere', '.venv', 'x'))).toBe(false);
  });

  test('git ignore, asked of real git: a burst of 2,000 paths is one check, a second burst none, a changed .gitignore asks again', async () => {
    const counter = { runs: 0 };
    const filter = new WatchFilter({ excludes: [], folders: [root], checkIgnored: gitCheckIgnore(root, counter) });
    const burst = Array.from({ length: 2_000 }, (_, i) => file(i % 2 ? `dist/chunk${i}.js` : `src/module${i}.ts`));
    const answers = await Promise.all(burst.map((p) => filter.skips(p)));
    expect(counter.runs).toBe(1);
    expect(answers.filter(Boolean).length).toBe(1_000);
    expect(answers.every((skip, i) => skip === burst[i].includes(`${path.sep}dist${path.sep}`))).toBe(true);
    expect(await Promise.all([file('a/b.pyc'), file('keep.pyc')].map((p) => filter.skips(p)))).toEqual([true, false]);
    await Promise.all(burst.map((p) => filter.skips(p)));
    expect(counter.runs).toBe(2);
    // The user stops ignoring dist/: the cached answers go.
    await fs.writeFile(file('.gitignore'), '*.pyc\n');
    filter.noteChange(file('.gitignore'));
    expect(await filter.skips(burst[1])).toBe(false);
    expect(counter.runs).toBe(3);
  });

  test('git failing says nothing is ignored, and that answer is not kept', async () => {
    let fail = true;
    const filter = new WatchFilter({ excludes: [], folders: [root], checkIgnored: async (paths) => (fail ? Promise.reject(new Error('git gone')) : new Set(paths)) });
    expect(await filter.skips(file('dist/a.js'))).toBe(false);
    fail = false;
    expect(await filter.skips(file('dist/a.js'))).toBe(true);
  });

  test('git not answering in time: the paths count as not ignored, so the tracker is not held up', async () => {
    const filter = new WatchFilter({ excludes: [], folders: [root], checkIgnored: () => new Promise(() => undefined), timeoutMs: 50 });
    expect(await filter.skips(file('dist/a.js'))).toBe(false);
  });

  test('in the tracker: an ignored or excluded file no call named is neither read nor stored nor listed; one claude named is listed, and followed afterwards; an unignored one is listed', async () => {
    const counter = { runs: 0 };
    const filter = new WatchFilter({ excludes: [{ '**/.venv': true }], folders: [root], checkIgnored: gitCheckIgnore(root, counter) });
    const storeDir = path.join(os.tmpdir(), `nc-watchfilter-store-${process.pid}-${Date.now()}`);
    const fallbacks: string[] = [];
    const t = new ChangeTracker({
      store: new BeforeImageStore(storeDir),
      sessionOf: (id) => (id === 1 ? { id: 'claude-pid-11', label: 'one' } : undefined),
      save: () => undefined,
      fallback: async (p) => {
        fallbacks.push(p);
        return { bytes: Buffer.from('before\n'), source: 'git' };
      },
      skipsUnannounced: (p) => filter.skips(p),
    });
    try {
      await fs.mkdir(file('dist'));
      await fs.mkdir(file('.venv'));
      await fs.writeFile(file('dist/named.js'), 'old\n');
      t.noteCall(1);
      // claude's Bash runs a build: 200 ignored outputs, one excluded file, one unignored file.
      const outputs = Array.from({ length: 200 }, (_, i) => file(`dist/out${i}.js`));
      for (const p of outputs) await fs.writeFile(p, 'built\n');
      await fs.writeFile(file('.venv/site.py'), 'x\n');
      await fs.writeFile(file('app.txt'), 'after\n');
      const changes = await Promise.all([...outputs, file('.venv/site.py'), file('app.txt')].map((p) => t.fileChanged(p)));
      expect(changes.filter(Boolean).map((c) => c!.path)).toEqual([file('app.txt')]);
      expect(fallbacks).toEqual([file('app.txt')]);
      expect(counter.runs).toBe(1);
      // Only app.txt's two images were stored: nothing of the 200 outputs was read.
      expect((await fs.readdir(storeDir)).length).toBe(2);
      // claude names an ignored file (its baseline before an Edit): listed with certainty, and its later changes followed.
      await t.beforeWrite(1, file('dist/named.js'), 'baseline');
      await fs.writeFile(file('dist/named.js'), 'new\n');
      expect(await t.fileChanged(file('dist/named.js'))).toMatchObject({ attribution: 'certain', source: 'baseline' });
      await fs.writeFile(file('dist/named.js'), 'newer\n');
      expect(await t.fileChanged(file('dist/named.js'))).toMatchObject({ path: file('dist/named.js') });
      expect(t.list()[0].files.map((f) => f.path).sort()).toEqual([file('app.txt'), file('dist/named.js')]);
    } finally {
      await fs.rm(storeDir, { recursive: true, force: true });
    }
  });
});
