import { mkdirSync, promises as fs, readFileSync, renameSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BeforeImageStore } from '../../changes/beforeImageStore';
import type { FileChange, LedgerState, SessionChanges } from '../../changes/changeLedger';
import { ChangeTracker, type Confirm, type HunkSelector, type TrackedSession } from '../../changes/changeTracker';
import { gitCheckIgnore } from '../../changes/gitCheckIgnore';
import { insideGitFolder, isControlFile, WatchFilter } from '../../changes/watchFilter';
import type { TextCodec } from '../../host/textCodec';
import type { IdeBridge } from '../../server/ideBridge';
import { pidTrusted } from '../../server/peerProcess';
import { MAX_TEXT_FILE_BYTES } from '../../workspace/readTextIfExists';
import { resolveInWorkspace } from '../../workspace/workspacePaths';
import type { Logger } from '../../util/logger';
import type { WindowSessions } from '../lifecycle/windowSessions';
import { notify } from '../notify';

/** The before-images' scheme: `claude-before:<file path>?<blob id | absent>`, read-only. */
export const BEFORE_SCHEME = 'claude-before';

/** A resource of the Claude source control: one changed file of one session. */
interface ChangeResource extends vscode.SourceControlResourceState {
  readonly sessionId: string;
  readonly filePath: string;
}

/** A file as the commands name it: a resource of the view, or (scripts, tests) its session and path. */
type FileTarget = { sessionId: string; filePath: string };

/** Options a script may pass to the commands instead of answering the question (tests). */
interface ScriptedAnswer {
  answer?: 'undo' | 'cancel';
}

/** Set in the extension host's environment by the real-VS Code test harness only (see {@link scriptedAnswersAllowed}). */
export const SCRIPTED_ANSWERS_VARIABLE = 'NATIVE_CLAUDE_TEST_SCRIPTED_ANSWERS';

/**
 * Whether the commands may take a scripted answer instead of asking "Undo anyway?": only under the
 * extension test runner. Otherwise any other extension, or a command link, could skip the question and
 * overwrite the user's later edits. The real-VS Code tests run the installed .vsix (Production mode, a
 * window running extension tests refuses every dialog), so they set {@link SCRIPTED_ANSWERS_VARIABLE}
 * when they start VS Code; it is read once at activation, and no command, link or setting can set it.
 */
export function scriptedAnswersAllowed(mode: vscode.ExtensionMode, env: Record<string, string | undefined>): boolean {
  return mode === vscode.ExtensionMode.Test || env[SCRIPTED_ANSWERS_VARIABLE] === '1';
}

/**
 * Claude's changes in VS Code: a "Claude" source control with one group per claude session (named by
 * its terminal) listing each file the session changed; a click opens before-Claude ↔ now; the gutter
 * marks the hunks (quick diff), each kept or undone from the peek; Keep/Undo per file and per session;
 * a status bar count. Before-images come from the ChangeTracker (src/changes), fed here by a file
 * watcher while a session is connected; the list and the blobs live in the extension's storage.
 */
export class ClaudeChanges implements vscode.Disposable {
  readonly tracker: ChangeTracker;
  private readonly sourceControl: vscode.SourceControl;
  private readonly groups = new Map<string, vscode.SourceControlResourceGroup>();
  private readonly statusItem: vscode.StatusBarItem;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Never fired: a before-image's URI names its content (a blob id), which never changes. */
  private readonly beforeChanged = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  private watchers: vscode.Disposable[] = [];
  /** Paths VS Code itself is saving (the user's saves, the tools route's), with when. */
  private readonly editorSaves = new Map<string, number>();
  private readonly stateFile: string;
  private saveTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private pendingState: LedgerState | undefined;
  /** The before-image last served (its URI and its bytes as given to VS Code). */
  private lastBefore: { key: string; at: number; bytes: Promise<Uint8Array> } | undefined;
  /** The reading of the control files when the watching started (noteControlFiles). */
  private controlFilesNoted: Promise<void> = Promise.resolve();
  /** The control files' folders read when the watching started (noteControlFiles). */
  private readonly controlDirsSeen = new Set<string>();
  /** Changes no call announced that are left alone: excluded by the settings or ignored by git. */
  private filter: WatchFilter = this.createFilter();

