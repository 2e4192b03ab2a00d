import { execFileSync } from 'child_process';
import * as fsSync from 'fs';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import {
  isForbiddenListingRoot,
  resolveInWorkspace,
  workspaceFolderViews,
  workspaceResolver,
  WorkspacePathError,
  type WorkspacePathErrorCode,
} from '../../../src/workspace/workspacePaths';

// Layout (base is a fresh temp dir, realpath'd so macOS's /var → /private/var does not matter):
//   base/ws/src/a.ts
//   base/ws/src/Mixed.ts
//   base/ws/link-out      -> base/outside           (folder link escaping the workspace)
//   base/ws/file-out      -> base/outside/secret.txt
//   base/ws/link-in       -> base/ws/src            (link staying inside)
//   base/ws/dangling      -> base/outside/not-yet   (dangling link escaping)
//   base/ws/dangling-in   -> base/ws/src/new-dir    (dangling link staying inside)
//   base/ws/loop-a <-> base/ws/loop-b
//   base/ws/ws2-name/x.ts (a subfolder named like the second folder)
//   base/ws2/b.ts
//   base/ws-link          -> base/ws                (the workspace folder opened through a link)
//   base/outside/secret.txt
let base: string;
let ws: string;
let ws2: string;
let outside: string;

beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-paths-')));
  ws = path.join(base, 'ws');
  ws2 = path.join(base, 'ws2');
  outside = path.join(base, 'outside');
  await fs.mkdir(path.join(ws, 'src'), { recursive: true });
  await fs.mkdir(path.join(ws, 'ws2-name'), { recursive: true });
  await fs.mkdir(ws2, { recursive: true });
  await fs.mkdir(outside, { recursive: true });
  await fs.writeFile(path.join(ws, 'src', 'a.ts'), 'a');
  await fs.writeFile(path.join(ws, 'src', 'Mixed.ts'), 'm');
  await fs.writeFile(path.join(ws, 'ws2-name', 'x.ts'), 'x');
  await fs.writeFile(path.join(ws2, 'b.ts'), 'b');
  await fs.writeFile(path.join(outside, 'secret.txt'), 'secret');
  await fs.symlink(outside, path.join(ws, 'link-out'), 'dir');
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(ws, 'file-out'), 'file');
  await fs.symlink(path.join(ws, 'src'), path.join(ws, 'link-in'), 'dir');
  await fs.symlink(path.join(outside, 'not-yet'), path.join(ws, 'dangling'));
  await fs.symlink('src/new-dir', path.join(ws, 'dangling-in')); // relative target
  await fs.symlink(path.join(ws, 'loop-b'), path.join(ws, 'loop-a'));
  await fs.symlink(path.join(ws, 'loop-a'), path.join(ws, 'loop-b'));
  await fs.symlink(ws, path.join(base, 'ws-link'), 'dir');
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function errorOf(promise: Promise<unknown>): Promise<WorkspacePathError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(WorkspacePathError);
    return err as WorkspacePathError;
  }
  throw new Error('expected a WorkspacePathError');
}

async function expectCode(promise: Promise<unknown>, code: WorkspacePathErrorCode): Promise<WorkspacePathError> {
  const err = await errorOf(promise);
  expect(err.code).toBe(code);
  return err;
}

