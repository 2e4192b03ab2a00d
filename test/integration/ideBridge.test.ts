import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IdeBridge, type IdentityStore, type ServerIdentity } from '../../src/server/ideBridge';
import { createSessionFactory } from '../../src/server/mcpSession';
import { LockFile, lockFileDirectory } from '../../src/server/lockFile';
import { memoryLogger } from '../../src/util/logger';
import { connectClient, waitFor } from '../support/serverFixture';

function memoryIdentity() {
  let saved: ServerIdentity | undefined;
  return { load: () => saved, save: async (v: ServerIdentity) => void (saved = v) };
}

async function tempDir(): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-bridge-')));
}

function makeBridge(lockDirectory: string, identity: IdentityStore = memoryIdentity()) {
  return new IdeBridge({
    ideName: 'Visual Studio Code',
    lockPid: process.pid,
    runningInWindows: false,
    identity,
    lockDirectory,
    log: memoryLogger(),
    createSession: createSessionFactory({ toolsFor: () => [], serverInfo: { name: 'native-claude', version: 't' }, log: memoryLogger() }),
  });
}

describe('lock file location', () => {
  test('honours CLAUDE_CONFIG_DIR and defaults to ~/.claude/ide', () => {
    expect(lockFileDirectory({ CLAUDE_CONFIG_DIR: '/x/cfg' }, '/home/u')).toBe('/x/cfg/ide');
    expect(lockFileDirectory({}, '/home/u')).toBe('/home/u/.claude/ide');
    expect(lockFileDirectory({ CLAUDE_CONFIG_DIR: '  ' }, '/home/u')).toBe('/home/u/.claude/ide');
  });
});

