import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ReviewDecision, ReviewHost, ReviewRequest } from '../../host/review';
import { ReviewRegistry } from '../../review/reviewRegistry';
import { acceptedText } from '../../review/acceptedText';
import { conflictsLeft } from '../../review/threeWayMerge';
import { stripBom } from '../../workspace/textFormat';
import { MemoryFileSystem, ORIGINAL_SCHEME, PROPOSAL_SCHEME } from './proposalFileSystem';
import { notify } from '../notify';
import type { ReviewPlacement } from '../settings';
import { registerReviewConflictLenses } from './reviewConflictLenses';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';
import { DisposableStore } from '../disposables';

interface ReviewSides {
  original: vscode.Uri;
  proposal: vscode.Uri;
  request: ReviewRequest;
  /** Set once its tab has been seen open; until then a closed tab elsewhere says nothing about it. */
  shown: boolean;
}

/** Context key set while the active editor is one of our review diffs (for keybindings and buttons). */
const ACTIVE_CONTEXT_KEY = 'nativeClaude.reviewActive';

/** A pending review as the status bar and its quick pick show it. */
export interface PendingReviewInfo {
  id: string;
  filePath: string;
  title: string;
  connectionId: number;
  /** Its tab is open (false for a background review not opened yet, or one whose tab was moved away). */
  shown: boolean;
}

export interface DiffReviewOptions {
  placement?: () => ReviewPlacement;
  /** After an accept the file stays open in a normal tab rather than a preview (`nativeClaude.keepAcceptedFileOpen`). */
  keepAcceptedFileOpen?: () => boolean;
  /** The accepted file was shown (on purpose: a check tab that showed it is the user's now). */
  onRevealed?: (filePath: string) => void;
  /** How the file is named in messages (VS Code: relative to the workspace). */
  describePath?: (filePath: string) => string;
}

/**
 * Shows proposals in VS Code's diff editor and turns the user's answer into a ReviewDecision.
 * Accept: the title-bar button, the keybinding, or saving the right side by hand (Ctrl+S).
 * Reject: the button, the keybinding, closing the tab, or the window closing.
 * Auto-save never accepts: it only saves into the in-memory proposal.
 */