describe('resolveInWorkspace: inside the workspace', () => {
  it('resolves a relative path against the folder', async () => {
    const r = await resolveInWorkspace('src/a.ts', [ws]);
    expect(r).toEqual({
      absolute: path.join(ws, 'src', 'a.ts'),
      realPath: path.join(ws, 'src', 'a.ts'),
      folder: ws,
      relative: 'src/a.ts',
      exists: true,
    });
  });

  it('normalises ./ and .. that stay inside', async () => {
    expect((await resolveInWorkspace('./src/../src/./a.ts', [ws])).relative).toBe('src/a.ts');
  });

  it('accepts an absolute path inside and the folder itself', async () => {
    expect((await resolveInWorkspace(path.join(ws, 'src', 'a.ts'), [ws])).relative).toBe('src/a.ts');
    const root = await resolveInWorkspace(ws, [ws]);
    expect(root.relative).toBe('');
    expect((await resolveInWorkspace('.', [ws])).realPath).toBe(ws);
  });

  it('accepts a file:// URI', async () => {
    const uri = pathToFileURL(path.join(ws, 'src', 'a.ts')).href;
    expect((await resolveInWorkspace(uri, [ws])).relative).toBe('src/a.ts');
  });

  it('follows a link that stays inside and reports the real path', async () => {
    const r = await resolveInWorkspace('link-in/a.ts', [ws]);
    expect(r.absolute).toBe(path.join(ws, 'link-in', 'a.ts'));
    expect(r.realPath).toBe(path.join(ws, 'src', 'a.ts'));
    expect(r.relative).toBe('src/a.ts');
  });

  it('allows a new file, in new folders, with forward slashes in relative', async () => {
    const r = await resolveInWorkspace(path.join('src', 'new', 'deep', 'file.ts'), [ws]);
    expect(r).toMatchObject({ exists: false, folder: ws, relative: 'src/new/deep/file.ts' });
    expect(r.realPath).toBe(path.join(ws, 'src', 'new', 'deep', 'file.ts'));
  });

  it('allows a new file through a dangling link whose target is inside', async () => {
    const r = await resolveInWorkspace('dangling-in/n.ts', [ws]);
    expect(r).toMatchObject({ exists: false, relative: 'src/new-dir/n.ts', realPath: path.join(ws, 'src', 'new-dir', 'n.ts') });
  });

  it('realpaths the workspace folder itself (folder opened through a link)', async () => {
    const linked = path.join(base, 'ws-link');
    const viaReal = await resolveInWorkspace(path.join(ws, 'src', 'a.ts'), [linked]);
    expect(viaReal).toMatchObject({ folder: linked, relative: 'src/a.ts', realPath: path.join(ws, 'src', 'a.ts') });
    const viaRelative = await resolveInWorkspace('src/a.ts', [linked]);
    expect(viaRelative.absolute).toBe(path.join(linked, 'src', 'a.ts'));
    expect(viaRelative.realPath).toBe(path.join(ws, 'src', 'a.ts'));
  });

  it('checks existence with mustExist', async () => {
    expect((await resolveInWorkspace('src/a.ts', [ws], { mustExist: true })).exists).toBe(true);
    const err = await expectCode(resolveInWorkspace('src/nope.ts', [ws], { mustExist: true }), 'NOT_FOUND');
    expect(err.message).toContain('"src/nope.ts" was not found');
    expect(err.message).toContain(ws);
  });
});