  constructor(
    storageDir: string,
    private readonly bridge: IdeBridge,
    private readonly windowSessions: WindowSessions,
    private readonly isDirty: (filePath: string) => boolean,
    private readonly log: Logger,
    /** From {@link scriptedAnswersAllowed}; false: a scripted answer is ignored and the question asked. */
    private readonly acceptScriptedAnswers = false,
    /** How VS Code decodes each file: a before-image is shown in its file's encoding (absent: UTF-8). */
    private readonly codec?: TextCodec,
  ) {
    const root = path.join(storageDir, 'claude-changes');
    mkdirSync(root, { recursive: true, mode: 0o700 });
    this.stateFile = path.join(root, 'ledger.json');
    const store = new BeforeImageStore(path.join(root, 'before-images'));
    this.tracker = new ChangeTracker({
      store,
      state: this.loadState(),
      sessionOf: (id) => this.sessionOf(id),
      save: (state) => this.scheduleSave(state),
      fallback: (filePath) => this.gitFallback(filePath),
      isDirty,
      skipsUnannounced: (filePath) => this.filter.skips(filePath),
      mayKeep: (filePath) => insideWorkspace(filePath),
    });
    // Blobs no entry needs (an entry kept or undone before a crash): swept once, before any capture.
    void this.tracker.sweep().catch((error: Error) => log.warn(`Claude's changes: ${error.message}`));
    // Diffs restored by a reload: each is shown again when its change is still listed, else closed with a word.
    void this.closeStaleDiffs().catch((error: Error) => log.warn(`Claude's changes: ${error.message}`));

    this.sourceControl = vscode.scm.createSourceControl('claude', "Claude's changes", vscode.workspace.workspaceFolders?.[0]?.uri);
    this.sourceControl.inputBox.visible = false;
    this.sourceControl.quickDiffProvider = {
      provideOriginalResource: (uri) => this.originalOf(uri),
    };
    this.statusItem = vscode.window.createStatusBarItem('nativeClaude.changes', vscode.StatusBarAlignment.Right, 98);
    this.statusItem.name = "Claude's changes";
    this.statusItem.command = 'workbench.view.scm';

    this.subscriptions.push(
      this.sourceControl,
      this.statusItem,
      this.beforeChanged,
      // A read-only file system, not a text document content provider: VS Code resolves a content
      // provider's document again when it is asked for while its last reference is being let go, and
      // then refuses the second model ("ModelService: Cannot add model because it already exists!"),
      // for good: after a hunk undo from the quick diff's peek, and after a reload, a click on the listed
      // file opened nothing (issue 31, finding 6). Its documents are files of VS Code's file service, and
      // `onFileSystem:claude-before` activates the extension for the editors a reload restores.
      vscode.workspace.registerFileSystemProvider(BEFORE_SCHEME, this.beforeImages(), { isReadonly: true, isCaseSensitive: true }),
      this.tracker.onDidChange(() => this.scheduleRefresh()),
      this.tracker.onDidRewriteUndo((sessionId, change) => this.warnRewrite({ sessionId, filePath: change.path }, change.attribution)),
      this.tracker.onDidLoseAnnouncements((session) => void notify.warn(lostAnnouncementsText(session.label))),
      this.tracker.onDidDropOldest(() => void notify.warn(DROPPED_TEXT)),
      vscode.workspace.onWillSaveTextDocument((e) => e.document.uri.scheme === 'file' && this.editorSaves.set(e.document.uri.fsPath, Date.now())),
      ...this.registerCommands(),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('files.exclude') || e.affectsConfiguration('files.watcherExclude')) this.filter = this.createFilter();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => (this.filter = this.createFilter())),
    );
    const follow = () => {
      this.followSessions();
      this.scheduleRefresh();
    };
    bridge.on('change', follow);
    this.subscriptions.push({ dispose: () => bridge.off('change', follow) });
    this.subscriptions.push(windowSessions.sessionTerminals.onDidChangeTargets(follow));
    follow();
  }

  /** The list as the API reports it (tests, other extensions). */
  sessions(): readonly SessionChanges[] {
    return this.tracker.list();
  }

  /** Waits until every capture and change seen so far was handled and the list shown (tests). */
  async settled(): Promise<void> {
    await this.controlFilesNoted;
    await this.tracker.settled();
    this.refresh();
  }

  /** Which claude a connection belongs to: its pid (stable across a reconnect and a window reload), named by its terminal. */
  private sessionOf(connectionId: number): TrackedSession | undefined {
    const connections = this.bridge.ideServer?.connections() ?? [];
    const connection = connections.find((c) => c.id === connectionId);
    if (!connection) return undefined;
    if (connection.route === 'tools') {
      // The claude whose verified pid holds this socket (IdeServer.ownerOf); none found: not attributed.
      const owner = this.bridge.ideServer?.ownerOf(connection);
      return owner ? this.sessionOf(owner.id) : undefined;
    }
    if (connection.cliPid === undefined) return undefined;
    const pid = connection.cliPid && pidTrusted(connection.pidCheck) ? connection.cliPid : undefined;
    const label = this.windowSessions.labels().find((l) => l.id === connectionId);
    const name = label?.terminalName ? `claude in "${label.terminalName}"` : `claude${pid ? ` (pid ${pid})` : ` (connection ${connectionId})`}`;
    return { id: pid ? `claude-pid-${pid}` : `claude-connection-${connectionId}`, label: name, connection: `${connectionId}@${connection.connectedAt.getTime()}` };
  }

  /** Watches the workspace while a claude is connected; names each listed session after its terminal. */
  private followSessions(): void {
    const connected = this.bridge.status().sessionCount > 0;
    if (connected && this.watchers.length === 0) this.watch();
    else if (!connected && this.watchers.length) {
      for (const w of this.watchers) w.dispose();
      this.watchers = [];
    }
    for (const c of this.bridge.ideServer?.sessionConnections() ?? []) {
      const session = this.sessionOf(c.id);
      if (session) this.tracker.sessionConnected(session);
    }
  }

  private watch(): void {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const seen = (uri: vscode.Uri) => {
      if (uri.scheme !== 'file') return;
      const filePath = uri.fsPath;
      // git's own bookkeeping (objects, refs, index) is not claude's change; its control files are.
      if (insideGitFolder(filePath) && !isControlFile(filePath)) return;
      this.filter.noteChange(filePath);
      const saved = this.editorSaves.get(filePath);
      const byEditor = saved !== undefined && Date.now() - saved < 3000;
      if (saved !== undefined && !byEditor) this.editorSaves.delete(filePath);
      this.tracker.fileChanged(filePath, { byEditor }).catch((error: Error) => this.log.debug(`Claude's changes: ${filePath}: ${error.message}`));
    };
    this.watchers = [watcher, watcher.onDidChange(seen), watcher.onDidCreate(seen), watcher.onDidDelete(seen)];
    this.controlFilesNoted = this.noteControlFiles().catch((error: Error) => this.log.debug(`Claude's changes: control files: ${error.message}`));
  }

  /**
   * The control files of each workspace folder (`.git`'s config, hooks, info/attributes and info/exclude,
   * the `.vscode` folder's files; watchFilter.isControlFile) as they are when the watching starts: no
   * call names them, and an untracked file has no git content to compare with, so without this their
   * first change by claude's shell would not be listed. A file of these folders that was not there then is
   * compared with nothing (created). Bounded: 200 files of at most 1 MiB per folder.
   */
  private async noteControlFiles(): Promise<void> {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const root = folder.uri.fsPath;
      const git = path.join(root, '.git');
      const files = ['config', 'config.worktree', path.join('info', 'attributes'), path.join('info', 'exclude')].map((f) => path.join(git, f));
      const dirs = [path.join(git, 'hooks'), path.join(root, '.vscode')];
      for (const dir of dirs) {
        const names = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
        files.push(...names.filter((d) => d.isFile()).map((d) => path.join(dir, d.name)));
        this.controlDirsSeen.add(dir);
      }
      let count = 0;
      for (const file of files) {
        if (++count > 200) break;
        // A regular file (not a link: it could lead to /proc or a device) of at most 1 MiB, or none.
        const kind = await fs.lstat(file).then((st) => (st.isFile() && st.size <= 1024 * 1024 ? 'read' : 'skip'), () => 'absent');
        if (kind !== 'skip') await this.tracker.noteSeen(file).catch(() => undefined);
      }
    }
  }

  private createFilter(): WatchFilter {
    const files = vscode.workspace.getConfiguration('files');
    return new WatchFilter({
      excludes: [usersExcludes(files, 'watcherExclude'), usersExcludes(files, 'exclude')],
      folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      checkIgnored: (paths) => this.gitIgnored(paths),
    });
  }

  /**
   * git's answer for each path: one `git check-ignore` per repository (gitCheckIgnore, with the git the
   * git extension uses), read to its end. Not the git extension's `Repository.checkIgnore`: it resolves
   * when the process exits, before its last output may be read, and under load left paths out, which
   * then counted as not ignored (issue 31, finding 7). A path in no repository the git extension knows
   * (it may not have opened it yet) is asked in its workspace folder, where git finds the repository itself.
   */
  private async gitIgnored(paths: readonly string[]): Promise<ReadonlyMap<string, boolean>> {
    const api = await gitApi();
    const answers = new Map<string, boolean>();
    const byRoot = new Map<string, string[]>();
    for (const filePath of paths) {
      const root = api?.getRepository(vscode.Uri.file(filePath))?.rootUri.fsPath ?? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(filePath))?.uri.fsPath;
      // No git extension, or a path outside every repository and folder: nothing ignores it.
      if (!api || !root) answers.set(filePath, false);
      else byRoot.set(root, [...(byRoot.get(root) ?? []), filePath]);
    }
    // A repository whose check failed leaves its paths unanswered (WatchFilter asks again).
    await Promise.all([...byRoot].map(([root, list]) => gitCheckIgnore(api!.git.path, root, list).then((got) => got.forEach((v, k) => answers.set(k, v)), (error: Error) => this.log.debug(`Claude's changes: git check-ignore in ${root}: ${error.message}`))));
    return answers;
  }

  /** git's staged content of a file no call announced (the committed one when nothing is staged). */
  private async gitFallback(filePath: string): Promise<{ bytes: Uint8Array | undefined; source: 'git' | 'last-known' } | undefined> {
    // A control file that was not in its folder when the watching started: created since.
    if (isControlFile(filePath) && this.controlDirsSeen.has(path.dirname(filePath))) return { bytes: undefined, source: 'last-known' };
    const repository = (await gitApi())?.getRepository(vscode.Uri.file(filePath));
    if (!repository) return undefined;
    try {
      // Ref '' is the index (git show :path): what the user staged, else what HEAD has. Bounded as every
      // read for the watcher: a blob over the cap (a large file committed) is not loaded, so not listed.
      if ((await repository.getObjectDetails('', filePath)).size > MAX_TEXT_FILE_BYTES) return undefined;
      return { bytes: await repository.buffer('', filePath), source: 'git' };
    } catch {
      return undefined; // not in git: nothing to compare with, so not listed
    }
  }

  /** The quick diff's original of a file claude changed (also what Ask Claude About This Change compares with). */
  originalOf(uri: vscode.Uri): vscode.Uri | undefined {
    return this.changeOf(uri)?.original;
  }

  /** The file's content before claude and whether claude certainly changed it (the hand-off's words). */
  changeOf(uri: vscode.Uri): { original: vscode.Uri; certain: boolean } | undefined {
    if (uri.scheme !== 'file') return undefined;
    for (const session of this.tracker.list()) {
      const change = session.files.find((f) => f.path === uri.fsPath);
      if (change) return { original: beforeUri(change), certain: change.attribution === 'certain' };
    }
    return undefined;
  }

  /** The before-images as read-only files: `claude-before:<file path>?<blob id | absent>`. */
  private beforeImages(): vscode.FileSystemProvider {
    const readOnly = () => {
      throw vscode.FileSystemError.NoPermissions("Claude's changes: the content before Claude's change is read-only");
    };
    return {
      onDidChangeFile: this.beforeChanged.event,
      // Content-addressed: what a URI names never changes.
      watch: () => new vscode.Disposable(() => undefined),
      stat: async (uri) => ({ type: vscode.FileType.File, ctime: 0, mtime: 0, size: (await this.beforeBytes(uri)).byteLength, permissions: vscode.FilePermission.Readonly }),
      readFile: (uri) => this.beforeBytes(uri),
      readDirectory: () => [],
      createDirectory: readOnly,
      writeFile: readOnly,
      delete: readOnly,
      rename: readOnly,
    };
  }

  /**
   * A before-image as the editor is to show it: decoded in its file's own encoding (an open editor's, else
   * the settings' and its byte order mark, as VS Code decodes the file: `TextCodec`), given to VS Code as
   * UTF-8 behind a byte order mark, which VS Code takes over any configured encoding and leaves out of
   * the text. So the quick diff compares the same characters on both sides (a Latin-1 file decoded as
   * UTF-8 showed every line with an accented letter as changed, and its hunks could not be undone).
   */
  private async beforeBytes(uri: vscode.Uri): Promise<Uint8Array> {
    // VS Code asks for the size (stat), then the content: decoded once for both (and again later: the
    // file's encoding may have changed).
    const key = uri.toString();
    if (this.lastBefore?.key !== key || Date.now() - this.lastBefore.at > 2_000) this.lastBefore = { key, at: Date.now(), bytes: this.decodedBefore(uri) };
    const pending = this.lastBefore;
    return pending.bytes.catch((error: Error) => {
      if (this.lastBefore === pending) this.lastBefore = undefined;
      throw error;
    });
  }

  private async decodedBefore(uri: vscode.Uri): Promise<Uint8Array> {
    let bytes: Buffer;
    try {
      bytes = uri.query === 'absent' ? Buffer.alloc(0) : await this.tracker.bytesOf({ blob: uri.query, size: 0 });
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return Buffer.concat([UTF8_BOM, Buffer.from(await beforeText(bytes, vscode.Uri.from({ scheme: 'file', path: uri.path }).fsPath, this.codec), 'utf8')]);
  }

  /**
   * The diffs of Claude's changes a reload restored: one whose before-image is no longer listed (kept,
   * undone, or changed since) is closed, and the user told which; the others are shown as they were.
   */
  private async closeStaleDiffs(): Promise<void> {
    const listed = new Set(this.tracker.list().flatMap((s) => s.files.map((f) => beforeUri(f).toString())));
    const stale = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.scheme === BEFORE_SCHEME && !listed.has(t.input.original.toString()));
    if (!stale.length) return;
    const names = stale.map((t) => vscode.workspace.asRelativePath((t.input as vscode.TabInputTextDiff).modified.scheme === 'file' ? (t.input as vscode.TabInputTextDiff).modified.fsPath : (t.input as vscode.TabInputTextDiff).original.path, false));
    await vscode.window.tabGroups.close(stale, true);
    void notify.info(`Claude's changes: closed the diff of ${[...new Set(names)].join(', ')}: that change is no longer listed (kept, undone, or changed since). Open it again from the Source Control view if it is still there.`);
  }

  private scheduleRefresh(): void {
    this.refreshTimer ??= setTimeout(() => {
      this.refreshTimer = undefined;
      this.refresh();
    }, 50);
  }

  private refresh(): void {
    const sessions = this.tracker.list();
    const dropped = this.tracker.ledger.droppedNote();
    let total = 0;
    for (const session of sessions) {
      let group = this.groups.get(session.id);
      if (!group) {
        group = this.sourceControl.createResourceGroup(session.id, session.label);
        group.hideWhenEmpty = true;
        this.groups.set(session.id, group);
      }
      group.label = session.unannouncedSince === undefined ? session.label : `${session.label} · reconnected: edits unannounced, restart it`;
      group.resourceStates = session.files.map((f) => this.resourceOf(session, f));
      total += session.files.length;
    }
    for (const [id, group] of this.groups) {
      if (!sessions.some((s) => s.id === id)) {
        group.dispose();
        this.groups.delete(id);
      }
    }
    this.sourceControl.count = total;
    const note = dropped ? `\n${dropped.files} older change${dropped.files === 1 ? ' was' : 's were'} dropped to stay within the storage bound.` : '';
    if (total > 0 || dropped) {
      this.statusItem.text = `$(diff-multiple) ${total}`;
      this.statusItem.tooltip = `Claude's changes: ${total} file${total === 1 ? '' : 's'} to look at (Source Control view)${note}`;
      this.statusItem.show();
    } else this.statusItem.hide();
  }

  private resourceOf(session: SessionChanges, change: FileChange): ChangeResource {
    const resourceUri = vscode.Uri.file(change.path);
    const created = !('blob' in change.before);
    const deleted = change.claudeLeft !== undefined && !('blob' in change.claudeLeft);
    const how =
      change.attribution !== 'certain' && session.unannouncedSince !== undefined && change.changedAt >= session.unannouncedSince
        ? `Not attributed with certainty: ${session.label} reconnected at ${new Date(session.unannouncedSince).toLocaleTimeString()}, and since then claude no longer names the files it is about to edit; "before" is ${SOURCE_TEXT[change.source]}. ${RESTART_HINT}`
        : change.attribution === 'certain'
        ? `${session.label} changed this file (the content before it was taken when claude named the file: ${SOURCE_TEXT[change.source]}).`
        : `Not attributed with certainty: the file changed while ${session.label} was working, with no call naming it (claude's Bash, a formatter, or another program); "before" is ${SOURCE_TEXT[change.source]}.`;
    const what = created ? 'Created' : deleted ? 'Deleted' : 'Modified';
    const again = change.rewroteUndo ? `${REWROTE_TEXT} ` : '';
    return {
      sessionId: session.id,
      filePath: change.path,
      resourceUri,
      contextValue: change.rewroteUndo ? `${change.attribution} rewroteUndo` : change.attribution,
      decorations: { tooltip: `${again}${what}. ${how}`, faded: change.attribution !== 'certain', strikeThrough: deleted, ...(change.rewroteUndo && { iconPath: new vscode.ThemeIcon('warning') }) },
      command: { command: 'nativeClaude.changes.open', title: 'Open Change', arguments: [{ sessionId: session.id, filePath: change.path }] },
    };
  }

  private registerCommands(): vscode.Disposable[] {
    // Each handler states the arguments VS Code hands it (a resource state, a selection, a target).
    const run = (name: string, work: (...args: never[]) => Promise<unknown>) =>
      vscode.commands.registerCommand(name, async (...args: unknown[]) => {
        try {
          return await work(...(args as never[]));
        } catch (error) {
          void notify.error(`Claude's changes: ${(error as Error).message}`);
          return undefined;
        } finally {
          this.refresh();
        }
      });
    return [
      run('nativeClaude.changes.open', async (target: FileTarget) => {
        const change = this.find(target);
        const name = path.basename(change.path);
        const now = vscode.Uri.file(change.path);
        const left = beforeUri(change);
        const deleted = change.claudeLeft !== undefined && !('blob' in change.claudeLeft);
        // The row's tooltip (why it is faded) is not shown in every VS Code (code-server: aria-label only): the title says it too.
        const title = change.attribution === 'certain' ? `${name} (before Claude ↔ now)` : `${name} (before Claude ↔ now · not attributed with certainty)`;
        await vscode.commands.executeCommand('vscode.diff', left, deleted ? beforeUri({ ...change, before: { absent: true } }) : now, title);
      }),
      run('nativeClaude.changes.keepFile', async (...targets: unknown[]) => {
        for (const t of fileTargets(targets)) await this.tracker.keepFile(t.sessionId, t.filePath);
      }),
      run('nativeClaude.changes.undoFile', async (...targets: unknown[]) => {
        const scripted = targets.find(isScripted);
        const undone: boolean[] = [];
        for (const t of fileTargets(targets)) undone.push(await this.undoWhole(t, this.confirmer(scripted)));
        return undone;
      }),
      run('nativeClaude.changes.keepAll', async (group?: { id: string } | string) => {
        const id = typeof group === 'string' ? group : group?.id;
        for (const f of this.tracker.list().find((s) => s.id === id)?.files ?? []) await this.tracker.keepFile(id!, f.path);
      }),
      run('nativeClaude.changes.undoAll', async (group?: { id: string } | string, scripted?: ScriptedAnswer) => {
        const id = typeof group === 'string' ? group : group?.id;
        const undone: boolean[] = [];
        for (const f of [...(this.tracker.list().find((s) => s.id === id)?.files ?? [])]) undone.push(await this.undoWhole({ sessionId: id!, filePath: f.path }, this.confirmer(scripted)));
        return undone;
      }),
      run('nativeClaude.changes.undoHunk', async (uri: vscode.Uri, changes: LineChange[], index: number, scripted?: ScriptedAnswer) => {
        const { target, at } = this.hunkTarget(uri, changes, index);
        return this.tracker.undoHunk(target.sessionId, target.filePath, at, this.confirmer(scripted));
      }),
      run('nativeClaude.changes.keepHunk', async (uri: vscode.Uri, changes: LineChange[], index: number) => {
        const { target, at } = this.hunkTarget(uri, changes, index);
        await this.tracker.keepHunk(target.sessionId, target.filePath, at);
        return true;
      }),
      run('nativeClaude.changes.undoAgain', async (...targets: unknown[]) => {
        const scripted = targets.find(isScripted);
        const undone: boolean[] = [];
        for (const t of fileTargets(targets)) undone.push(await this.tracker.undoAgain(t.sessionId, t.filePath, this.confirmer(scripted)));
        return undone;
      }),
      run('nativeClaude.changes.redo', async () => {
        const filePath = await this.tracker.redo();
        if (!filePath) void notify.info("Claude's changes: no undo to take back.");
        return filePath;
      }),
    ];
  }

  /** The question "undo anyway?" as a modal dialog; a scripted answer only where {@link scriptedAnswersAllowed}. */
  private confirmer(scripted?: ScriptedAnswer): Confirm {
    if (scripted?.answer && this.acceptScriptedAnswers) return async () => scripted.answer === 'undo';
    if (scripted?.answer) this.log.warn(`Claude's changes: a command was called with a scripted answer ("${String(scripted.answer).slice(0, 20)}"); it is ignored outside the extension's tests, and the user is asked.`);
    return async (question) => (await vscode.window.showWarningMessage(question, { modal: true }, 'Undo Anyway')) === 'Undo Anyway';
  }

  private async undoWhole(target: FileTarget, confirm: Confirm): Promise<boolean> {
    const done = await this.tracker.undoFile(target.sessionId, target.filePath, confirm);
    if (done) {
      const choice = notify.info(`Undid Claude's change to ${vscode.workspace.asRelativePath(target.filePath, false)}.`, "Redo Claude's change");
      void choice.then((c) => c && vscode.commands.executeCommand('nativeClaude.changes.redo'));
    }
    return done;
  }

  /** Claude wrote a file again after the user undid its change: said at once, with the way back. */
  private warnRewrite(target: FileTarget, attribution: FileChange['attribution']): void {
    const name = vscode.workspace.asRelativePath(target.filePath, false);
    const who = attribution === 'certain' ? 'Claude' : 'Claude (not attributed with certainty: its Bash, or another program)';
    const choice = notify.warn(`${who} wrote ${name} again after you undid its change.`, 'Show Change', 'Undo Again');
    void choice.then((c) => {
      if (c === 'Show Change') return vscode.commands.executeCommand('nativeClaude.changes.open', target);
      if (c === 'Undo Again') return vscode.commands.executeCommand('nativeClaude.changes.undoAgain', target);
      return undefined;
    });
  }

  /** The session listing `uri` and the hunk the quick diff's change number `index` covers. */
  private hunkTarget(uri: vscode.Uri, changes: LineChange[], index: number): { target: FileTarget; at: HunkSelector } {
    const filePath = uri.fsPath;
    const session = this.tracker.list().find((s) => s.files.some((f) => f.path === filePath));
    if (!session) throw new Error(`${filePath} is not in the list of Claude's changes.`);
    const change = changes?.[index];
    if (!change) throw new Error('no change at that place: look at the file again.');
    return { target: { sessionId: session.id, filePath }, at: { startLine: change.modifiedStartLineNumber, endLine: change.modifiedEndLineNumber } };
  }

  private find(target: FileTarget): FileChange {
    const change = this.tracker.list().find((s) => s.id === target.sessionId)?.files.find((f) => f.path === target.filePath);
    if (!change) throw new Error(`${target.filePath} is no longer in the list.`);
    return change;
  }

  private loadState(): LedgerState | undefined {
    try {
      const state = JSON.parse(readFileSync(this.stateFile, 'utf8')) as LedgerState;
      return state?.version === 1 && Array.isArray(state.sessions) ? state : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      // Kept aside, not overwritten: the list can be recovered by hand.
      const aside = `${this.stateFile}.damaged-${Date.now()}`;
      try {
        renameSync(this.stateFile, aside);
      } catch {
        // nothing to keep
      }
      this.log.warn(`Claude's changes: the saved list could not be read (${(error as Error).message}); it was moved to ${aside} and the list starts empty.`);
      return undefined;
    }
  }

  private scheduleSave(state: LedgerState): void {
    this.pendingState = state;
    this.saveTimer ??= setTimeout(() => void this.flush(), 200);
  }

  private async flush(): Promise<void> {
    this.saveTimer = undefined;
    const state = this.pendingState;
    this.pendingState = undefined;
    if (!state) return;
    const temp = `${this.stateFile}.${process.pid}.tmp`;
    try {
      await fs.writeFile(temp, JSON.stringify(state), { mode: 0o600 });
      await fs.rename(temp, this.stateFile);
    } catch (error) {
      this.log.warn(`Claude's changes: the list could not be saved: ${(error as Error).message}`);
    }
  }

  dispose(): void {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      void this.flush();
    }
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const w of this.watchers) w.dispose();
    for (const group of this.groups.values()) group.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}

