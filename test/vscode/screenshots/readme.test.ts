/**
 * The inner half of `npm run screenshots` (scripts/screenshots.ts): sets up each README picture in real VS
 * Code with the real `claude` CLI in the integrated terminal, then asks the outer script (probe `shot`) to
 * photograph the workbench. claude runs in a private tmux server started from the terminal and attached
 * to it (so it is what the terminal shows, and its screen is readable with `capture-pane`). Runs only with
 * $NC_SCREENSHOTS set by the script.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { before, describe, it } from '../bdd';
import { EXTENSION_ID, installedExtension, probe, sleep, terminalWithShellIntegration, waitFor } from '../util';
import { tmux, waitForScreen } from '../claudeInTerminal';
import { openedReview, tools } from '../toolsClient';

interface NativeClaudeApi {
  status(): { running: boolean; sessionCount: number };
  pendingReviews(): number;
}
/** What the outer script's `shot` probe answers. */
interface Shot {
  file: string;
  bytes: number;
}

const SOCKET = process.env.NC_TMUX_SOCKET ?? '';
const PROPOSAL_SCHEME = 'native-claude-proposal';
const HEALTH_COMMAND = 'nativeClaude.checkSetup';

async function typeIntoClaude(prompt: string): Promise<void> {
  await tmux('send-keys', '-t', 'main', '-l', '--', prompt);
  await waitForScreen(prompt, 5_000);
  await sleep(300);
  await tmux('send-keys', '-t', 'main', 'Enter');
}
const shot = (name: string, area: string) => probe<Shot>('shot', { name, area }, 30_000);
const proposalTab = () =>
  vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME);