describe('resolveInWorkspace: outside the workspace', () => {
  it('refuses .. escapes, naming the allowed folders', async () => {
    const err = await expectCode(resolveInWorkspace('../outside/secret.txt', [ws]), 'OUTSIDE_WORKSPACE');
    expect(err.message).toContain('outside the workspace');
    expect(err.message).toContain(ws);
    await expectCode(resolveInWorkspace('src/../../outside/new.txt', [ws]), 'OUTSIDE_WORKSPACE');
    await expectCode(resolveInWorkspace('..', [ws]), 'OUTSIDE_WORKSPACE');
  });

  it('refuses absolute paths outside, including a sibling whose name extends the folder name', async () => {
    await expectCode(resolveInWorkspace(path.join(outside, 'secret.txt'), [ws]), 'OUTSIDE_WORKSPACE');
    await expectCode(resolveInWorkspace(path.join(ws2, 'b.ts'), [ws]), 'OUTSIDE_WORKSPACE'); // "ws2" starts with "ws"
    await expectCode(resolveInWorkspace('/', [ws]), 'OUTSIDE_WORKSPACE');
  });

  it('refuses a link inside the workspace that points outside (folder and file links)', async () => {
    const err = await expectCode(resolveInWorkspace('link-out/secret.txt', [ws]), 'OUTSIDE_WORKSPACE');
    expect(err.message).toContain('through a symbolic link');
    expect(err.message).toContain(path.join(outside, 'secret.txt'));
    await expectCode(resolveInWorkspace('link-out', [ws]), 'OUTSIDE_WORKSPACE');
    await expectCode(resolveInWorkspace('file-out', [ws]), 'OUTSIDE_WORKSPACE');
    await expectCode(resolveInWorkspace(path.join(ws, 'file-out'), [ws], { mustExist: true }), 'OUTSIDE_WORKSPACE');
  });

  it('refuses a new file under a linked folder that points outside', async () => {
    await expectCode(resolveInWorkspace('link-out/new-file.txt', [ws]), 'OUTSIDE_WORKSPACE');
    await expectCode(resolveInWorkspace('link-out/new/dir/file.txt', [ws]), 'OUTSIDE_WORKSPACE');
  });

  it('refuses writing through a dangling link that points outside', async () => {
    await expectCode(resolveInWorkspace('dangling', [ws]), 'OUTSIDE_WORKSPACE');
    await expectCode(resolveInWorkspace('dangling/sub/new.txt', [ws]), 'OUTSIDE_WORKSPACE');
  });

  it('refuses a link loop with a clear error', async () => {
    const err = await expectCode(resolveInWorkspace('loop-a/x.ts', [ws]), 'INVALID_PATH');
    expect(err.message).toContain('loop of symbolic links');
  });

  it('treats ~ as the home folder, not as a folder named "~"', async () => {
    // ~/.ssh is outside the workspace wherever the temp folder is (inside home too); a folder named
    // "~" inside the workspace would be inside.
    await expectCode(resolveInWorkspace('~/.ssh/id_rsa', [ws]), 'OUTSIDE_WORKSPACE');
  });

  it('puts the outside check before the not-found check', async () => {
    await expectCode(resolveInWorkspace('../outside/missing.txt', [ws], { mustExist: true }), 'OUTSIDE_WORKSPACE');
  });
});

describe('resolveInWorkspace: bad input', () => {
  it('fails with no workspace folder', async () => {
    const err = await expectCode(resolveInWorkspace('a.ts', []), 'NO_WORKSPACE');
    expect(err.message).toContain('No workspace folder open');
  });

  it('rejects empty and NUL paths', async () => {
    await expectCode(resolveInWorkspace('', [ws]), 'INVALID_PATH');
    await expectCode(resolveInWorkspace('   ', [ws]), 'INVALID_PATH');
    await expectCode(resolveInWorkspace('a\0b', [ws]), 'INVALID_PATH');
  });
});

