/**
 * Check Setup, selection sharing and coexistence with Anthropic's extension, in real VS Code (code-server)
 * with the real `claude` typed into integrated terminals: the inner half of test/real/vscode-health.test.ts.
 * Runs only with $NC_HEALTH_SPEC; `role` picks the part (`health`: Native Claude alone; `coexist`: with
 * anthropic.claude-code 1.0.109 installed too). Each test records its outcome into the spec's `out` file.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, afterEach, before, describe, it } from '../bdd';
import { installedExtension, probe, readEnviron, sleep, terminalWithShellIntegration, waitFor } from '../util';
import { screenOf as screen, tmux, waitForScreenOf } from '../../support/tmuxScreen';

interface NativeClaudeApi {
  status(): { running: boolean; port?: number; lockFilePath?: string; sessionCount: number; connections: number };
}
interface Finding {
  id: string;
  severity: string;
  title: string;
  detail?: string[];
  fixes?: Array<{ label: string; command: string; args?: unknown[] }>;
}
interface Report {
  sections: Array<{ title: string; findings: Finding[] }>;
}
interface Spec {
  role: 'health' | 'coexist';
  out: string;
  selectionFile: string;
  secretFile: string;
  notebookFile: string;
}

const SPEC_PATH = process.env.NC_HEALTH_SPEC;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const SOCKET = process.env.NC_TMUX_SOCKET ?? '';
const results: Record<string, { state?: string; error?: string; data?: Record<string, unknown> }> = {};
const data: Record<string, Record<string, unknown>> = {};
const keyOf = (title: string) => /^\[([\w-]+)\]/.exec(title)?.[1] ?? title;
const sockets: string[] = [];

function waitForScreen(socket: string, test: (s: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
  return waitForScreenOf(socket, test, timeoutMs, { what });
}

/** Starts claude inside `terminal`'s shell (in a private tmux server, so it has that shell's environment). */
function startClaudeIn(terminal: vscode.Terminal, tag: string): string {
  const socket = `${SOCKET}-${tag}`;
  sockets.push(socket);
  terminal.sendText(
    `export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L ${socket} -f /dev/null start-server \\; set-option -g remain-on-exit on \\; ` +
      `new-session -d -s main -x 200 -y 50 claude`,
  );
  return socket;
}

async function shellEnv(terminal: vscode.Terminal): Promise<Record<string, string>> {
  const pid = await waitFor('the terminal process id', () => Promise.resolve(terminal.processId), 10_000);
  return readEnviron(pid);
}

const checkSetup = () => vscode.commands.executeCommand<Report>('nativeClaude.checkSetup');
const findings = (report: Report) => report.sections.flatMap((s) => s.findings);