describe('README screenshots', function () {
  this.timeout(120_000);
  let api: NativeClaudeApi;
  let workspace: string;
  let greet: vscode.Uri;

  before(async function () {
    if (process.env.NC_SCREENSHOTS !== '1') this.skip();
    this.timeout(180_000);
    api = (await installedExtension<NativeClaudeApi>(EXTENSION_ID)).exports;
    await waitFor('the IDE server to run', () => api.status().running, 30_000);
    workspace = vscode.workspace.workspaceFolders![0].uri.fsPath;
    greet = vscode.Uri.file(path.join(workspace, 'src', 'greet.ts'));
    // As after installing: the walkthrough is open before the user starts (steps tick only while it is known).
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#nativeClaude.firstRun`, false);
    await sleep(2000);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(greet), { preview: false });
    // No tmux status line: the terminal should look like claude run by hand.
    const conf = path.join(os.tmpdir(), `nc-shots-${process.pid}.tmux.conf`);
    fs.writeFileSync(conf, 'set -g status off\nset -g history-limit 5000\n');
    const terminal = await terminalWithShellIntegration({ name: 'claude', cwd: workspace, shellPath: '/bin/bash' }, 30_000);
    terminal.show();
    terminal.sendText(`clear; export PATH="$NC_CLAUDE_BIN_DIR:$PATH"; tmux -L ${SOCKET} -f ${conf} new-session -s main claude`);
    await waitFor('claude to connect (status().sessionCount === 1)', () => api.status().sessionCount === 1, 60_000, 200);
    await waitForScreen(/❯/, 30_000);
  });

  it('tools consent: the one question when claude first connects', async () => {
    const question = "Let Claude Code use VS Code's tools?";
    // A toast may already have hidden itself while claude started; then the notification centre shows it.
    const toast = await waitFor('the consent toast', () => probe<boolean>('hasNotification', question), 8_000, 300).catch(() => false);
    if (!toast) {
      await vscode.commands.executeCommand('notifications.showList');
      await waitFor('the consent in the notification centre', () => probe<boolean>('hasNotification', question), 10_000, 300);
    }
    await sleep(500);
    await shot('tools-consent', toast ? 'notification' : 'notification-center');
    await probe('clickNotificationButton', 'Not Now');
    await vscode.commands.executeCommand('notifications.hideList');
  });

  it('status bar: Claude: 1 session, claude in the terminal', async () => {
    await waitFor(
      'the status bar to show the session',
      async () => {
        const items = await probe<Array<{ text: string }>>('statusbar');
        return items.some((i) => /Claude: 1 session/.test(i.text));
      },
      15_000,
      500,
    );
    await shot('status-bar', 'panel');
  });

  it('selection: lines selected in the editor show in claude', async () => {
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(greet), { preview: false });
    editor.selection = new vscode.Selection(5, 0, 8, 1); // greet(), lines 6–9
    await waitForScreen('4 lines selected', 15_000);
    await typeIntoClaude('What does this function do?');
    await waitForScreen('prefixes the title', 30_000);
    await sleep(500);
    await shot('selection', 'window');
  });

  it('review: the proposed edit in the diff viewer, claude waiting for the decision', async () => {
    const editor = vscode.window.activeTextEditor;
    if (editor) editor.selection = new vscode.Selection(0, 0, 0, 0);
    await typeIntoClaude('Make greet say Hi instead of Hello');
    const tab = await waitFor('the review diff', () => proposalTab(), 30_000, 200);
    await waitForScreen(/Do you want to make this edit/, 15_000);
    await waitFor('the diff to be the active editor', () => vscode.window.activeTextEditor?.document.uri.scheme === PROPOSAL_SCHEME, 10_000);
    await sleep(1500);
    await shot('review', 'window');
    await vscode.commands.executeCommand('nativeClaude.acceptReview', (tab.input as vscode.TabInputTextDiff).modified);
    await waitForScreen('greet() now says Hi', 30_000);
    assert.match(fs.readFileSync(greet.fsPath, 'utf8'), /Hi, \$\{who\}/);
  });

  it('walkthrough: the first-run steps, ticked off', async () => {
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#nativeClaude.firstRun`, false);
    // findClaude (claude connected), runClaude, seeConnection and tryReview are done by now; the tools were declined.
    const page = await waitFor(
      'the walkthrough with four steps done',
      async () => {
        const p = await probe<{ steps: Array<{ checked: boolean }> }>('walkthrough');
        return p.steps.map((s) => s.checked).join() === 'true,true,true,true,false' ? p : undefined;
      },
      15_000,
      500,
    );
    console.log(`[screenshots] walkthrough steps: ${JSON.stringify(page.steps)}`);
    await sleep(1000);
    await shot('walkthrough', 'editor');
    console.log(`[screenshots] status bar: ${JSON.stringify((await probe<Array<{ text: string }>>('statusbar')).map((i) => i.text))}`);
  });

  it('health check page (Claude: Check Setup)', async function () {
    await vscode.commands.executeCommand(HEALTH_COMMAND);
    await sleep(4000);
    await shot('health-check', 'editor');
  });

  it("rename review: rename_symbol across three files, the first file's review", async function () {
    this.timeout(180_000);
    // greet() used in two more files, one TypeScript project (the rename provider finds the uses in the project).
    const write = (rel: string, text: string) => fs.writeFileSync(path.join(workspace, rel), text);
    write(
      'tsconfig.json',
      JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'commonjs', noEmit: true }, include: ['src/**/*.ts'] }, null, 2) + '\n',
    );
    write(
      'src/banner.ts',
      "import { greet } from './greet';\n\nexport function banner(name: string): string {\n  const line = greet({ name }, true);\n  return `${line}\\n${'='.repeat(line.length)}`;\n}\n",
    );
    write(
      'src/welcome.ts',
      "import { greet, type Person } from './greet';\n\nexport function welcome(guests: Person[]): string {\n  return guests.map((g) => greet(g)).join(' ');\n}\n",
    );
    await vscode.commands.executeCommand('typescript.restartTsServer');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    // The tools route as claude's tools entry calls it (the consent was declined above: the scene calls it itself).
    const t = await tools();
    const line =
      fs
        .readFileSync(greet.fsPath, 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith('export function greet(')) + 1;
    const answered = t.call('rename_symbol', { path: 'src/greet.ts', line, symbol: 'greet', new_name: 'salute' }, 150_000);
    const opened = await Promise.race([
      openedReview('banner.ts', 120_000),
      answered.then((a) => assert.fail(`rename_symbol answered before its review: ${a.text}`)),
    ]);
    await sleep(1500);
    await shot('rename-review', 'editor');
    await vscode.commands.executeCommand('nativeClaude.rejectReview', opened.input.modified);
    assert.match((await answered).text, /"status": "rejected"/);
  });
});