export class DiffReviewHost implements ReviewHost, vscode.Disposable {
  private readonly registry = new ReviewRegistry<ReviewSides>();
  private readonly proposals = new MemoryFileSystem();
  private readonly originals = new MemoryFileSystem();
  private readonly disposables = new DisposableStore();
  /** Save reasons seen in onWillSave, consumed by onDidSave; keyed by uri.toString() (trap 7). */
  private readonly saveReasons = new Map<string, vscode.TextDocumentSaveReason>();
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly started = Date.now();
  private stopping = false;
  /** Fires when a review starts or ends (for the pending-reviews status item). */
  readonly onDidChangePending = this.changed.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly options: DiffReviewOptions = {},
  ) {
    this.disposables.push(
      this.changed,
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, this.proposals, { isCaseSensitive: true }),
      vscode.workspace.registerFileSystemProvider(ORIGINAL_SCHEME, this.originals, { isCaseSensitive: true, isReadonly: true }),
      registerCommand(COMMANDS.acceptReview, (uri?: vscode.Uri) => this.decideFromUi(uri, 'accept'), "Could not accept Claude's proposal"),
      registerCommand(COMMANDS.rejectReview, (uri?: vscode.Uri) => this.decideFromUi(uri, 'reject'), "Could not reject Claude's proposal"),
      registerReviewConflictLenses(log),
      vscode.workspace.onWillSaveTextDocument((e) => {
        if (e.document.uri.scheme === PROPOSAL_SCHEME) this.saveReasons.set(e.document.uri.toString(), e.reason);
      }),
      vscode.workspace.onDidSaveTextDocument((document) => this.onSaved(document)),
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        if (e.closed.length) this.onTabsClosed();
        // A tab of an ended review opened again (Reopen Closed Editor); right after start, maybe one
        // still arriving from the window's restore.
        if (e.opened.length) this.closeOrphans(e.opened, Date.now() - this.started < 10_000 ? 'interrupted' : 'ended');
        this.updateContextKey();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContextKey()),
    );
    // Review tabs of an earlier extension host: VS Code restores them after a reload or when the window
    // reopens, and keeps them through an extension-host restart, but their text lived in its memory.
    this.closeOrphans(
      vscode.window.tabGroups.all.flatMap((group) => group.tabs),
      'interrupted',
    );
  }

  async review(request: ReviewRequest): Promise<ReviewDecision> {
    const id = randomBytes(6).toString('hex');
    const name = path.basename(request.filePath) || 'file';
    const proposal = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${id}/${name}` });
    const original = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/${id}/${name}` });
    // A merge with the user's unsaved edits is shown beside their buffer: the diff is Claude's change only.
    this.originals.set(original, stripBom(request.merged?.unsavedText ?? request.originalText ?? ''));
    this.proposals.set(proposal, stripBom(request.proposedText));
    const sides: ReviewSides = { original, proposal, request, shown: false };
    const pending = this.registry.add(id, request.title, request.connectionId, sides);
    const placement = this.options.placement?.() ?? 'active';
    this.log.info(`Review opened (${placement}): ${request.title} (${request.filePath}${request.originalText === undefined ? ', new file' : ''})`);
    this.changed.fire();
    try {
      if (placement === 'background') this.announce(id);
      else await this.show(id, placement === 'beside' ? besideColumn() : vscode.ViewColumn.Active, true);
    } catch (error) {
      if (this.registry.settle(id, { kind: 'rejected', reason: 'user' })) this.forget(original, proposal);
      this.changed.fire();
      throw new Error(`Could not open the review diff: ${(error as Error).message}`, { cause: error });
    }
    const decision = await pending.decision;
    this.log.info(`Review ${request.title}: ${decision.kind}${'reason' in decision ? ` (${decision.reason})` : ''}`);
    return decision;
  }

  async closeByTitle(title: string, connectionId?: number): Promise<boolean> {
    const matches = this.registry.byTitle(title, connectionId);
    for (const review of matches) await this.finish(review.id, { kind: 'withdrawn', reason: 'close-tab' });
    return matches.length > 0;
  }

  async closeAll(connectionId?: number): Promise<number> {
    const reviews = connectionId === undefined ? this.registry.all() : this.registry.byConnection(connectionId);
    for (const review of reviews) await this.finish(review.id, { kind: 'withdrawn', reason: 'close-tab' });
    // Also close stale tabs of ours that no pending review owns (e.g. left from an earlier session);
    // another session's pending reviews keep theirs.
    const owned = new Set(this.registry.all().map((r) => r.extra.proposal.toString()));
    const stale = this.ourTabs().filter((tab) => !owned.has(proposalOf(tab)!.toString()));
    if (stale.length) await vscode.window.tabGroups.close(stale);
    return reviews.length + stale.length;
  }

  /** The reviews waiting for a decision, oldest first. */
  pendingReviews(): PendingReviewInfo[] {
    return this.registry
      .all()
      .map((r) => ({ id: r.id, filePath: r.extra.request.filePath, title: r.title, connectionId: r.connectionId, shown: r.extra.shown }));
  }

  /** Brings a pending review's diff to the front (opening it if it was in the background), with focus. */
  async reveal(id: string): Promise<boolean> {
    if (!this.registry.get(id)) return false;
    await this.show(id, vscode.ViewColumn.Active, false);
    return true;
  }

  withdrawForConnection(connectionId: number): void {
    for (const review of this.registry.byConnection(connectionId)) {
      // While stopping, the window no longer takes requests: settle only.
      if (this.stopping) this.registry.settle(review.id, { kind: 'withdrawn', reason: 'disconnected' });
      else void this.finish(review.id, { kind: 'withdrawn', reason: 'disconnected' });
    }
  }

  /**
   * The extension is stopping (deactivate: window reload or closing, extension-host restart, update,
   * disable); call it before the server stops. From here on no review is answered: each settles when
   * the server closes its connection, so nothing reaches claude, which keeps its own prompt in its
   * terminal. A DIFF_REJECTED sent now would tell the model the user had rejected a change nobody decided on.
   */
  stop(): void {
    this.stopping = true;
  }

  notifyNotOpened(filePath: string, reason: string): void {
    const message = `Claude's change to ${this.describe(filePath)} was not opened for review: ${reason}`;
    this.log.warn(message);
    void notify.warn(message);
  }

  /**
   * The host goes away. After stop(), reviews are left to their connections' closing (VS Code disposes
   * this right after calling deactivate, before the server has closed them); without it, every pending
   * review is a rejection.
   */
  dispose(): void {
    if (!this.stopping) for (const review of this.registry.all()) this.registry.settle(review.id, { kind: 'rejected', reason: 'window-closed' });
    this.disposables.dispose();
  }

  /**
   * Opens (or reveals) the diff of a pending review and waits for its tab. `preserveFocus`: the
   * keyboard stays where the user was typing; only an explicit "show me" takes focus.
   */
  private async show(id: string, viewColumn: vscode.ViewColumn, preserveFocus: boolean): Promise<void> {
    const review = this.registry.get(id);
    if (!review) return;
    const { original, proposal, request } = review.extra;
    // `override` (any boolean; VS Code's internal option) opens VS Code's text diff editor whatever
    // editor the name would get: a notebook (.ipynb) or custom editor would take the tab over, and the
    // review is of the file's text (the CLI answers with text; trap 9).
    await vscode.commands.executeCommand('vscode.diff', original, proposal, shownTitle(request), { preview: false, preserveFocus, viewColumn, override: true });
    // A decision can come before the tab is reported open (a quick click, close_tab): then stop waiting.
    await Promise.race([this.waitForTab(proposal, 5000), review.decision]);
    review.extra.shown = true;
    this.updateContextKey();
    this.changed.fire();
  }

  /** A background review: say so once, with a way to open it (the status item lists it too). */
  private announce(id: string): void {
    const review = this.registry.get(id);
    if (!review) return;
    const file = this.describe(review.extra.request.filePath);
    void notify.info(`Claude proposes a change to ${file}.`, 'Review', 'Reject').then(async (choice) => {
      if (choice === 'Review') await this.reveal(id).catch((e: Error) => this.log.warn(`Could not open the review of ${file}: ${e.message}`));
      else if (choice === 'Reject') await this.finish(id, { kind: 'rejected', reason: 'user' });
    });
  }

  private describe(filePath: string): string {
    return this.options.describePath?.(filePath) ?? path.basename(filePath);
  }

  /** How many reviews are waiting; for status and tests. */
  get pendingCount(): number {
    return this.registry.size;
  }

  private async decideFromUi(uri: vscode.Uri | undefined, choice: 'accept' | 'reject'): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    const review = target ? this.reviewFor(target) : undefined;
    if (!review) {
      void notify.info('There is no Claude proposal in the active editor to accept or reject.');
      return;
    }
    if (choice === 'reject') {
      await this.finish(review.id, { kind: 'rejected', reason: 'user' });
      return;
    }
    const document = await vscode.workspace.openTextDocument(review.extra.proposal);
    if (this.conflictsRefused(review.extra.request, document.getText())) return;
    await this.finish(review.id, { kind: 'accepted', text: acceptedText(review.extra.request, document.getText()) });
  }

  /** An accept of a merge with conflict markers left is refused, with a word saying what to do. */
  private conflictsRefused(request: ReviewRequest, text: string): boolean {
    if (!request.merged) return false;
    const left = conflictsLeft(text);
    if (!left) return false;
    const message = `${left} conflict${left > 1 ? 's' : ''} between your unsaved edits and Claude's change to ${this.describe(request.filePath)} ${left > 1 ? 'are' : 'is'} not resolved: keep the lines you want between <<<<<<< and >>>>>>> in the review's right side and delete the markers, then accept again (or reject).`;
    this.log.info(message);
    void notify.warn(message);
    return true;
  }

  private onSaved(document: vscode.TextDocument): void {
    if (document.uri.scheme !== PROPOSAL_SCHEME) return;
    const key = document.uri.toString();
    const reason = this.saveReasons.get(key);
    this.saveReasons.delete(key);
    // Only a deliberate save accepts; auto-save (after delay, focus change) just keeps the edits.
    if (reason !== vscode.TextDocumentSaveReason.Manual) return;
    const review = this.reviewFor(document.uri);
    if (review && !this.conflictsRefused(review.extra.request, document.getText())) {
      void this.finish(review.id, { kind: 'accepted', text: acceptedText(review.extra.request, document.getText()) });
    }
  }

  /** A closed tab may just have moved to another group; decide only if it is gone everywhere. */
  private onTabsClosed(): void {
    setTimeout(() => {
      const open = new Set(this.ourTabs().map((tab) => proposalOf(tab)!.toString()));
      for (const review of this.registry.all()) {
        if (!review.extra.shown || open.has(review.extra.proposal.toString())) continue;
        void this.finish(review.id, { kind: 'rejected', reason: 'tab-closed' });
        // Closing the tab is the CLI's "reject" (the CLI reads only accept or reject): say so, naming the file.
        const file = this.describe(review.extra.request.filePath);
        this.log.info(`Review of ${file} rejected: its tab was closed`);
        void notify.warn(`Rejected Claude's change to ${file}: its review tab was closed.`);
      }
    }, 50);
  }

  /**
   * Closes review tabs no pending review owns, and says where to answer: claude keeps its own prompt in
   * its terminal (its pending openDiff went to the connection that is gone, and it does not send it again).
   */
  private closeOrphans(tabs: readonly vscode.Tab[], why: 'interrupted' | 'ended'): void {
    const orphans = tabs.filter((tab) => {
      const uri = reviewUriOf(tab);
      return uri !== undefined && !this.reviewFor(uri);
    });
    if (orphans.length === 0) return;
    const files = [...new Set(orphans.map((tab) => path.posix.basename(reviewUriOf(tab)!.path)))];
    const names = files.join(', ');
    const many = files.length > 1;
    const what =
      why === 'interrupted'
        ? `Claude's review${many ? 's' : ''} of ${names} ${many ? 'were' : 'was'} interrupted by a window reload or an extension restart, so ${many ? 'their tabs were' : 'its tab was'} closed (nothing was written).`
        : `Closed the review tab${many ? 's' : ''} of ${names}: ${many ? 'those reviews have' : 'that review has'} already ended.`;
    const message = `${what} If claude still asks about this change, answer it in claude's terminal.`;
    this.log.info(message);
    void vscode.window.tabGroups.close(orphans).then(undefined, (e: Error) => this.log.warn(`Could not close the review tab of ${names}: ${e.message}`));
    void notify.warn(message);
  }

  /** Settles the review (if still pending), then closes its tab without a "save changes?" prompt. */
  private async finish(id: string, decision: ReviewDecision): Promise<void> {
    const review = this.registry.get(id);
    if (!review || !this.registry.settle(id, decision)) return;
    const { proposal, original } = review.extra;
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === proposal.toString());
    if (document?.isDirty) await document.save(); // into memory only; the review is already settled
    const tabs = this.ourTabs().filter((tab) => proposalOf(tab)!.toString() === proposal.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
    this.forget(original, proposal);
    this.updateContextKey();
    this.changed.fire();
    if (decision.kind === 'accepted' && review.extra.request.revealAccepted !== false) void this.revealWhenWritten(review.extra.request.filePath);
  }

  /**
   * Shows the accepted file once it is on disk (for openDiff the CLI writes it a moment later). An
   * open document is also what language servers check, so the edit's new problems get reported.
   */
  private async revealWhenWritten(filePath: string): Promise<void> {
    for (let waited = 0; waited < 5000; waited += 100) {
      if (
        await fs.stat(filePath).then(
          () => true,
          () => false,
        )
      ) {
        const preview = !(this.options.keepAcceptedFileOpen?.() ?? false);
        await vscode.window.showTextDocument(vscode.Uri.file(filePath), { preview, preserveFocus: true }).then(
          () => this.options.onRevealed?.(filePath),
          (e: Error) => this.log.warn(`Could not show ${filePath}: ${e.message}`),
        );
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private forget(original: vscode.Uri, proposal: vscode.Uri): void {
    this.originals.remove(original);
    this.proposals.remove(proposal);
  }

  private reviewFor(uri: vscode.Uri) {
    if (uri.scheme !== PROPOSAL_SCHEME && uri.scheme !== ORIGINAL_SCHEME) return undefined;
    const id = uri.path.split('/')[1];
    return this.registry.get(id);
  }

  /** The review tabs this extension opened (never the user's own diffs: their right side is not ours). */
  private ourTabs(): vscode.Tab[] {
    return vscode.window.tabGroups.all.flatMap((group) => group.tabs.filter((tab) => proposalOf(tab) !== undefined));
  }

  private waitForTab(proposal: vscode.Uri, timeoutMs: number): Promise<void> {
    const present = () => this.ourTabs().some((tab) => proposalOf(tab)!.toString() === proposal.toString());
    if (present()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        listener.dispose();
        reject(new Error(`the diff editor did not appear within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = vscode.window.tabGroups.onDidChangeTabs(() => {
        if (!present()) return;
        clearTimeout(timer);
        listener.dispose();
        resolve();
      });
    });
  }

  private updateContextKey(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const active = !!uri && !!this.reviewFor(uri);
    void vscode.commands.executeCommand('setContext', ACTIVE_CONTEXT_KEY, active);
  }
}

/** The tab's title: a merge with the user's unsaved edits says so (and how many conflicts it has). */
function shownTitle(request: ReviewRequest): string {
  if (!request.merged) return request.title;
  const { conflicts } = request.merged;
  return `${request.title} ↔ your unsaved edits${conflicts ? ` (${conflicts} conflict${conflicts > 1 ? 's' : ''})` : ' (merged)'}`;
}

/**
 * The proposal shown by a review tab of ours, else undefined. A notebook diff counts too: should VS Code
 * ever ignore `override`, the review still sees its tab (its closing rejects; closeAll closes it).
 */
function proposalOf(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  if (!(input instanceof vscode.TabInputTextDiff) && !(input instanceof vscode.TabInputNotebookDiff)) return undefined;
  return input.modified.scheme === PROPOSAL_SCHEME ? input.modified : undefined;
}

/** Any URI of ours a tab shows (either side of a diff, or one side opened on its own), else undefined. */
function reviewUriOf(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  const ours = (uri: vscode.Uri) => uri.scheme === PROPOSAL_SCHEME || uri.scheme === ORIGINAL_SCHEME;
  if (input instanceof vscode.TabInputTextDiff || input instanceof vscode.TabInputNotebookDiff) {
    return [input.modified, input.original].find(ours);
  }
  if (input instanceof vscode.TabInputText) return ours(input.uri) ? input.uri : undefined;
  return undefined;
}

/**
 * For `beside`: an existing group that is neither the active one nor showing a terminal; else the
 * group beside the active one (created if needed), or a new group when that one shows a terminal.
 */
function besideColumn(): vscode.ViewColumn {
  const groups = vscode.window.tabGroups.all;
  const active = vscode.window.tabGroups.activeTabGroup;
  const showsTerminal = (g: vscode.TabGroup) => g.activeTab?.input instanceof vscode.TabInputTerminal;
  const other = groups.find((g) => g !== active && !showsTerminal(g));
  if (other) return other.viewColumn;
  if (!groups.some((g) => g !== active && showsTerminal(g))) return vscode.ViewColumn.Beside;
  return Math.max(...groups.map((g) => g.viewColumn)) + 1;
}
