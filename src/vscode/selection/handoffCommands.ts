import * as vscode from 'vscode';
import { buildAtMention, type AtMentionParams } from '../../selection/atMention';
import { chooseHandoffTarget, deliverHandoff, handoffRefusal, TerminalRecency, type Handoff, type HandoffPlace } from '../../selection/promptHandoff';
import { cellPrompt, changePrompt, problemPrompt, terminalPrompt, type ProblemInfo, type ProblemSeverity } from '../../selection/promptText';
import type { SharingPolicy } from '../../selection/sharingPolicy';
import type { IdeSession } from '../../server/sessionSource';
import type { SessionTerminals } from '../../terminal/sessionTerminals';
import { ERROR_MIME, formatError, STDERR_MIME, STDOUT_MIME } from '../../tools/notebookOutput';
import type { Logger } from '../../util/logger';
import { notify } from '../notify';
import { diskPathOf } from './selectionTracker';
import { setting } from '../settings';
import { COMMANDS } from '../../host/commandIds';
import { registerCommand } from '../commandTable';

/**
 * The hand-off entry points (docs/selection.md, "Handing work to claude"): Fix/Explain with Claude
 * (quick fixes on any problem), Ask Claude About This Change (the gutter peek of git's and Claude's
 * changes, a changed file in Source Control), Send Cell to Claude, Send to Claude from a terminal
 * selection. Each builds what a careful user would type (src/selection/promptText.ts) and puts it into
 * the right claude's prompt without pressing Enter. Each command returns what it did (for the tests).
 */
export type HandoffOutcome = { sent: true; terminalName: string; sessionId: number; text: string; mention?: AtMentionParams } | { sent: false; reason: string };

/** The `claude-before:` original of a file claude changed (src/vscode/changes/claudeChanges.ts's quick diff). */
/** Claude's changes' record of a file: its content before claude, and whether claude certainly changed it. */
export type ClaudeChangeOf = (uri: vscode.Uri) => { original: vscode.Uri; certain: boolean } | undefined;

/** How long a claude started for a hand-off may take to connect and be found in its terminal. */
const START_TIMEOUT_MS = 90_000;
/** claude drops what arrives before its handlers are up (docs/selection.md, "New sessions"). */
const NEW_SESSION_READY_MS = 1500;

