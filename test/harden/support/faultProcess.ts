// Child processes for the fault tests (run with ts-node, one task per process, argv[2] = JSON):
//  - killedClient: connects to /tools, calls write_file, prints "CALLED" and waits to be killed;
//  - lockedWriter: rewrites the config like claude 2.1 does (proper-lockfile lock, re-read, add a key,
//    temp file + rename), `rounds` times;
//  - inPlaceWriter: rewrites the config in place without any lock (truncate, then write), `rounds`
//    times, and counts every parsable state it finds that lost a key it knows;
//  - configEdit: one ClaudeUserConfig edit, to run it as another user (unwritable file or folder);
//  - renameWriter: rewrites a JSON file the way claude up to 2.1.329 saved settings.json (no lock:
//    read, add a key, temp file beside it, rename), `rounds` times, reporting when it started;
//  - deleteLockSync: LockFile.deleteIfOwnedSync on a lock file (what the exit hook runs), in its own
//    process so that a read blocking forever fails the test by a timeout instead of hanging it.
// Each prints one JSON line with its figures and exits. With `asUid`, the process loads its code as
// the user who started it (root), then becomes that uid for the task itself: the checkout may sit in a
// folder other users cannot enter (a `mktemp -d` parent is 0700), and only the task's files matter.

import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClaudeUserConfig } from '../../../src/cliSetup/claudeUserConfig';
import { AUTH_HEADER } from '../../../src/server/auth';
import { LockFile } from '../../../src/server/lockFile';
import { HeaderWebSocketClientTransport } from '../../support/wsClientTransport';

type Task = (
  | { kind: 'killedClient'; url: string; token: string; path: string }
  | { kind: 'lockedWriter'; file: string; rounds: number; prefix: string }
  | { kind: 'inPlaceWriter'; file: string; rounds: number; keep: string[] }
  | { kind: 'configEdit'; file: string; op: 'set' | 'remove' }
  | { kind: 'renameWriter'; file: string; rounds: number; prefix: string }
  | { kind: 'deleteLockSync'; file: string; port: number; token: string }
) & { asUid?: number };

/**
 * Becomes `uid` (its group too) for the rest of the process; every module is loaded by now. Fails with
 * what to do when that user cannot reach the task's file, rather than with the task's own EACCES.
 */
async function becomeUser(uid: number, file: string): Promise<void> {
  process.setgroups?.([uid]);
  process.setgid?.(uid);
  process.setuid?.(uid);
  const dir = path.dirname(file);
  try {
    await fs.access(dir, fsConstants.X_OK);
  } catch {
    throw new Error(
      `Precondition: uid ${uid} cannot enter ${dir}; the test's temporary folder and its parents must be searchable by others (chmod o+x), or set TMPDIR to such a folder.`,
    );
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(task: Task): Promise<unknown> {
  if (task.asUid !== undefined) await becomeUser(task.asUid, 'file' in task ? task.file : task.path);
  switch (task.kind) {
    case 'killedClient': {
      const client = new Client({ name: 'claude-code', version: 'fault' });
      await client.connect(new HeaderWebSocketClientTransport(task.url, { [AUTH_HEADER]: task.token }));
      void client.callTool({ name: 'write_file', arguments: { path: task.path, content: 'from a killed client\n' } });
      process.stdout.write('CALLED\n');
      await new Promise(() => undefined); // until killed
      return undefined;
    }
    case 'lockedWriter': {
      let written = 0;
      let lockWaits = 0;
      for (let i = 0; i < task.rounds; i++) {
        let release: (() => Promise<void>) | undefined;
        while (!release) {
          try {
            release = await lockfile.lock(task.file, { lockfilePath: `${task.file}.lock`, realpath: false });
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
            lockWaits++;
            await sleep(Math.random() * 5);
          }
        }
        try {
          const config = JSON.parse(await fs.readFile(task.file, 'utf8'));
          config[`${task.prefix}${i}`] = i;
          const target = await fs.realpath(task.file);
          const temp = `${target}.tmp.${process.pid}.${i}`;
          await fs.writeFile(temp, JSON.stringify(config, null, 2));
          await fs.rename(temp, target);
          written++;
        } finally {
          await release();
        }
        if (i % 4 === 0) await sleep(Math.random() * 2);
      }
      return { written, lockWaits };
    }
    case 'inPlaceWriter': {
      // Like a program that saves the file with writeFile (open O_TRUNC, write): a reader can see it empty or half written.
      let rewrites = 0;
      let lostSeen = 0;
      let unparsableSeen = 0;
      for (let i = 0; i < task.rounds; i++) {
        const text = await fs.readFile(task.file, 'utf8');
        let config: Record<string, unknown>;
        try {
          config = JSON.parse(text);
        } catch {
          unparsableSeen++; // only its own half-written state can be seen here; the other side renames atomically
          continue;
        }
        if (task.keep.some((k) => !(k in config))) lostSeen++;
        for (const k of task.keep) config[k] ??= `restored-${k}`;
        config.inPlaceCounter = i;
        const handle = await fs.open(task.file, 'r+');
        await handle.truncate(0);
        const out = JSON.stringify(config, null, 2);
        const half = Math.floor(out.length / 2);
        await handle.write(out.slice(0, half), 0);
        await sleep(Math.random() < 0.2 ? 1 : 0); // stay half written for a moment, sometimes
        await handle.write(out.slice(half), half);
        await handle.close();
        rewrites++;
      }
      return { rewrites, lostSeen, unparsableSeen };
    }
    case 'renameWriter': {
      process.stdout.write('STARTED\n');
      for (let i = 0; i < task.rounds; i++) {
        const config = JSON.parse(await fs.readFile(task.file, 'utf8'));
        config[`${task.prefix}${i}`] = i;
        const temp = `${task.file}.${process.pid}.${i}.tmp`;
        await fs.writeFile(temp, `${JSON.stringify(config, null, 2)}\n`);
        await fs.rename(temp, task.file);
        if (i % 8 === 0) await sleep(Math.random() * 2);
      }
      return { written: task.rounds };
    }
    case 'deleteLockSync':
      return { deleted: new LockFile(task.port, path.dirname(task.file)).deleteIfOwnedSync(task.token) };
    case 'configEdit': {
      const config = new ClaudeUserConfig(task.file, { lockWaitMs: 2000, unreadableGraceMs: 100 });
      try {
        const changed =
          task.op === 'set'
            ? await config.setServer('vscode', { type: 'ws', url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools' })
            : await config.removeServer('vscode');
        return { ok: true, changed };
      } catch (error) {
        return { ok: false, message: (error as Error).message };
      }
    }
  }
}

main(JSON.parse(process.argv[2]) as Task).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  },
);
