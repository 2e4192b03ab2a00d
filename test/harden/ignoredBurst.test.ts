// Hardening — Claude's changes under load (issue 31, finding 7): a build's gitignored output written while
// claude works must not be listed, whatever order git's answer and its process's exit arrive in. Under a
// loaded machine the git extension's Repository.checkIgnore (which takes git's output when the process
// exits) left the last path of a batch out; that path then counted as "not ignored", was read, and its next
// change was listed (`dist/out3.js` in a cold CI run of test/real/vscode-changes.test.ts). Here git's last
// record arrives after its exit every time (test/support/lateOutputGit.ts), so the race is not left to load.
// The real ClaudeChanges against a stand-in of the `vscode` module whose git extension answers as the real one.

import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import * as vscode from 'vscode';
import { ClaudeChanges } from '../../src/vscode/changes/claudeChanges';
import { memoryLogger } from '../../src/util/logger';
import { checkIgnoreAtExit, lateOutputGit } from '../support/lateOutputGit';
import { oneClaude, standIn } from './support/vscodeStandIn';

jest.setTimeout(60_000);

/** The git extension's checkIgnore as it behaves: its answer is what git printed by the time the process exited. */
describe("hardening: a build's gitignored output is never listed, whatever order git's output and exit come in", () => {
  let root: string;
  let changes: ClaudeChanges | undefined;
  const { bridge, windowSessions } = oneClaude;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-ignored-')));
    standIn.reset();
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: { fsPath: root } }];
    execFileSync('git', ['init', '-q'], { cwd: root });
    await fs.writeFile(path.join(root, '.gitignore'), 'dist/\n');
  });
  afterEach(async () => {
    changes?.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  test('20 outputs written while claude works, then changed by its sed: none listed, while the unignored file is', async () => {
    const git = await lateOutputGit(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-git-')));
    const repository = {
      rootUri: { fsPath: root },
      checkIgnore: (paths: string[]) => checkIgnoreAtExit(git, root, paths),
      buffer: async () => Promise.reject(new Error('not in git')),
    };
    standIn.gitExtension = { getAPI: () => ({ git: { path: git }, getRepository: () => repository }) };
    changes = new ClaudeChanges(path.join(root, '..', `${path.basename(root)}-storage`), bridge, windowSessions, () => false, memoryLogger([]));
    const dist = Array.from({ length: 20 }, (_, i) => path.join(root, 'dist', `out${i}.js`));
    const app = path.join(root, 'app.txt');
    await fs.mkdir(path.join(root, 'dist'));
    changes.tracker.noteCall(1);
    // A build writes its output while claude works (first sighting: the content last seen)…
    for (const f of [...dist, app]) await fs.writeFile(f, '// e2 built\n');
    await Promise.all([...dist, app].map((f) => changes!.tracker.fileChanged(f)));
    // …then claude's sed changes each.
    for (const f of [...dist, app]) await fs.writeFile(f, '// E2 built\n');
    await Promise.all([...dist, app].map((f) => changes!.tracker.fileChanged(f)));
    await changes.tracker.settled();
    expect(changes.sessions().flatMap((s) => s.files.map((f) => path.relative(root, f.path)))).toEqual(['app.txt']);
    await fs.rm(path.dirname(git), { recursive: true, force: true });
  });
});
