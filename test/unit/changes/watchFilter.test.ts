import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BeforeImageStore } from '../../../src/changes/beforeImageStore';
import { ChangeTracker } from '../../../src/changes/changeTracker';
import { gitCheckIgnore } from '../../../src/changes/gitCheckIgnore';
import { isControlFile, WatchFilter } from '../../../src/changes/watchFilter';

/** The product's git check (src/changes/gitCheckIgnore.ts) with real git, counting its processes. */
function countedCheckIgnore(repo: string, counter: { runs: number }) {
  return (paths: readonly string[]) => {
    counter.runs++;
    return gitCheckIgnore('git', repo, paths);
  };
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
      excludes: [
        { '**/node_modules/*/**': true, '**/.venv': true },
        { '**/*.log': true, '**/*.js': { when: '$(basename).ts' }, '**/build': false },
      ],
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
    const filter = new WatchFilter({ excludes: [], folders: [root], checkIgnored: countedCheckIgnore(root, counter) });
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
    // So does .git/info/exclude (now watched: a control file).
    await fs.writeFile(file('.git/info/exclude'), 'dist/\n');
    filter.noteChange(file('.git/info/exclude'));
    expect(await filter.skips(burst[1])).toBe(true);
    expect(counter.runs).toBe(4);
  });

  test('git failing: asked again (3 checks), then nothing is ignored on its word, and that answer is not kept', async () => {
    let fail = true;
    let checks = 0;
    const filter = new WatchFilter({
      excludes: [],
      folders: [root],
      checkIgnored: async (paths) => (checks++, fail ? Promise.reject(new Error('git gone')) : new Map(paths.map((p) => [p, true]))),
    });
    expect(await filter.skips(file('dist/a.js'))).toBe(false);
    expect(checks).toBe(3);
    fail = false;
    expect(await filter.skips(file('dist/a.js'))).toBe(true);
  });

  test('git failing once: the second check decides', async () => {
    let checks = 0;
    const filter = new WatchFilter({
      excludes: [],
      folders: [root],
      checkIgnored: async (paths) => (checks++ === 0 ? Promise.reject(new Error('git busy')) : new Map(paths.map((p) => [p, true]))),
    });
    expect(await filter.skips(file('dist/a.js'))).toBe(true);
    expect(checks).toBe(2);
  });

  test('git not answering in time: the paths count as not ignored after 3 checks, so the tracker is not held up for ever', async () => {
    const filter = new WatchFilter({ excludes: [], folders: [root], checkIgnored: () => new Promise(() => undefined), timeoutMs: 50 });
    expect(await filter.skips(file('dist/a.js'))).toBe(false);
  });

  test('a path left out of a slow answer (issue 31, finding 7) is asked again, never taken as not ignored: the whole burst is decided by git', async () => {
    const asked: string[][] = [];
    // A slow git whose answer to the first check lacks its last path, as the git extension's reader did under load.
    const checkIgnored = async (paths: readonly string[]) => {
      const check = asked.push([...paths]);
      await new Promise((r) => setTimeout(r, 40));
      const answers = new Map(paths.map((p) => [p, p.includes(`${path.sep}dist${path.sep}`)]));
      if (check === 1) answers.delete(paths[paths.length - 1]);
      return answers;
    };
    const filter = new WatchFilter({ excludes: [], folders: [root], checkIgnored });
    const burst = Array.from({ length: 20 }, (_, i) => file(`dist/out${i}.js`));
    // Reported in two bursts, the second while the first's check runs.
    const first = burst.slice(0, 4).map((p) => filter.skips(p));
    await new Promise((r) => setTimeout(r, 25));
    const second = burst.slice(4).map((p) => filter.skips(p));
    expect(await Promise.all([...first, ...second])).toEqual(burst.map(() => true));
    // The left-out path went into the next check; a later change of it is answered from the cache, still ignored.
    const leftOut = asked[0][asked[0].length - 1];
    expect(asked.flat().filter((p) => p === leftOut).length).toBe(2);
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(await filter.skips(leftOut)).toBe(true);
    expect(asked.flat().filter((p) => p === leftOut).length).toBe(2);
  });

  test("control files (a .git folder's config, hooks, info/attributes and info/exclude; a .vscode folder's files) are never left alone, whatever excludes them or ignores them", async () => {
    const control = [
      '.git/config',
      '.git/config.worktree',
      '.git/hooks/pre-commit',
      '.git/info/attributes',
      '.git/info/exclude',
      '.git/modules/sub/config',
      '.git/modules/a/b/hooks/post-checkout',
      '.git/worktrees/wt1/config.worktree',
      '.vscode/tasks.json',
      'sub/.vscode/settings.json',
    ];
    const notControl = [
      '.git/objects/ab/cdef',
      '.git/HEAD',
      '.git/refs/heads/main',
      '.git/index',
      '.git/logs/HEAD',
      '.git/hooks/sub/x',
      '.git/modules/sub/objects/x',
      '.vscode',
      'src/a.ts',
    ];
    expect(control.filter((p) => !isControlFile(file(p)))).toEqual([]);
    expect(notControl.filter((p) => isControlFile(file(p)))).toEqual([]);
    const filter = new WatchFilter({
      excludes: [{ '**/.git': true, '**/.vscode': true }],
      folders: [root],
      checkIgnored: async (paths) => new Map(paths.map((p) => [p, true])),
    });
    expect(await Promise.all(control.map((p) => filter.skips(file(p))))).toEqual(control.map(() => false));
    expect(await filter.skips(file('.git/objects/ab/cdef'))).toBe(true);
  });

  test('in the tracker: an ignored or excluded file no call named is neither read nor stored nor listed; one claude named is listed, and followed afterwards; an unignored one is listed', async () => {
    const counter = { runs: 0 };
    const filter = new WatchFilter({ excludes: [{ '**/.venv': true }], folders: [root], checkIgnored: countedCheckIgnore(root, counter) });
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
      expect(
        t
          .list()[0]
          .files.map((f) => f.path)
          .sort(),
      ).toEqual([file('app.txt'), file('dist/named.js')]);
    } finally {
      await fs.rm(storeDir, { recursive: true, force: true });
    }
  });
});