describe('Check Setup, selection sharing, coexistence', function () {
  this.timeout(90_000);
  let api: NativeClaudeApi;
  let workspace: string;

  before(async function () {
    if (!spec) this.skip();
    workspace = vscode.workspace.workspaceFolders![0].uri.fsPath;
    api = (await installedExtension<NativeClaudeApi>()).exports;
  });

  afterEach(function () {
    const t = (this as unknown as { currentTest: { title: string; state?: string; err?: Error } }).currentTest;
    results[keyOf(t.title)] = { state: t.state, error: t.err?.message, data: data[keyOf(t.title)] };
    fs.writeFileSync(spec!.out, JSON.stringify(results, null, 2));
  });

  after(async () => {
    for (const s of sockets) await tmux(s, 'kill-server').catch(() => undefined);
  });

  describe('health (Native Claude alone)', () => {
    before(function () {
      if (spec?.role !== 'health') this.skip();
    });

    it('[health-terminal] a terminal opened while the server was off is found, claude there does not connect, the relaunch fixes it', async () => {
      const d: Record<string, unknown> = (data['health-terminal'] = {});
      await waitFor('the IDE server to run', () => api.status().running, 20_000);
      const port = api.status().port!;
      // Another window of this VS Code on the same folder: same pid as ours (the server process), mode 0600.
      const ours = JSON.parse(fs.readFileSync(api.status().lockFilePath!, 'utf8')) as { pid: number };
      const otherLock = path.join(path.dirname(api.status().lockFilePath!), '1.lock');
      fs.writeFileSync(
        otherLock,
        JSON.stringify({
          pid: ours.pid,
          workspaceFolders: [workspace],
          ideName: 'code-server',
          transport: 'ws',
          runningInWindows: false,
          authToken: 'other-window',
        }),
        { mode: 0o600 },
      );

      await vscode.commands.executeCommand('nativeClaude.stopServer');
      const old = await terminalWithShellIntegration({ name: 'old shell', cwd: workspace, shellPath: '/bin/bash' }, 30_000);
      // Typed into, so VS Code does not relaunch it by itself when the environment changes (as with a user's terminal).
      old.sendText('echo typed before the server started');
      await sleep(500);
      await vscode.commands.executeCommand('nativeClaude.startServer');
      await waitFor('the server to run again', () => api.status().running, 20_000);
      assert.strictEqual(api.status().port, port, 'the same port after a restart');
      d.oldTerminalPort = (await shellEnv(old)).CLAUDE_CODE_SSE_PORT ?? null;

      const report = await checkSetup();
      d.findings = findings(report).map((f) => ({ id: f.id, severity: f.severity, title: f.title, fixes: f.fixes }));
      // Recorded, not thrown: the outer test checks it, and the CLI part below still runs.
      await probe<{ shot: string; text: string }>('healthPage', 'check-setup-page', 40_000).then(
        (page) => Object.assign(d, { pageShot: page.shot, pageText: page.text }),
        (error: Error) => (d.pageError = error.message),
      );

      // The real CLI in that terminal: two IDEs list the folder (ours and the "other window"), no port: no connection.
      old.show();
      const oldSocket = startClaudeIn(old, 'old');
      await waitForScreen(oldSocket, (s) => /❯/.test(s), 'the prompt', 60_000);
      await sleep(8000);
      d.oldSessions = api.status().sessionCount;
      d.oldScreen = (await screen(oldSocket)).split('\n').filter((l) => /IDE|ide|connected/i.test(l));
      await tmux(oldSocket, 'kill-server').catch(() => undefined);

      // The page's fix, through the same command and arguments; the confirmation is clicked in the workbench.
      const fix = findings(report).find((f) => f.id === 'terminals.missingPort')!.fixes![0];
      const relaunched = vscode.commands.executeCommand<number>(fix.command, ...(fix.args ?? []));
      await sleep(500);
      // In VS Code's test mode notifications go to the centre, not toasts: open it and click the button there.
      await vscode.commands.executeCommand('notifications.showList');
      await probe('clickNotificationButton', 'Relaunch');
      await vscode.commands.executeCommand('notifications.hideList');
      d.relaunched = await relaunched;
      const fresh = await waitFor('the relaunched terminal', () => vscode.window.terminals.find((t) => t.name === 'old shell' && t !== old), 10_000);
      await waitFor('its shell', () => Promise.resolve(fresh.processId), 10_000);
      await sleep(1500);
      d.newTerminalPort = (await shellEnv(fresh)).CLAUDE_CODE_SSE_PORT ?? null;
      const after = findings(await checkSetup()).map((f) => f.id);
      d.afterIds = after;

      const socket = startClaudeIn(fresh, 'main');
      await waitFor('claude in the relaunched terminal to connect', () => api.status().sessionCount === 1, 60_000, 200);
      await waitForScreen(socket, (s) => /❯/.test(s), 'the prompt', 30_000);
      d.connected = true;
      fs.rmSync(otherLock, { force: true });
      await sleep(1500);
    });

    it('[selection] the toggle stops and restarts what claude shows; an excluded file is never shown, nor mentioned', async () => {
      const d: Record<string, unknown> = (data.selection = {});
      const socket = `${SOCKET}-main`;
      const selected = (s: string) => /\d+ lines? selected/.exec(s)?.[0];
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspace, spec!.selectionFile)));
      const editor = await vscode.window.showTextDocument(doc, { preview: false });
      editor.selection = new vscode.Selection(1, 0, 2, doc.lineAt(2).text.length);
      d.on = selected(await waitForScreen(socket, (s) => s.includes('2 lines selected'), '2 lines selected'));

      d.toggledTo = await vscode.commands.executeCommand('nativeClaude.toggleSelectionSharing');
      d.off = selected(await waitForScreen(socket, (s) => !selected(s), 'no selection'));
      editor.selection = new vscode.Selection(0, 0, 3, 0);
      await sleep(2000);
      d.offAfterNewSelection = selected(await screen(socket)) ?? null;
      d.statusItem = await probe('statusBarTexts');

      d.toggledBack = await vscode.commands.executeCommand('nativeClaude.toggleSelectionSharing');
      d.onAgain = selected(await waitForScreen(socket, (s) => s.includes('3 lines selected'), '3 lines selected'));

      const secret = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(workspace, spec!.secretFile)));
      const secretEditor = await vscode.window.showTextDocument(secret, { preview: false });
      secretEditor.selection = new vscode.Selection(0, 0, 1, secret.lineAt(1).text.length);
      d.inSecret = selected(await waitForScreen(socket, (s) => !selected(s), 'no selection in the excluded file')) ?? null;
      await sleep(1500);
      d.inSecretLater = selected(await screen(socket)) ?? null;
      d.mention = (await vscode.commands.executeCommand('nativeClaude.mentionSelection')) ?? null;
      await sleep(1000);
      d.promptLines = (await screen(socket)).split('\n').filter((l) => l.includes('@'));

      const again = await vscode.window.showTextDocument(doc, { preview: false });
      again.selection = new vscode.Selection(0, 0, 1, 3);
      d.back = selected(await waitForScreen(socket, (s) => s.includes('2 lines selected'), '2 lines selected again'));
    });
    it('[notebook] a selection in a notebook cell shows in claude as lines of the .ipynb', async () => {
      const d: Record<string, unknown> = (data.notebook = {});
      const socket = `${SOCKET}-main`;
      const nb = await vscode.workspace.openNotebookDocument(vscode.Uri.file(path.join(workspace, spec!.notebookFile)));
      await vscode.window.showNotebookDocument(nb, { preview: false });
      await vscode.commands.executeCommand('notebook.focusTop');
      await vscode.commands.executeCommand('notebook.cell.edit');
      const cellEditor = await waitFor(
        'the cell editor to be active',
        () => {
          const e = vscode.window.activeTextEditor;
          return e?.document.uri.scheme === 'vscode-notebook-cell' ? e : undefined;
        },
        10_000,
      );
      d.cellScheme = cellEditor.document.uri.scheme;
      cellEditor.selection = new vscode.Selection(0, 0, 2, cellEditor.document.lineAt(2).text.length);
      d.shown = /\d+ lines? selected/.exec(await waitForScreen(socket, (s) => s.includes('3 lines selected'), '3 lines selected'))?.[0];
    });
  });

  describe("coexistence with Anthropic's extension", () => {
    before(function () {
      if (spec?.role !== 'coexist') this.skip();
    });

    it('[coexist-undecided] both run; Native Claude leaves CLAUDE_CODE_SSE_PORT to the other and Check Setup explains', async () => {
      const d: Record<string, unknown> = (data['coexist-undecided'] = {});
      const theirs = vscode.extensions.getExtension('anthropic.claude-code');
      assert.ok(theirs, 'anthropic.claude-code is installed');
      if (!theirs.isActive) await theirs.activate();
      d.theirVersion = (theirs.packageJSON as { version: string }).version;
      await waitFor('our server', () => api.status().running, 20_000);
      d.ourPort = api.status().port;
      const terminal = await terminalWithShellIntegration({ name: 'undecided', cwd: workspace, shellPath: '/bin/bash' }, 30_000);
      d.terminalPort = (await shellEnv(terminal)).CLAUDE_CODE_SSE_PORT ?? null;
      const report = await checkSetup();
      d.findings = findings(report).map((f) => ({ id: f.id, title: f.title }));
      await vscode.commands.executeCommand('notifications.showList');
      await sleep(500);
      d.notifications = await probe('notificationTexts');
      await vscode.commands.executeCommand('notifications.hideList');
      await probe<{ shot: string }>('healthPage', 'check-setup-coexist', 40_000).then(
        (page) => (d.pageShot = page.shot),
        (error: Error) => (d.pageError = error.message),
      );
    });

    it('[coexist-this] choosing Native Claude: new terminals carry its port (the outer test checks it is ours)', async () => {
      const d: Record<string, unknown> = (data['coexist-this'] = {});
      const outcome = await vscode.commands.executeCommand<{ choice: string; portElsewhere: boolean }>('nativeClaude.chooseIdeExtension', 'this');
      Object.assign(d, outcome);
      const terminal = await terminalWithShellIntegration({ name: 'chose-this', cwd: workspace, shellPath: '/bin/bash' }, 30_000);
      d.terminalPort = (await shellEnv(terminal)).CLAUDE_CODE_SSE_PORT ?? null;
      d.ourPort = api.status().port;
      assert.strictEqual(outcome.portElsewhere, d.terminalPort !== String(d.ourPort), 'portElsewhere says whether new terminals got another port');
    });

    it("[coexist-anthropic] choosing Anthropic's: Native Claude's server and lock file go, new terminals carry their port", async () => {
      const d: Record<string, unknown> = (data['coexist-anthropic'] = {});
      const lock = api.status().lockFilePath!;
      d.choice = await vscode.commands.executeCommand('nativeClaude.chooseIdeExtension', 'anthropic');
      d.running = api.status().running;
      d.lockExists = fs.existsSync(lock);
      const terminal = await terminalWithShellIntegration({ name: 'chose-anthropic', cwd: workspace, shellPath: '/bin/bash' }, 30_000);
      d.terminalPort = (await shellEnv(terminal)).CLAUDE_CODE_SSE_PORT ?? null;
      d.ids = findings(await checkSetup()).map((f) => f.id);
      // Back to Native Claude, so the window ends as it began.
      await vscode.commands.executeCommand('nativeClaude.chooseIdeExtension', 'this');
      d.runningAgain = api.status().running;
    });
  });
});
