// Hardening — Claude's changes: `files.exclude` / `files.watcherExclude` leave a change no call announced
// out of the list (a build's output). A repository's own `.vscode/settings.json` can set them too, and
// could then hide whatever claude's shell commands change in it; so only the user's own values (and VS
// Code's defaults) count. The real ClaudeChanges against a stand-in of the `vscode` module; real files.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import * as vscode from 'vscode';
import { ClaudeChanges } from '../../src/vscode/changes/claudeChanges';
import { memoryLogger } from '../../src/util/logger';
import { oneClaude, standIn } from './support/vscodeStandIn';

jest.setTimeout(30_000);

describe("hardening: a workspace's exclude settings cannot hide Claude's changes", () => {
  let root: string;
  let changes: ClaudeChanges | undefined;
  const { bridge, windowSessions } = oneClaude;

  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'nc-harden-excludes-')));
    standIn.reset();
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: { fsPath: root } }];
  });
  afterEach(async () => {
    changes?.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  /** claude (connection #1) calls, then its shell changes src/app.txt twice with no call naming it: is it listed? */
  async function unannouncedChangeListed(): Promise<boolean> {
    changes = new ClaudeChanges(path.join(root, 'storage'), bridge, windowSessions, () => false, memoryLogger([]));
    const file = path.join(root, 'src', 'app.txt');
    await fs.mkdir(path.dirname(file), { recursive: true });
    changes.tracker.noteCall(1);
    await fs.writeFile(file, 'one\n');
    await changes.tracker.fileChanged(file); // first sighting: the content last seen
    await fs.writeFile(file, 'two\n');
    await changes.tracker.fileChanged(file);
    await changes.tracker.settled();
    return changes.sessions().some((s) => s.files.some((f) => f.path === file));
  }

  test.each(['exclude', 'watcherExclude'])('files.%s set by the workspace: the change is still listed', async (key) => {
    standIn.settings[`files.${key}`] = { defaultValue: {}, workspaceValue: { '**/src/**': true } };
    expect(await unannouncedChangeListed()).toBe(true);
  });

  test("the user's own files.exclude still leaves it out (a build's output)", async () => {
    standIn.settings['files.exclude'] = { defaultValue: {}, globalValue: { '**/src/**': true } };
    expect(await unannouncedChangeListed()).toBe(false);
  });

  test('with no exclude at all it is listed (the check above is not vacuous)', async () => {
    expect(await unannouncedChangeListed()).toBe(true);
  });
});