// Long (~105 lines) on purpose: the six entry points are small closures over one delivery (which claude,
// start one if none, type into its prompt) and its log; split apart, each would take the same five arguments.
export function registerHandoffCommands(
  sessions: SessionTerminals<vscode.Terminal>,
  log: Logger,
  policy: () => SharingPolicy,
  claudeChangeOf: ClaudeChangeOf,
): vscode.Disposable {
  const recency = new TerminalRecency<vscode.Terminal>();
  recency.touch(vscode.window.activeTerminal);

  const send = async (handoff: Handoff, refusalOf?: string): Promise<HandoffOutcome> => {
    if (refusalOf !== undefined) {
      const refusal = handoffRefusal(policy(), refusalOf, vscode.workspace.asRelativePath(refusalOf, false));
      if (refusal) {
        void notify.warn(refusal);
        return { sent: false, reason: refusal };
      }
    }
    try {
      const place = await pickPlace(sessions, recency);
      if ('reason' in place) {
        // Logged: a pick dismissed says nothing on screen, and a hand-off that did nothing must leave a trace.
        log.info(`Hand-off not sent: ${place.reason}`);
        return { sent: false, reason: place.reason };
      }
      await deliverHandoff(place, handoff, {
        type: (terminal, bytes) => terminal.sendText(bytes, false),
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      });
      recency.touch(place.terminal);
      if (setting('handOffFocusesClaude')) place.terminal.show(false);
      log.info(
        `Hand-off to claude in "${place.terminal.name}" (#${place.session.id}): ${handoff.text.length} characters${handoff.mention ? ' after an @-reference' : ''}`,
      );
      return { sent: true, terminalName: place.terminal.name, sessionId: place.session.id, text: handoff.text, mention: handoff.mention };
    } catch (error) {
      const message = `Could not hand this to claude: ${(error as Error).message}`;
      log.error(message);
      void notify.error(message);
      return { sent: false, reason: message };
    }
  };

  const problems =
    (action: 'fix' | 'explain') =>
    async (uri?: vscode.Uri, diagnostics?: readonly vscode.Diagnostic[]): Promise<HandoffOutcome> => {
      const editor = vscode.window.activeTextEditor;
      const document = uri ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) : editor?.document;
      if (!document) return refuse('Open the file with the problem first.');
      const list = diagnostics?.length ? diagnostics : problemsAtCursor(document, editor);
      if (list.length === 0) return refuse('No problem here to hand to Claude: put the cursor on a squiggle.');
      const filePath = diskPathOf(document);
      if (!filePath) return refuse('Save this file first: Claude can only be pointed at files on disk.');
      const inNotebook = document.uri.scheme !== 'file';
      return send(
        {
          mention: inNotebook
            ? buildAtMention(filePath)
            : linesOf(
                filePath,
                list.map((d) => d.range),
              ),
          text: problemPrompt(action, list.map(problemInfo)),
        },
        filePath,
      );
    };

  const change =
    (kind: 'git' | 'claude') =>
    async (target?: unknown, changes?: readonly LineChange[], index?: number): Promise<HandoffOutcome> => {
      // A changed file in Source Control: a resource state (or several). The gutter peek: (uri, changes, index).
      const uri = target instanceof vscode.Uri ? target : resourceUriOf(target);
      if (!uri || uri.scheme !== 'file') return refuse('Claude can only be pointed at files on disk.');
      const displayPath = vscode.workspace.asRelativePath(uri, false);
      const hunk = Array.isArray(changes) && typeof index === 'number' ? changes[index] : undefined;
      // Claude's changes lists files it cannot attribute with certainty too: the text says so.
      const claude = kind === 'claude' ? claudeChangeOf(uri) : undefined;
      const whose = kind === 'git' ? 'git' : claude?.certain === false ? 'claude-uncertain' : 'claude';
      if (!hunk) return send({ mention: buildAtMention(uri.fsPath), text: changePrompt({ kind: whose, displayPath, diff: '' }) }, uri.fsPath);
      const refusal = handoffRefusal(policy(), uri.fsPath, displayPath);
      if (refusal) return refuse(refusal); // before reading anything of it
      const original = kind === 'claude' ? claude?.original : await gitOriginal(uri);
      const diff = await hunkDiff(uri, original, hunk);
      // A deletion (end 0) names the line it follows.
      const from = Math.max(1, hunk.modifiedStartLineNumber);
      const to = hunk.modifiedEndLineNumber === 0 ? from : hunk.modifiedEndLineNumber;
      const mention: AtMentionParams = { filePath: uri.fsPath, lineStart: Math.max(0, from - 1), lineEnd: Math.max(0, to - 1) };
      return send({ mention, text: changePrompt({ kind: whose, displayPath, diff }) }, uri.fsPath);
    };

  const cell = async (arg?: unknown): Promise<HandoffOutcome> => {
    const target = cellOf(arg);
    if (!target) return refuse('Select a notebook cell to send it to Claude.');
    const notebook = target.notebook;
    if (notebook.uri.scheme !== 'file') return refuse('Save this notebook first: Claude can only be pointed at files on disk.');
    const { output, error } = outputsOf(target);
    const text = cellPrompt({
      displayPath: vscode.workspace.asRelativePath(notebook.uri, false),
      index: target.index,
      language: target.document.languageId,
      source: target.document.getText(),
      output,
      error,
    });
    return send({ mention: buildAtMention(notebook.uri.fsPath), text }, notebook.uri.fsPath);
  };

  const terminalSelection = async (): Promise<HandoffOutcome> => {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) return refuse('Select text in a terminal to send it to Claude.');
    const selected = await terminalSelectionText();
    if (!selected.trim()) return refuse('Select text in the terminal first: nothing is selected.');
    return send({ text: terminalPrompt(terminal.name, selected) });
  };

  const codeActions = vscode.languages.registerCodeActionsProvider(
    [{ scheme: 'file' }, { scheme: 'vscode-notebook-cell' }],
    {
      provideCodeActions(document, _range, context) {
        if (context.diagnostics.length === 0) return [];
        const args = [document.uri, [...context.diagnostics]];
        const fix = new vscode.CodeAction('Fix with Claude', vscode.CodeActionKind.QuickFix);
        fix.command = { command: COMMANDS.fixWithClaude, title: 'Fix with Claude', arguments: args };
        fix.diagnostics = [...context.diagnostics];
        const explain = new vscode.CodeAction('Explain with Claude', vscode.CodeActionKind.QuickFix);
        explain.command = { command: COMMANDS.explainWithClaude, title: 'Explain with Claude', arguments: args };
        explain.diagnostics = [...context.diagnostics];
        return [fix, explain];
      },
    },
    { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
  );

  return vscode.Disposable.from(
    codeActions,
    vscode.window.onDidChangeActiveTerminal((terminal) => recency.touch(terminal)),
    vscode.window.onDidCloseTerminal((terminal) => recency.forget(terminal)),
    registerCommand(COMMANDS.fixWithClaude, problems('fix'), 'Fix with Claude'),
    registerCommand(COMMANDS.explainWithClaude, problems('explain'), 'Explain with Claude'),
    registerCommand(COMMANDS.askAboutClaudeChange, change('claude'), 'Ask Claude About This Change'),
    registerCommand(COMMANDS.askAboutGitChange, change('git'), 'Ask Claude About This Change'),
    registerCommand(COMMANDS.sendCellToClaude, cell, 'Send Cell to Claude'),
    registerCommand(COMMANDS.sendTerminalSelectionToClaude, terminalSelection, 'Send to Claude'),
  );
}