/** Told once per window when the store reached its bound on disk (the status bar's tooltip keeps the count). */
export const DROPPED_TEXT =
  "Claude's changes: the contents kept from before Claude's changes reached their bound (256 MiB, 5,000 files): the oldest were dropped, so the oldest changes are no longer listed. Keep or undo listed changes to make room.";

const REWROTE_TEXT = 'Claude wrote this again after you undid it ("Undo Again" restores what your undo left).';

const SOURCE_TEXT: Record<FileChange['source'], string> = {
  baseline: "claude's getDiagnostics call just before its write",
  openDiff: "claude's review (openDiff)",
  'tools-route': "the tools route's write",
  git: "git's staged content (else the last commit's)",
  'last-known': 'the content VS Code last knew',
};

/**
 * The user's own value of a `files.*` exclude setting, else VS Code's default. A workspace's or folder's
 * value is not used: a repository's `.vscode/settings.json` could otherwise hide from Claude's changes
 * whatever claude's shell commands change in it (docs/security.md).
 */
function usersExcludes(files: vscode.WorkspaceConfiguration, key: 'watcherExclude' | 'exclude'): Record<string, unknown> {
  const inspected = files.inspect<Record<string, unknown>>(key);
  return inspected?.globalValue ?? inspected?.defaultValue ?? {};
}

