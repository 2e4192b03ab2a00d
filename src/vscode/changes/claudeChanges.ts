import { mkdirSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BeforeImageStore } from '../../changes/beforeImageStore';
import type { FileChange, SessionChanges } from '../../changes/changeLedger';
import { ChangeTracker, type TrackedSession } from '../../changes/changeTracker';
import { insideGitFolder, isControlFile, WatchFilter } from '../../changes/watchFilter';
import { COMMANDS } from '../../host/commandIds';
import type { TextCodec } from '../../host/textCodec';
import type { IdeBridge } from '../../server/ideBridge';
import { resolveInWorkspace } from '../../workspace/workspacePaths';
import type { Logger } from '../../util/logger';
import { DisposableStore } from '../disposables';
import type { WindowSessions } from '../lifecycle/windowSessions';
import { notify } from '../notify';
import { BEFORE_SCHEME, BeforeContentProvider, beforeUri } from './beforeContent';
import { ChangesCommands } from './changesCommands';
import { gitIgnored, gitStagedContent } from './gitRepositories';
import { SavedChangesList } from './savedChangesList';

/** A resource of the Claude source control: one changed file of one session. */
interface ChangeResource extends vscode.SourceControlResourceState {
  readonly sessionId: string;
  readonly filePath: string;
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
  private readonly subscriptions = new DisposableStore();
  private readonly saved: SavedChangesList;
  private readonly commands: ChangesCommands;
  private watchers: vscode.Disposable[] = [];
  /** Paths VS Code itself is saving (the user's saves, the tools route's), with when. */
  private readonly editorSaves = new Map<string, number>();
  private refreshTimer: NodeJS.Timeout | undefined;
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
    /** From scriptedAnswersAllowed (changesCommands.ts); false: a scripted answer is ignored and the question asked. */
    acceptScriptedAnswers = false,
    /** How VS Code decodes each file: a before-image is shown in its file's encoding (absent: UTF-8). */
    codec?: TextCodec,
  ) {
    const root = path.join(storageDir, 'claude-changes');
    mkdirSync(root, { recursive: true, mode: 0o700 });
    this.saved = new SavedChangesList(path.join(root, 'ledger.json'), log);
    const store = new BeforeImageStore(path.join(root, 'before-images'));
    this.tracker = new ChangeTracker({
      store,
      state: this.saved.load(),
      sessionOf: (id) => this.sessionOf(id),
      save: (state) => this.saved.save(state),
      fallback: (filePath) => this.gitFallback(filePath),
      isDirty,
      skipsUnannounced: (filePath) => this.filter.skips(filePath),
      mayKeep: (filePath) => insideWorkspace(filePath),
    });
    this.commands = new ChangesCommands(this.tracker, () => this.refresh(), log, acceptScriptedAnswers);
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
      ...registerBeforeContent(this.tracker, codec),
      this.tracker.onDidChange(() => this.scheduleRefresh()),
      this.tracker.onDidRewriteUndo((sessionId, change) => this.commands.warnRewrite({ sessionId, filePath: change.path }, change.attribution)),
      this.tracker.onDidLoseAnnouncements((session) => void notify.warn(lostAnnouncementsText(session.label))),
      this.tracker.onDidDropOldest(() => void notify.warn(DROPPED_TEXT)),
      vscode.workspace.onWillSaveTextDocument((e) => e.document.uri.scheme === 'file' && this.editorSaves.set(e.document.uri.fsPath, Date.now())),
      ...this.commands.register(),
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
    // A tools-route connection is its owner's (the claude whose verified pid holds its socket); none found: not attributed.
    const claude = this.windowSessions.claudeOf(connectionId);
    if (!claude) return undefined;
    const pid = claude.cliPid;
    const label = this.windowSessions.labels().find((l) => l.id === claude.id);
    const name = label?.terminalName ? `claude in "${label.terminalName}"` : `claude${pid ? ` (pid ${pid})` : ` (connection ${claude.id})`}`;
    return { id: pid ? `claude-pid-${pid}` : `claude-connection-${claude.id}`, label: name, connection: `${claude.id}@${claude.connectedAt?.getTime() ?? 0}` };
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
        const kind = await fs.lstat(file).then(
          (st) => (st.isFile() && st.size <= 1024 * 1024 ? 'read' : 'skip'),
          () => 'absent',
        );
        if (kind !== 'skip') await this.tracker.noteSeen(file).catch(() => undefined);
      }
    }
  }

  private createFilter(): WatchFilter {
    const files = vscode.workspace.getConfiguration('files');
    return new WatchFilter({
      excludes: [usersExcludes(files, 'watcherExclude'), usersExcludes(files, 'exclude')],
      folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      checkIgnored: (paths) => gitIgnored(paths, this.log),
    });
  }

  /** git's staged content of a file no call announced (the committed one when nothing is staged). */
  private async gitFallback(filePath: string): Promise<{ bytes: Uint8Array | undefined; source: 'git' | 'last-known' } | undefined> {
    // A control file that was not in its folder when the watching started: created since.
    if (isControlFile(filePath) && this.controlDirsSeen.has(path.dirname(filePath))) return { bytes: undefined, source: 'last-known' };
    const bytes = await gitStagedContent(filePath);
    return bytes && { bytes, source: 'git' };
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
    const names = stale.map((t) =>
      vscode.workspace.asRelativePath(
        (t.input as vscode.TabInputTextDiff).modified.scheme === 'file'
          ? (t.input as vscode.TabInputTextDiff).modified.fsPath
          : (t.input as vscode.TabInputTextDiff).original.path,
        false,
      ),
    );
    await vscode.window.tabGroups.close(stale, true);
    void notify.info(
      `Claude's changes: closed the diff of ${[...new Set(names)].join(', ')}: that change is no longer listed (kept, undone, or changed since). Open it again from the Source Control view if it is still there.`,
    );
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
      decorations: {
        tooltip: `${again}${what}. ${how}`,
        faded: change.attribution !== 'certain',
        strikeThrough: deleted,
        ...(change.rewroteUndo && { iconPath: new vscode.ThemeIcon('warning') }),
      },
      command: { command: COMMANDS.changesOpen, title: 'Open Change', arguments: [{ sessionId: session.id, filePath: change.path }] },
    };
  }

  dispose(): void {
    this.saved.dispose();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const w of this.watchers) w.dispose();
    for (const group of this.groups.values()) group.dispose();
    this.subscriptions.dispose();
  }
}

/** Told once per window when the store reached its bound on disk (the status bar's tooltip keeps the count). */
const DROPPED_TEXT =
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

/** The before-images' read-only file system, registered for the window. */
function registerBeforeContent(tracker: ChangeTracker, codec: TextCodec | undefined): vscode.Disposable[] {
  const provider = new BeforeContentProvider((blob) => tracker.bytesOf({ blob, size: 0 }), codec);
  return [provider, vscode.workspace.registerFileSystemProvider(BEFORE_SCHEME, provider, { isReadonly: true, isCaseSensitive: true })];
}

const RESTART_HINT = 'To have its edits announced again, exit that claude and run `claude --continue` in its terminal (the conversation is kept).';

/** What the user is told once when a claude reconnected after its first turn (docs/changes.md, "After a reconnect"). */
function lostAnnouncementsText(label: string): string {
  return `Claude's changes: ${label} reconnected to this window, and claude no longer names the files it edits after a reconnect. Its edits are still listed, as not attributed with certainty. ${RESTART_HINT}`;
}