function refuse(reason: string): HandoffOutcome {
  void notify.warn(reason);
  return { sent: false, reason };
}

type Place = { session: IdeSession; terminal: vscode.Terminal };

/** The claude to hand to: chosen, picked by the user, or started for this (docs/selection.md). */
async function pickPlace(sessions: SessionTerminals<vscode.Terminal>, recency: TerminalRecency<vscode.Terminal>): Promise<Place | { reason: string }> {
  await sessions.settled();
  const places: HandoffPlace<vscode.Terminal>[] = sessions.sessionPlaces();
  const target = chooseHandoffTarget(places, recency.lastUsed, setting('handOffTo'));
  switch (target.kind) {
    case 'one':
      return target.place;
    case 'ask': {
      const picked = await vscode.window.showQuickPick(
        target.places.map((place) => ({
          label: place.terminal.name,
          description: `claude #${place.session.id}${place.session.cliPid ? `, pid ${place.session.cliPid}` : ''}`,
          place,
        })),
        { title: 'Hand to which claude?', placeHolder: 'Several claude sessions run in this window' },
      );
      return picked ? picked.place : { reason: 'No claude was picked.' };
    }
    case 'unreachable': {
      const reason =
        "claude runs outside this window's terminals (under tmux or ssh?), so the text cannot be typed into its prompt. Start claude in a VS Code terminal to use this.";
      void notify.warn(reason);
      return { reason };
    }
    case 'none': {
      const choice = await notify.info('No claude is running in this window. Start claude in a terminal and hand this to it once it is ready?', 'Start claude');
      if (choice !== 'Start claude') return { reason: 'claude is not running, and was not started.' };
      return startAndWait(sessions);
    }
  }
}

/** Runs the launch command, then waits for that claude to connect, be found in its terminal and be ready. */
async function startAndWait(sessions: SessionTerminals<vscode.Terminal>): Promise<Place | { reason: string }> {
  const connected = new Promise<IdeSession | undefined>((resolve) => {
    const timer = setTimeout(() => (subscription.dispose(), resolve(undefined)), START_TIMEOUT_MS);
    const subscription = sessions.onDidConnect((session) => (clearTimeout(timer), subscription.dispose(), resolve(session)));
  });
  await vscode.commands.executeCommand(COMMANDS.launchClaude);
  const session = await connected;
  if (!session) return refuseLater(`claude did not connect within ${START_TIMEOUT_MS / 1000} s.`);
  const deadline = Date.now() + 15_000;
  let terminal = sessions.terminalOf(session.id);
  while (!terminal && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    await sessions.settled();
    terminal = sessions.terminalOf(session.id);
  }
  if (!terminal) return refuseLater('the claude that started was not found in a terminal of this window.');
  await new Promise((r) => setTimeout(r, NEW_SESSION_READY_MS));
  return { session, terminal };
}

function refuseLater(why: string): { reason: string } {
  const reason = `Not handed to claude: ${why}`;
  void notify.warn(reason);
  return { reason };
}

const SEVERITY: Record<vscode.DiagnosticSeverity, ProblemSeverity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function problemInfo(d: vscode.Diagnostic): ProblemInfo {
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  return { severity: SEVERITY[d.severity] ?? 'error', message: d.message, source: d.source, code, line: d.range.start.line };
}

function problemsAtCursor(document: vscode.TextDocument, editor: vscode.TextEditor | undefined): vscode.Diagnostic[] {
  const at = editor?.document === document ? editor.selection.active : undefined;
  const all = vscode.languages.getDiagnostics(document.uri);
  return at ? all.filter((d) => d.range.contains(at) || d.range.start.line === at.line) : [];
}