describe('IdeBridge life cycle', () => {
  let root: string;
  let lockDir: string;
  beforeEach(async () => {
    root = await tempDir();
    lockDir = path.join(root, 'config', 'ide');
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  test('writes exactly the fields the CLI reads, with realpath folders, 0600 in a 0700 directory', async () => {
    const real = path.join(root, 'real-project');
    await fs.mkdir(real);
    await fs.symlink(real, path.join(root, 'link'));
    const bridge = makeBridge(lockDir);
    const { port, token } = await bridge.start([path.join(root, 'link')]);
    const file = path.join(lockDir, `${port}.lock`);
    const content = JSON.parse(await fs.readFile(file, 'utf8'));
    expect(content).toEqual({
      pid: process.pid,
      workspaceFolders: [real],
      ideName: 'Visual Studio Code',
      transport: 'ws',
      runningInWindows: false,
      authToken: token,
    });
    expect(token.length).toBeGreaterThanOrEqual(32); // 256 bits base64url = 43 chars
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(lockDir)).mode & 0o777).toBe(0o700);
    expect((await fs.readdir(lockDir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await bridge.stop();
    await expect(fs.access(file)).rejects.toThrow();
  });

  test('rewrites the lock file when workspace folders change', async () => {
    const bridge = makeBridge(lockDir);
    const { port } = await bridge.start([root]);
    const extra = path.join(root, 'second');
    await fs.mkdir(extra);
    await bridge.updateWorkspaceFolders([root, extra]);
    const content = JSON.parse(await fs.readFile(path.join(lockDir, `${port}.lock`), 'utf8'));
    expect(content.workspaceFolders).toEqual([root, extra]);
    await bridge.stop();
  });

  test('never deletes a lock file another window wrote for the same port', async () => {
    const bridge = makeBridge(lockDir);
    const { port } = await bridge.start([root]);
    const other = new LockFile(port, lockDir);
    await other.write({ pid: 1, workspaceFolders: ['/elsewhere'], ideName: 'Other', transport: 'ws', runningInWindows: false, authToken: 'another-window' });
    await bridge.stop();
    expect(JSON.parse(await fs.readFile(other.path, 'utf8')).authToken).toBe('another-window');
  });

  test('a restart keeps the same port and token, so a client reconnects with the same URL and header', async () => {
    const identity = memoryIdentity();
    const first = makeBridge(lockDir, identity);
    const a = await first.start([root]);
    const url = `ws://127.0.0.1:${a.port}`;
    const before = await connectClient(url, { token: a.token, announce: true });
    await waitFor(() => first.status().sessionCount === 1);
    await first.stop(); // extension reload: deactivate…
    const second = makeBridge(lockDir, identity); // …activate again
    const b = await second.start([root]);
    expect(b).toEqual(a);
    const after = await connectClient(url, { token: a.token, announce: true });
    await waitFor(() => second.status().sessionCount === 1);
    expect(second.status()).toMatchObject({ running: true, port: a.port, sessionCount: 1 });
    await after.client.close();
    await before.client.close().catch(() => undefined);
    await second.stop();
  });

  test('the port without its token (secrets not kept on this machine): the same port, a new token; identity() is what runs', async () => {
    const first = makeBridge(lockDir);
    const a = await first.start([root]);
    await first.stop();
    const second = makeBridge(lockDir, { load: async () => ({ port: a.port }), save: async () => undefined });
    const b = await second.start([root]);
    expect(b.port).toBe(a.port);
    expect(b.token).not.toBe(a.token);
    expect(second.identity()).toEqual(b);
    await second.stop();
    expect(second.identity()).toBeUndefined();
  });

  test('an identity that cannot be read gives a new token, and says so', async () => {
    const lines: string[] = [];
    const bridge = new IdeBridge({
      ideName: 'Visual Studio Code',
      lockPid: process.pid,
      runningInWindows: false,
      identity: { load: async () => Promise.reject(new Error('keyring locked')), save: async () => undefined },
      lockDirectory: lockDir,
      log: memoryLogger(lines),
      createSession: createSessionFactory({ toolsFor: () => [], serverInfo: { name: 'native-claude', version: 't' }, log: memoryLogger() }),
    });
    const { token } = await bridge.start([root]);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(lines).toContain('warn Could not read the previous port and token (keyring locked); a new token is made');
    await bridge.stop();
  });

  test('a lock file that cannot be written stops the server and names the file in the error', async () => {
    await fs.writeFile(path.join(root, 'config'), 'a file where the folder should be');
    const bridge = makeBridge(lockDir);
    const failure = await bridge.start([root]).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(new RegExp(`^Could not write the lock file ${lockDir}/\\d+\\.lock: `));
    expect(bridge.status()).toMatchObject({ running: false, connections: 0 });
  });

  test('falls back to a random port when the old one is taken, and reports it', async () => {
    const identity = memoryIdentity();
    const holder = makeBridge(path.join(root, 'other-ide'), identity);
    const held = await holder.start([root]);
    const bridge = makeBridge(lockDir, identity); // same saved identity, port busy
    const mine = await bridge.start([root]);
    expect(mine.port).not.toBe(held.port);
    await bridge.stop();
    await holder.stop();
  });

  // A window closed right after start: VS Code's workspaceState never answers, activation never finishes,
  // and VS Code then skips deactivate (seen in code-server: the lock file was left behind).
  test('start() does not wait for the identity to be saved, and a failed save is only logged', async () => {
    const never = { load: () => undefined, save: () => new Promise<void>(() => undefined) };
    const bridge = makeBridge(lockDir, never);
    let timer: NodeJS.Timeout | undefined;
    const started = await Promise.race([bridge.start([root]), new Promise<undefined>((r) => (timer = setTimeout(r, 5000, undefined)))]);
    clearTimeout(timer);
    expect(started?.port).toEqual(expect.any(Number));
    await bridge.stop();

    const lines: string[] = [];
    const failing = new IdeBridge({
      ideName: 'Visual Studio Code',
      lockPid: process.pid,
      runningInWindows: false,
      identity: { load: () => undefined, save: async () => Promise.reject(new Error('storage gone')) },
      lockDirectory: lockDir,
      log: memoryLogger(lines),
      createSession: createSessionFactory({ toolsFor: () => [], serverInfo: { name: 'native-claude', version: 't' }, log: memoryLogger() }),
    });
    const { port } = await failing.start([root]);
    await waitFor(() => lines.some((l) => l.includes('storage gone')));
    expect(lines.filter((l) => l.includes('storage gone'))).toEqual([`warn Could not remember port ${port} for the next reload: storage gone`]);
    await failing.stop();
  });

  test('a process that exits without stop() still deletes its lock file; after stop() the exit hook is gone', async () => {
    const child = (stopFirst: boolean) =>
      new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
        execFile(
          process.execPath,
          [
            '-r',
            'ts-node/register/transpile-only',
            '-e',
            `const { IdeBridge } = require('./src/server/ideBridge');
             const { memoryLogger } = require('./src/util/logger');
             const bridge = new IdeBridge({ ideName: 'x', lockPid: process.pid, runningInWindows: false,
               identity: { load: () => undefined, save: async () => undefined }, lockDirectory: ${JSON.stringify(lockDir)},
               log: memoryLogger(), createSession: async () => ({ notify: async () => undefined }) });
             bridge.start([]).then(async ({ port }) => {
               console.log(port);
               if (${stopFirst}) { await bridge.stop(); console.log(process.listenerCount('exit')); }
               process.exit(0); // like VS Code's extension host at the end of its 5 s for deactivate
             });`,
          ],
          { cwd: path.resolve(__dirname, '../..'), timeout: 60_000 },
          (error, stdout, stderr) => (error ? reject(Object.assign(error, { stderr })) : resolve({ stdout, stderr })),
        ),
      );
    const { stdout } = await child(false);
    const port = Number(stdout.trim());
    expect(port).toBeGreaterThan(0);
    expect(await fs.readdir(lockDir)).toEqual([]);

    const stopped = await child(true);
    expect(stopped.stdout.trim().split('\n')[1]).toBe('0');
  }, 60_000);
});