describe('resolveInWorkspace: multi-root', () => {
  it('resolves "folderName/sub/file" against the named folder', async () => {
    const r = await resolveInWorkspace('ws2/b.ts', [ws, ws2]);
    expect(r).toMatchObject({ folder: ws2, relative: 'b.ts', exists: true });
    expect((await resolveInWorkspace('ws2', [ws, ws2])).realPath).toBe(ws2);
  });

  it('uses the display name when folders are given with one', async () => {
    const folders = [
      { path: ws, name: 'Main' },
      { path: ws2, name: 'Other' },
    ];
    expect(await resolveInWorkspace('Other/b.ts', folders)).toMatchObject({ folder: ws2, relative: 'b.ts' });
  });

  it('finds an existing relative path in whichever folder has it', async () => {
    expect(await resolveInWorkspace('b.ts', [ws, ws2])).toMatchObject({ folder: ws2, exists: true });
    expect(await resolveInWorkspace('src/a.ts', [ws, ws2])).toMatchObject({ folder: ws, exists: true });
  });

  it('puts a new file in the named folder, else in the first folder', async () => {
    expect(await resolveInWorkspace('ws2/new.ts', [ws, ws2])).toMatchObject({ folder: ws2, relative: 'new.ts', exists: false });
    expect(await resolveInWorkspace('new.ts', [ws, ws2])).toMatchObject({ folder: ws, relative: 'new.ts', exists: false });
  });

  it('does not treat the folder name as a prefix with a single folder', async () => {
    expect(await resolveInWorkspace('ws/x.ts', [ws])).toMatchObject({ relative: 'ws/x.ts' });
  });

  it('accepts .. into another workspace folder', async () => {
    expect(await resolveInWorkspace('../ws2/b.ts', [ws, ws2])).toMatchObject({ folder: ws2, relative: 'b.ts' });
  });

  it('resolves "folderName/../x" from the named folder, never from another folder', async () => {
    // ws2/../x.ts is the folder above ws2: outside, even though ws/x.ts could be created.
    const err = await expectCode(resolveInWorkspace('ws2/../x.ts', [ws, ws2]), 'OUTSIDE_WORKSPACE');
    expect(err.message).toContain(path.join(path.dirname(ws2), 'x.ts'));
    await expectCode(resolveInWorkspace('ws2/../src/a.ts', [ws, ws2]), 'OUTSIDE_WORKSPACE');
    // Leaving the named folder into another workspace folder is inside the workspace.
    expect(await resolveInWorkspace(`ws2/../${path.basename(ws)}/src/a.ts`, [ws, ws2])).toMatchObject({ folder: ws, relative: 'src/a.ts', exists: true });
  });

  it('picks the innermost folder when folders nest', async () => {
    const inner = path.join(ws, 'src');
    expect(await resolveInWorkspace(path.join(inner, 'a.ts'), [ws, inner])).toMatchObject({ folder: inner, relative: 'a.ts' });
  });

  it('a link in the first folder leading outside is refused, not replaced by a new file of that name in the second', async () => {
    for (const p of ['link-out', 'link-out/secret.txt', 'link-out/sub/new.txt', 'file-out', 'dangling']) {
      const err = await expectCode(resolveInWorkspace(p, [ws, ws2]), 'OUTSIDE_WORKSPACE');
      expect(err.message).toContain('through a symbolic link');
    }
    await expectCode(resolveInWorkspace('../outside/secret.txt', [ws, ws2]), 'OUTSIDE_WORKSPACE');
  });

  it("takes the folders' candidates in order, though all are looked up at once: a later one's failure counts only when the earlier did not resolve inside", async () => {
    // twin.ts: a file in ws, a link to itself in ws2 (resolving it fails).
    await fs.writeFile(path.join(ws, 'twin.ts'), 't');
    await fs.symlink(path.join(ws2, 'twin.ts'), path.join(ws2, 'twin.ts'));
    try {
      expect(await resolveInWorkspace('twin.ts', [ws, ws2])).toMatchObject({ folder: ws, relative: 'twin.ts', exists: true });
      const err = await expectCode(resolveInWorkspace('twin.ts', [ws2, ws]), 'INVALID_PATH');
      expect(err.message).toContain('loop of symbolic links');
    } finally {
      await fs.rm(path.join(ws, 'twin.ts'));
      await fs.rm(path.join(ws2, 'twin.ts'));
    }
  });

  it("refuses a bad path before the folders' real paths are in, leaving no failure of theirs unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // A folder whose real path cannot be found (a link loop) and an empty path: the path's error.
      await expectCode(workspaceResolver([path.join(ws, 'loop-a')])(''), 'INVALID_PATH');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('names every folder when refusing', async () => {
    const err = await expectCode(resolveInWorkspace(path.join(outside, 'secret.txt'), [ws, ws2]), 'OUTSIDE_WORKSPACE');
    expect(err.message).toContain(`${ws}, ${ws2}`);
  });
});

describe('folder views (how paths are shown) from the resolving lookup', () => {
  it('names a folder opened through a link by both its paths, and a folder whose real path cannot be found by the path given', async () => {
    const wsLink = path.join(base, 'ws-link');
    const loop = path.join(ws, 'loop-a');
    expect(await workspaceFolderViews([wsLink, ws2, loop])).toEqual([
      { paths: [wsLink, ws], name: 'ws-link' },
      { paths: [ws2], name: 'ws2' },
      { paths: [loop], name: 'loop-a' },
    ]);
    expect(await workspaceFolderViews([])).toEqual([]);
  });

  it("a resolver's views and its paths take the folders' real paths from one lookup", async () => {
    const realpath = jest.spyOn(fs, 'realpath');
    try {
      const wsLink = path.join(base, 'ws-link');
      const resolver = workspaceResolver([wsLink]);
      const [views, resolved] = await Promise.all([resolver.folderViews(), resolver('src/a.ts')]);
      expect(views).toEqual([{ paths: [wsLink, ws], name: 'ws-link' }]);
      expect(resolved.realPath).toBe(path.join(ws, 'src', 'a.ts'));
      // One for the folder, one for the path: the views asked nothing more.
      expect(realpath.mock.calls.map(([p]) => p).sort()).toEqual([wsLink, path.join(wsLink, 'src', 'a.ts')]);
    } finally {
      realpath.mockRestore();
    }
  });
});

describe("a resolver's existingFile: many files' checks, each folder looked up once", () => {
  it('decides exactly as the resolver with mustExist, for files, links in and out, folders, pipes, missing and odd paths', async () => {
    const fifo = path.join(ws, 'src', 'pipe');
    if (!fsSync.existsSync(fifo)) execFileSync('mkfifo', [fifo]);
    const paths = [
      path.join(ws, 'src', 'a.ts'),
      path.join(ws, 'src'),
      ws,
      fifo,
      path.join(ws, 'file-out'),
      path.join(ws, 'link-out', 'secret.txt'),
      path.join(ws, 'link-in', 'a.ts'),
      path.join(ws, 'link-in'),
      path.join(ws, 'dangling'),
      path.join(ws, 'dangling-in'),
      path.join(ws, 'loop-a'),
      path.join(ws, 'loop-a', 'x'),
      path.join(ws, 'src', 'missing.ts'),
      path.join(ws, 'src', '..', 'src', 'a.ts'),
      path.join(ws, 'link-out', '..', 'ws', 'src', 'a.ts'),
      path.join(outside, 'secret.txt'),
      path.join(base, 'ws-link', 'src', 'a.ts'),
      path.join(ws2, 'b.ts'),
      '/',
    ];
    for (const folders of [[ws], [ws, ws2], [path.join(base, 'ws-link')]]) {
      const resolver = workspaceResolver(folders);
      for (const p of paths) {
        const expected = await resolveInWorkspace(p, folders, { mustExist: true }).then(
          (r) => r.realPath,
          () => undefined,
        );
        const found = await resolver.existingFile(p);
        expect([folders, p, found?.realPath]).toEqual([folders, p, expected]);
        if (found) {
          const stat = await fs.stat(found.realPath, { bigint: true });
          expect([p, found.stat.ino, found.stat.dev]).toEqual([p, stat.ino, stat.dev]);
        }
      }
      expect(await resolver.existingFile('src/a.ts')).toBeUndefined(); // relative: not a location's path
      expect(await resolver.existingFile(`${ws}/src/a.ts\0`)).toBeUndefined();
    }
  });

  it("looks each folder's real path up once and each file's entry with one lstat (no realpath of the files)", async () => {
    const realpath = jest.spyOn(fs, 'realpath');
    const lstat = jest.spyOn(fs, 'lstat');
    try {
      const resolver = workspaceResolver([ws]);
      const files = [path.join(ws, 'src', 'a.ts'), path.join(ws, 'src', 'Mixed.ts'), path.join(ws, 'ws2-name', 'x.ts')];
      const found = await Promise.all(files.map((f) => resolver.existingFile(f)));
      expect(found.map((f) => f?.realPath)).toEqual(files);
      expect(realpath.mock.calls.map(([p]) => p).sort()).toEqual([ws, path.join(ws, 'src'), path.join(ws, 'ws2-name')]);
      expect(lstat.mock.calls.map(([p]) => p).sort()).toEqual([...files].sort());
    } finally {
      realpath.mockRestore();
      lstat.mockRestore();
    }
  });

  it('a file swapped for a link leading outside between two resolvers is outside for the second (nothing is kept across calls)', async () => {
    const file = path.join(ws, 'src', 'swapped.ts');
    await fs.writeFile(file, 'inside');
    try {
      expect((await workspaceResolver([ws]).existingFile(file))?.realPath).toBe(file);
      await fs.rm(file);
      await fs.symlink(path.join(outside, 'secret.txt'), file);
      expect(await workspaceResolver([ws]).existingFile(file)).toBeUndefined();
    } finally {
      await fs.rm(file, { force: true });
    }
  });
});

/** Whether the temp folder's disk tells `a` from `A` (decided before the tests, so a test is skipped, not passed, where it cannot tell). */
const caseSensitiveTemp = ((): boolean => {
  const probe = fsSync.mkdtempSync(path.join(os.tmpdir(), 'nc-case-'));
  try {
    return !fsSync.existsSync(probe.toUpperCase());
  } finally {
    fsSync.rmSync(probe, { recursive: true, force: true });
  }
})();

describe('resolveInWorkspace: case sensitivity', () => {
  const upper = (): string => path.join(base.toUpperCase(), 'WS', 'SRC', 'MIXED.TS');

  (caseSensitiveTemp ? it : it.skip)('compares case-insensitively for win32', async () => {
    const r = await resolveInWorkspace(upper(), [ws], { platform: 'win32' });
    expect(r.folder).toBe(ws);
    expect(r.relative).toBe('SRC/MIXED.TS');
    expect(
      (await resolveInWorkspace('WS2/b.ts', [ws, ws2], { platform: 'win32' })).folder, // folder-name prefix too
    ).toBe(ws2);
  });

  (caseSensitiveTemp ? it : it.skip)('compares case-sensitively elsewhere', async () => {
    await expectCode(resolveInWorkspace(upper(), [ws], { platform: 'linux' }), 'OUTSIDE_WORKSPACE');
  });
});

describe('isForbiddenListingRoot', () => {
  const home = ['/home/bob'];

  it('refuses POSIX roots', () => {
    expect(isForbiddenListingRoot('/', { platform: 'linux', homeDirs: home })).toBe(true);
    expect(isForbiddenListingRoot('//', { platform: 'linux', homeDirs: home })).toBe(true);
    expect(isForbiddenListingRoot('/usr/..', { platform: 'linux', homeDirs: home })).toBe(true);
  });

  it('refuses the home folder, with or without trailing slash', () => {
    expect(isForbiddenListingRoot('/home/bob', { platform: 'linux', homeDirs: home })).toBe(true);
    expect(isForbiddenListingRoot('/home/bob/', { platform: 'linux', homeDirs: home })).toBe(true);
    expect(isForbiddenListingRoot('/home/bob/project', { platform: 'linux', homeDirs: home })).toBe(false);
    expect(isForbiddenListingRoot('/home', { platform: 'linux', homeDirs: home })).toBe(false);
    expect(isForbiddenListingRoot('/home/BOB', { platform: 'linux', homeDirs: home })).toBe(false);
  });

  it('refuses Windows drive and UNC roots and the home folder, ignoring case', () => {
    const opts = { platform: 'win32' as const, homeDirs: ['C:\\Users\\Bob'] };
    expect(isForbiddenListingRoot('C:\\', opts)).toBe(true);
    expect(isForbiddenListingRoot('d:/', opts)).toBe(true);
    expect(isForbiddenListingRoot('\\\\server\\share\\', opts)).toBe(true);
    expect(isForbiddenListingRoot('c:\\users\\bob\\', opts)).toBe(true);
    expect(isForbiddenListingRoot('C:\\Users\\Bob\\src', opts)).toBe(false);
    expect(isForbiddenListingRoot('C:\\Users', opts)).toBe(false);
  });

  it('uses the real home folder by default', () => {
    expect(isForbiddenListingRoot(os.homedir())).toBe(true);
    expect(isForbiddenListingRoot(path.join(os.homedir(), 'some-project'))).toBe(false);
  });
});