/** The lines the problems cover (a zero-width problem: its line). */
function linesOf(filePath: string, ranges: readonly vscode.Range[]): AtMentionParams {
  const start = Math.min(...ranges.map((r) => r.start.line));
  const end = Math.max(...ranges.map((r) => (r.end.character === 0 && r.end.line > r.start.line ? r.end.line - 1 : r.end.line)));
  return { filePath, lineStart: start, lineEnd: Math.max(start, end) };
}

/** A change as VS Code's quick diff passes it to `scm/change/title` commands (1-based lines; end 0: none). */
interface LineChange {
  originalStartLineNumber: number;
  originalEndLineNumber: number;
  modifiedStartLineNumber: number;
  modifiedEndLineNumber: number;
}

function resourceUriOf(arg: unknown): vscode.Uri | undefined {
  const first = Array.isArray(arg) ? arg[0] : arg;
  const uri = (first as { resourceUri?: unknown } | undefined)?.resourceUri;
  return uri instanceof vscode.Uri ? uri : undefined;
}

/** The hunk as unified-diff lines: the original's lines as `-`, the file's as `+`. */
async function hunkDiff(uri: vscode.Uri, original: vscode.Uri | undefined, hunk: LineChange): Promise<string> {
  const lines = (doc: vscode.TextDocument, start: number, end: number) => {
    if (end === 0) return [];
    const out: string[] = [];
    for (let line = start - 1; line <= end - 1 && line < doc.lineCount; line++) out.push(doc.lineAt(line).text);
    return out;
  };
  const now = await vscode.workspace.openTextDocument(uri);
  const before = original
    ? await vscode.workspace.openTextDocument(original).then(
        (d) => lines(d, hunk.originalStartLineNumber, hunk.originalEndLineNumber),
        () => undefined,
      )
    : undefined;
  const removed = before === undefined ? ['(the lines before this change could not be read)'] : before.map((l) => `-${l}`);
  return [...removed, ...lines(now, hunk.modifiedStartLineNumber, hunk.modifiedEndLineNumber).map((l) => `+${l}`)].join('\n');
}

/** The index version git's quick diff compares with (the git extension's API, `toGitUri(uri, '')`). */
async function gitOriginal(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
  const git = vscode.extensions.getExtension<{ getAPI(v: 1): { toGitUri(uri: vscode.Uri, ref: string): vscode.Uri } }>('vscode.git');
  if (!git) return undefined;
  const api = (git.isActive ? git.exports : await git.activate()).getAPI(1);
  return api.toGitUri(uri, '');
}

/** The cell a notebook menu passed (the cell, or `{cell}`), else the active notebook's selected cell. */
function cellOf(arg: unknown): vscode.NotebookCell | undefined {
  const isCell = (x: unknown): x is vscode.NotebookCell => typeof x === 'object' && x !== null && 'notebook' in x && 'document' in x && 'index' in x;
  if (isCell(arg)) return arg;
  const inner = (arg as { cell?: unknown } | undefined)?.cell;
  if (isCell(inner)) return inner;
  const editor = vscode.window.activeNotebookEditor;
  const index = editor?.selection.start;
  return editor && index !== undefined && index < editor.notebook.cellCount ? editor.notebook.cellAt(index) : undefined;
}

const decoder = new TextDecoder('utf-8');

/** A cell's outputs as text: the error it raised apart; streams and plain-text results in order. */
function outputsOf(cell: vscode.NotebookCell): { output: string; error?: string } {
  const texts: string[] = [];
  let error: string | undefined;
  for (const output of cell.outputs) {
    for (const item of output.items) {
      if (item.mime === ERROR_MIME) error = formatError(item);
      else if (item.mime === STDOUT_MIME || item.mime === STDERR_MIME || item.mime === 'text/plain') texts.push(decoder.decode(item.data));
    }
  }
  return { output: texts.join(''), error };
}

/**
 * The active terminal's selection. VS Code's API does not expose it, so it is copied the way the user
 * would (the terminal's Copy) and the clipboard put back as it was.
 */
async function terminalSelectionText(): Promise<string> {
  const saved = await vscode.env.clipboard.readText();
  try {
    await vscode.env.clipboard.writeText('');
    await vscode.commands.executeCommand('workbench.action.terminal.copySelection');
    return await vscode.env.clipboard.readText();
  } finally {
    await vscode.env.clipboard.writeText(saved);
  }
}