/** Inside a workspace folder once links are resolved: the only files whose content Claude's changes keep (docs/security.md). */
async function insideWorkspace(filePath: string): Promise<boolean> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  return resolveInWorkspace(filePath, folders).then(
    () => true,
    () => false,
  );
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * A before-image's text in its file's encoding, without a byte order mark (the editor shows none).
 * Bytes the editor would take for binary, or no codec: UTF-8.
 */
async function beforeText(bytes: Uint8Array, filePath: string, codec: TextCodec | undefined): Promise<string> {
  let text: string | undefined;
  if (codec) text = await codec.readText(bytes, filePath).catch(() => undefined);
  text ??= new TextDecoder('utf-8').decode(bytes);
  return text.startsWith('\ufeff') ? text.slice(1) : text;
}

/** The before-image of a change as a read-only document. */
function beforeUri(change: Pick<FileChange, 'path' | 'before'>): vscode.Uri {
  return vscode.Uri.from({ scheme: BEFORE_SCHEME, path: vscode.Uri.file(change.path).path, query: 'blob' in change.before ? change.before.blob : 'absent' });
}

function isScripted(value: unknown): value is ScriptedAnswer {
  return typeof value === 'object' && value !== null && 'answer' in value;
}

/** Resource states from the view (one, or the selection as an array), or {sessionId, filePath} objects. */
function fileTargets(args: unknown[]): FileTarget[] {
  const flat: unknown[] = args.flat();
  return flat.filter((a): a is FileTarget => typeof a === 'object' && a !== null && typeof (a as FileTarget).sessionId === 'string' && typeof (a as FileTarget).filePath === 'string');
}

/** A change as VS Code's quick diff passes it to `scm/change/title` commands (1-based lines; end 0: none). */
interface LineChange {
  originalStartLineNumber: number;
  originalEndLineNumber: number;
  modifiedStartLineNumber: number;
  modifiedEndLineNumber: number;
}

/** The part of the git extension's API (`vscode.git`, getAPI(1), its git.d.ts) used here. */
interface GitExtension {
  getAPI(version: 1): { readonly git: { readonly path: string }; getRepository(uri: vscode.Uri): GitRepository | null };
}
interface GitRepository {
  readonly rootUri: vscode.Uri;
  /** For ref '' the index's entry (`git ls-files`, then `git cat-file -s`). */
  getObjectDetails(treeish: string, path: string): Promise<{ mode: string; object: string; size: number }>;
  buffer(ref: string, path: string): Promise<Uint8Array>;
}

async function gitApi(): Promise<ReturnType<GitExtension['getAPI']> | undefined> {
  const git = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!git) return undefined;
  return (git.isActive ? git.exports : await git.activate()).getAPI(1);
}

const RESTART_HINT = 'To have its edits announced again, exit that claude and run `claude --continue` in its terminal (the conversation is kept).';

/** What the user is told once when a claude reconnected after its first turn (docs/changes.md, "After a reconnect"). */
export function lostAnnouncementsText(label: string): string {
  return `Claude's changes: ${label} reconnected to this window, and claude no longer names the files it edits after a reconnect. Its edits are still listed, as not attributed with certainty. ${RESTART_HINT}`;
}
