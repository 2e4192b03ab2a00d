/**
 * The workspace tools of the `/tools` route, called over the real socket inside real VS Code
 * (code-server 4.139.1) with the packaged extension installed: the review diff of write_file/apply_diff
 * (format-on-save, rejection, CRLF+BOM, partial blocks, auto-save, dirty buffers), execute_command in real
 * integrated terminals (bash + shell integration) and its approval modal, VS Code's own ripgrep, and the
 * JSON language server's diagnostics.
 *
 * One code-server and one window for everything. The inner suites (test/vscode/suites/tools-*.test.ts)
 * run in the extension host and call the tools with the MCP SDK's Client, port and token read from the
 * lock file in CLAUDE_CONFIG_DIR, as the CLI's route entry does. Each jest test below checks one inner
 * test's outcome (key = the `[key]` of its title) and what it left on disk. The outer side also answers
 * "probes" the inner tests cannot do themselves (is the terminal panel showing?).
 *
 * The approvalMode "always" modal cannot be answered inside that window: a window running extension
 * tests refuses every dialog ("DialogService: refused to show dialog in tests"). So the last test opens a
 * plain window of the same server, calls execute_command from here over the same route (lock file →
 * port + token), and clicks the modal with Playwright.
 *
 * Needs test/setup/install-real-clients.sh. Run:
 *   npx jest --selectProjects real --runInBand -- test/real/vscode-tools.test.ts
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { stateAfter } from '../support/stateAfter';
import { HeaderWebSocketClientTransport } from '../support/wsClientTransport';
import { isolatedEnv } from './harness/claudeCli';
import {
  codeServerAvailable,
  compileInnerSuites,
  openWorkbench,
  screenshotOnFailure,
  type CodeServer,
  type Probes,
  type SuiteResult,
} from './harness/codeServer';
import { runInnerSuite } from './harness/innerSuite';
import { ensureVsix } from './harness/vsix';
import { expectInnerPassed as expectInner, innerFailureContext, type InnerResult } from './harness/innerResults';

/**
 * Waits for the workbench's modal dialog, reads it, clicks the button named `click`, waits for it to go.
 * (Only in a plain window: a window running extension tests refuses every dialog.)
 */
async function answerDialog(page: Page, click: string): Promise<{ message: string; detail: string; buttons: string[] }> {
  const box = page.locator('.monaco-dialog-box');
  await box.waitFor({ state: 'visible', timeout: 15_000 });
  const text = async (selector: string) =>
    (
      (await box
        .locator(selector)
        .first()
        .textContent({ timeout: 2_000 })
        .catch(() => '')) ?? ''
    ).trim();
  const buttons = (await box.locator('.dialog-buttons .monaco-button').allTextContents()).map((b) => b.trim());
  const info = { message: await text('.dialog-message-text'), detail: await text('.dialog-message-detail'), buttons };
  await box
    .locator('.dialog-buttons .monaco-button', { hasText: new RegExp(`^${click}$`) })
    .first()
    .click({ timeout: 5_000 });
  await box.waitFor({ state: 'hidden', timeout: 10_000 });
  return info;
}

/** Probe handlers: name → answer, computed here with the workbench page. */
const PROBES: Probes = {
  /** The notifications showing a message with `containing` (waits for one): their texts and the links drawn in them. */
  notificationLinks: async (page, arg) => {
    const containing = (arg as { containing: string }).containing;
    const toast = page.locator('.notification-list-item', { hasText: containing }).first();
    await toast.waitFor({ state: 'visible', timeout: 10_000 });
    const messages = (await page.locator('.notification-list-item-message').allTextContents()).map((s) => s.trim());
    const links = await page
      .locator('.notification-list-item-message a')
      .evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', href: e.getAttribute('href') ?? e.getAttribute('data-href') })));
    return { messages, links };
  },
  /** Whether the panel shows a terminal (an xterm) right now. */
  terminalPanel: async (page) => {
    await page
      .locator('.part.panel .xterm')
      .first()
      .waitFor({ state: 'visible', timeout: 5_000 })
      .catch(() => undefined);
    return {
      panelTerminalVisible: await page.locator('.part.panel .xterm').first().isVisible(),
      tabs: (await page.locator('.part.panel .terminal-tabs-entry, .part.panel .single-terminal-tab').allTextContents()).map((s) => s.trim()),
    };
  },
};

describe('vscode-tools', () => {
  let root = '';
  let workspace = '';
  let configDir = '';
  let server: CodeServer | undefined;
  /** Stops the server (the last test still needs it). */
  let stop: (() => Promise<void>) | undefined;
  let run: SuiteResult | undefined;
  let runError: Error | undefined;
  let results: Record<string, InnerResult> = {};
  const abs = (rel: string) => path.join(workspace, rel);

  /** The inner test's outcome; on failure the message carries its error, its data and the end of the inner log. */
  const expectInnerPassed = (key: string) => expectInner(key, results[key], () => innerFailureContext(results[key], run, runError));

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-tools-')));
    workspace = path.join(root, 'workspace');
    const home = path.join(root, 'home');
    configDir = path.join(root, 'config');
    const probeDir = path.join(root, 'probes');
    for (const d of [workspace, home, configDir, probeDir]) fs.mkdirSync(d);
    const resultsPath = path.join(root, 'results.json');
    // Nothing of the shell running the tests (its own claude/IDE setup) may leak into VS Code.
    const env = isolatedEnv({ HOME: home, CLAUDE_CONFIG_DIR: configDir, NC_TOOLS_RESULTS: resultsPath, NC_PROBE_DIR: probeDir });
    // The installed .vsix runs in Production mode: this lets tools-changes answer "Undo anyway?" by a
    // scripted argument (a window running extension tests refuses every dialog). SCRIPTED_ANSWERS_VARIABLE
    // in src/vscode/changes/claudeChanges.ts.
    env.NATIVE_CLAUDE_TEST_SCRIPTED_ANSWERS = '1';
    ({
      server,
      suite: run,
      suiteError: runError,
      results: results = {},
      stop,
    } = await runInnerSuite<Record<string, InnerResult>>({
      server: {
        workspace,
        vsixPaths: [vsix],
        env,
        // The test window's extension host ends (and deletes its lock file) 5 s after its browser left.
        extraArgs: ['--reconnection-grace-time', '5'],
        userSettings: {
          'git.enabled': false,
          'json.schemaDownload.enable': false,
          'files.autoSave': 'off',
          '[json]': { 'editor.formatOnSave': true, 'editor.defaultFormatter': 'vscode.json-language-features' },
          'terminal.integrated.defaultProfile.linux': 'bash',
          'terminal.integrated.shellIntegration.enabled': true,
          'nativeClaude.approvalMode': 'write-only',
        },
      },
      run: {
        files: process.env.NC_TOOLS_FILES?.split(',') ?? ['tools-'], // NC_TOOLS_FILES: only these inner files (a quicker run while working on them)
        timeout: 60_000,
        timeoutMs: 300_000,
        probeDir,
        probes: PROBES,
        screenshotOnProbeError: true,
        name: 'vscode-tools',
      },
      resultsPath,
      keepServer: true,
    }));
    if (process.env.NC_TOOLS_DEBUG)
      console.log(JSON.stringify({ exitCode: run?.exitCode, durationMs: run?.durationMs, results }, null, 2), '\n', run?.log.join('\n'));
  }, 420_000);

  afterAll(async () => {
    await stop?.();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('ran every inner test (none skipped or missing)', () => {
    expect({ exitCode: run?.exitCode, runError: runError?.message.slice(0, 3000) }).toMatchObject({ exitCode: expect.any(Number), runError: undefined });
    expect(Object.keys(results).sort()).toEqual(
      [
        'autosave',
        'changes-conflict',
        'changes-created-deleted',
        'changes-dirty',
        'changes-file',
        'changes-hunk',
        'changes-latin1',
        'changes-quickdiff',
        'custom-editor',
        'diagnostics',
        'diag-closed',
        'diag-ide-budget',
        'diag-moved',
        'diag-importer',
        'dirty-during-review',
        'encoding-autoguess',
        'encoding-cp1252-utf16',
        'encoding-latin1',
        'encoding-shiftjis',
        'encoding-utf8-default',
        'eol-bom-accept',
        'format-on-save',
        'keep-open',
        'link-swapped',
        'list',
        'merge-conflict',
        'merge-lenses',
        'merge-lenses-attacker',
        'merge-opendiff-accept',
        'merge-opendiff-reject',
        'merge-tools-accept',
        'merge-tools-reject',
        'new-diagnostics',
        'notification-link',
        'notebook-dirty',
        'notebook-opendiff',
        'notebook-write',
        'opendiff-dirty-during',
        'partial',
        'reject-close',
        'search',
        'search-invalid',
        'tab-close-race',
        'terminal-clean',
        'terminal-exit',
        'terminal-shell-exit',
        'terminal-timeout',
        'uri-no-content',
        'user-diff-survives',
      ].sort(),
    );
  });

  describe("Claude's changes (auto-accept: claude's baseline getDiagnostics, then its write on disk)", () => {
    it('two hunks: one undone from the quick diff peek, the other kept; bytes exact', () => {
      expectInnerPassed('changes-hunk');
      expect(fs.readFileSync(abs('changes-hunks.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\nfive\nsix\n');
    });
    it('a CRLF + BOM file without a final newline undone whole byte for byte, then redone, then kept', () => {
      expectInnerPassed('changes-file');
      expect(fs.readFileSync(abs('changes-crlf.txt')).toString('hex')).toBe(Buffer.from('\ufeffalpha\r\nBETA\r\ngamma\r\ndelta\r\n', 'utf8').toString('hex'));
    });
    it('Undo All: a created file is removed, a deleted one restored', () => {
      expectInnerPassed('changes-created-deleted');
      expect(fs.existsSync(abs('changes-brand-new.ts'))).toBe(false);
      expect(fs.readFileSync(abs('changes-doomed.txt'), 'utf8')).toBe('keep me\n');
    });
    it("a line the user edited after claude's is not undone without asking", () => {
      expectInnerPassed('changes-conflict');
      expect(fs.readFileSync(abs('changes-conflict.txt'), 'utf8')).toBe('a\nb\nc\n');
    });
    it('unsaved edits block an undo; nothing is lost', () => {
      expectInnerPassed('changes-dirty');
      expect(fs.readFileSync(abs('changes-dirty.txt'), 'utf8')).toBe('y\n');
    });
    it('the before-image opens read-only, in a diff against the file now', () => {
      expectInnerPassed('changes-quickdiff');
    });
    it("a Latin-1 file: the before-image in the file's encoding (no false hunk), its hunk undone, bytes exact", () => {
      expectInnerPassed('changes-latin1');
      expect(fs.readFileSync(abs('changes-latin1.txt')).toString('hex')).toBe(Buffer.from('café\nnaïve\nlast line\n', 'latin1').toString('hex'));
    });
  });

  describe("diagnostics that reflect the disk (VS Code's TypeScript server)", () => {
    const figures: Record<string, unknown> = {};
    afterAll(() => console.log(`diagnostics wait figures: ${JSON.stringify(figures, null, 2)}`));

    it('a closed file with a type error is reported by get_diagnostics', () => {
      const d = expectInnerPassed('diag-closed');
      figures.closed = { tsServerStartMs: d.tsServerStartMs, getDiagnosticsMs: d.ms };
    });

    it("the CLI's flow: baseline (uri) answers under 500 ms, the call after a write on disk answers under 2 s with the new problem", () => {
      const d = expectInnerPassed('diag-ide-budget');
      figures.ideRoute = {
        baselineMs: d.baselineMs,
        afterWriteMs: d.afterMs,
        problemsRightAfterWrite: d.problemsRightAfterWrite,
        fixedMs: d.fixedMs,
        cleanEditMs: d.cleanEditMs,
      };
      expect(d.problemsRightAfterWrite).toBe(0); // without the wait the CLI would have seen nothing
    });

    it('a problem that only moved is not new; the really new one is', () => {
      const d = expectInnerPassed('diag-moved');
      figures.moved = { msAfterAccept: d.msAfterAccept };
    });

    it('a broken importer in another file is a new problem', () => {
      const d = expectInnerPassed('diag-importer');
      figures.importer = { msAfterAccept: d.msAfterAccept, newDiagnostics: (d.answer as { new_diagnostics?: unknown }).new_diagnostics };
    });
  });

  describe('write_file / apply_diff review', () => {
    it('a new JSON file: diff tab on the proposal scheme, nothing on disk before acceptance; the user edit and format-on-save both land and are reported', () => {
      const d = expectInnerPassed('format-on-save');
      expect(d.answer).toMatchObject({ status: 'accepted', operation: 'created', path: 'data/new.json' });
      expect(d.tabLabel).toBe('✻ Claude proposes: data/new.json');
      expect(JSON.parse(fs.readFileSync(abs('data/new.json'), 'utf8'))).toEqual({ name: 'demo', reviewer: 'me', items: [1, 2, 3] });
    });

    it('closing the tab rejects: a CRLF+BOM file without final newline stays byte-identical; a rejected new file leaves no file and no folder', () => {
      expectInnerPassed('reject-close');
      expect(fs.readFileSync(abs('crlf-bom.txt'))).toEqual(Buffer.from('\uFEFFone\r\ntwo\r\nthree', 'utf8'));
      expect(fs.existsSync(abs('fresh'))).toBe(false);
    });

    it('a file name shaped like a command link is shown as text in the notification naming it, never as a link', () => {
      const d = expectInnerPassed('notification-link');
      expect(d.links).toEqual([]);
    });

    it('a folder or the file swapped for a link to outside during the review: the accepted write is refused, nothing lands outside', () => {
      const d = expectInnerPassed('link-swapped');
      expect(d.folderAnswer).toMatchObject({ error: expect.stringMatching(/symbolic link/), path: 'swap/new.txt' });
      expect(d.fileAnswer).toMatchObject({ error: expect.stringMatching(/symbolic link/), path: 'swapfile.txt' });
      expect(d.outsideNow).toEqual(['secret.txt']);
      expect(d.secret).toBe('outside\n');
    });

    it('an accepted apply_diff keeps BOM, CRLF and the missing final newline', () => {
      expectInnerPassed('eol-bom-accept');
      expect(fs.readFileSync(abs('crlf-bom-accept.txt'))).toEqual(Buffer.from('\uFEFFone\r\nTWO\r\nthree', 'utf8'));
    });

    it('apply_diff with one ambiguous block: partial, failed_blocks says why, the other block is applied', () => {
      const d = expectInnerPassed('partial');
      expect(d.answer).toMatchObject({
        status: 'accepted',
        partial: true,
        failed_blocks: [expect.objectContaining({ reason: expect.stringContaining('ambiguous (2 matches found)') })],
      });
      expect(fs.readFileSync(abs('partial.txt'), 'utf8')).toBe('ALPHA\ndup\nbeta\ndup\ngamma\n');
    });

    it('apply_diff over unsaved edits: a review of buffer ↔ merge; accept saves the merge, the editor ends clean', () => {
      expectInnerPassed('merge-tools-accept');
      expect(fs.readFileSync(abs('merge-accept.txt'), 'utf8')).toBe('one (typed, not saved)\ntwo\nthree\nfour\nfive\nSIX by claude\nseven\n');
    });

    it('write_file over unsaved edits, rejected: the buffer keeps the typing and stays dirty, the file is untouched', () => {
      expectInnerPassed('merge-tools-reject');
      expect(fs.readFileSync(abs('merge-reject.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\nfive\nsix\nseven\n');
    });

    it("the CLI's openDiff over unsaved edits: FILE_SAVED answers the merge; after claude's write the editor is clean, undo brings the typing back", () => {
      expectInnerPassed('merge-opendiff-accept');
    });

    it("the CLI's openDiff over unsaved edits, rejected: DIFF_REJECTED, buffer as it was and dirty, file untouched", () => {
      expectInnerPassed('merge-opendiff-reject');
      expect(fs.readFileSync(abs('merge-cli-reject.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\nfive\nsix\nseven\n');
    });

    it('overlapping edits: conflict markers; an accept with markers left is refused; resolved, accepted', () => {
      expectInnerPassed('merge-conflict');
    });

    it("a conflict's lenses in the review (Keep Your Edits / Keep Claude's Change / Keep Both) resolve it; VS Code's own merge lenses do not reach the review", () => {
      expectInnerPassed('merge-lenses');
    });

    it("the lenses' command called by anyone on a real file, or with a made-up side, changes nothing", () => {
      expectInnerPassed('merge-lenses-attacker');
      expect(fs.readFileSync(abs('markers-on-disk.txt'), 'utf8')).toContain('<<<<<<< your unsaved edits');
    });

    it('nativeClaude.keepAcceptedFileOpen keeps the accepted file in a normal tab', () => {
      expectInnerPassed('keep-open');
    });

    it("an accepted write that breaks the file reports the language server's new problem in new_diagnostics", () => {
      const d = expectInnerPassed('new-diagnostics');
      expect(d.answer).toMatchObject({ status: 'accepted', new_diagnostics: [expect.stringMatching(/^\[Error\] conf\.jsonc:1:\d+ — Value expected/)] });
    });

    // Regression (found here): the dirty check ran only when the proposal arrived, so typing into the
    // real file while its review was open, then accepting, overwrote that unsaved text (trap 5).
    it("the user's unsaved typing in the real file during an open review is not lost on accept", () => {
      const d = expectInnerPassed('dirty-during-review');
      expect(d.answer).toMatchObject({ error: expect.stringMatching(/edited in VS Code while the review was open/) });
      expect(d.onDisk).toBe('one\n');
    });

    // Regression (found here): 50 ms after ANY tab closed, every pending review whose tab was not open
    // yet was rejected, so a proposal arriving just after a tab closed was settled unseen.
    it('a tab closed just before a proposal arrives does not reject the new review', () => {
      expectInnerPassed('tab-close-race');
    });

    it('auto-save after 200 ms does not put an edited proposal on disk, nor accept it', () => {
      const d = expectInnerPassed('autosave');
      expect(d.stateAfter2s).toBe('pending');
      expect(fs.readFileSync(abs('autosave.txt'), 'utf8')).toBe('one\ntwo\n');
    });
  });

  describe("files in their own encoding (VS Code's files.encoding, workspace.decode/encode)", () => {
    const latin1 = Buffer.concat([Buffer.from('636166e90a6e61ef76650a', 'hex'), Buffer.from('the end\n')]);

    it('Latin-1 (files.encoding iso88591): read_file shows café; apply_diff of the last line changes no other byte; € is refused, from the model and typed into the review', () => {
      const d = expectInnerPassed('encoding-latin1');
      expect(d.read).toBe('1 | café\n2 | naïve\n3 | last line\ntotal_lines: 3');
      expect(fs.readFileSync(abs('legacy.txt'))).toEqual(latin1);
    });

    it('Shift JIS (files.encoding for the bat language): read_file shows the Japanese; apply_diff of the last line changes no other byte; € is refused', () => {
      const d = expectInnerPassed('encoding-shiftjis');
      expect(d.documentEncoding).toBe('shiftjis');
      expect(fs.readFileSync(abs('legacy.bat')).toString('hex')).toBe(
        '6563686f2082b182f182c982bf82cd0d0a72656d2093fa967b8cea20955c8ea60d0a65786974202f6220310d0a',
      );
    });

    it('files.autoGuessEncoding: a Shift JIS file VS Code guesses is read and edited in Shift JIS', () => {
      expectInnerPassed('encoding-autoguess');
      expect(fs.readFileSync(abs('guessed.txt'))).toEqual(fs.readFileSync(abs('legacy.bat')));
    });

    it('Windows-1252 and UTF-16 LE (BOM): read_file shows the characters, apply_diff of the last line changes no other byte', () => {
      expectInnerPassed('encoding-cp1252-utf16');
      expect(fs.readFileSync(abs('prices.txt')).toString('hex')).toBe(Buffer.from('price: 5 \x80\nthe end\n', 'latin1').toString('hex'));
    });

    it('a Latin-1 file read as UTF-8 (the default): a change is refused before any review, the file unchanged', () => {
      expectInnerPassed('encoding-utf8-default');
      expect(fs.readFileSync(abs('legacy-default.txt'))).toEqual(Buffer.concat([latin1.subarray(0, 11), Buffer.from('last line\n')]));
    });
  });

  describe('review diff edges (docs/vscode-traps.md, traps 5, 8, 9, 11)', () => {
    // Regression (found here): VS Code opened the review of an .ipynb in its notebook diff editor, whose
    // tab the review did not know: no text to accept, and the review failed after 5 s with its tab left open.
    it('write_file of a notebook is reviewed as its JSON text in a text diff, and accepting writes it', () => {
      expectInnerPassed('notebook-write');
      expect(fs.readFileSync(abs('nb.ipynb'), 'utf8')).toMatch(/print\(2\)/);
    });

    it('openDiff of a notebook is a text diff too; closing it answers DIFF_REJECTED', () => {
      expectInnerPassed('notebook-opendiff');
    });

    it('a Markdown file associated to the preview (a custom editor) is still reviewed in a text diff', () => {
      expectInnerPassed('custom-editor');
      expect(fs.readFileSync(abs('notes.md'), 'utf8')).toBe('# Notes\n\ntwo\n');
    });

    it('a notebook with unsaved edits in the notebook editor is refused like a text file', () => {
      expectInnerPassed('notebook-dirty');
    });

    it("typing into the real file during an openDiff review, then accepting: the CLI's write leaves the unsaved typing in the buffer", () => {
      expectInnerPassed('opendiff-dirty-during');
    });

    it('a 1 MB proposal travels in no URI: both sides are short scheme:/<id>/<name> URIs', () => {
      const d = expectInnerPassed('uri-no-content');
      expect(d.longest).toBeLessThan(500);
    });

    it("closeAllDiffTabs closes the review only; the user's own diffs (files, a git-like one of the same file) stay", () => {
      const d = expectInnerPassed('user-diff-survives');
      expect(d).toMatchObject({ closed: 'CLOSED_1_DIFF_TABS', answer: 'TAB_CLOSED' });
    });
  });

  describe('execute_command', () => {
    it('output and exit code (3) in a new, visible terminal; no escape sequences', () => {
      expectInnerPassed('terminal-exit');
    });

    it('colours stripped, idle terminal reused per folder, PAGER=cat and NATIVE_CLAUDE_PORT in its environment', () => {
      expectInnerPassed('terminal-clean');
    });

    it('timeout returns early saying the command still runs; a busy terminal is not reused', () => {
      expectInnerPassed('terminal-timeout');
    });

    it('a command that ends the shell: output so far, exit code null (unknown), terminal gone', () => {
      expectInnerPassed('terminal-shell-exit');
    });
  });

  describe('search, list, diagnostics', () => {
    it("search_files finds matches with VS Code's own ripgrep, grouped with line numbers", () => {
      const d = expectInnerPassed('search');
      expect(d.rgExists).toBe(true);
    });

    it('an invalid regex gives a clear error', () => {
      expectInnerPassed('search-invalid');
    });

    it('list_files honours .gitignore', () => {
      expectInnerPassed('list');
    });

    it("get_diagnostics reports the JSON language server's syntax error", () => {
      expectInnerPassed('diagnostics');
    });
  });

  describe('execute_command with approvalMode "always" (a plain window, the modal clicked with Playwright)', () => {
    it('the modal shows the command (direction-changing characters written out); nothing runs before the answer; Run runs it, Reject does not', async () => {
      expect(server).toBeDefined();
      const srv = server!;
      const settingsFile = path.join(srv.userDataDir, 'User', 'settings.json');
      const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
      fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, 'nativeClaude.approvalMode': 'always' }, null, 2));
      const lockDir = path.join(configDir, 'ide');
      const openedAt = Date.now();
      const wb = await openWorkbench(srv, workspace);
      let client: Client | undefined;
      try {
        // This window's lock file: written (atomically, so with a fresh mtime) after the window opened.
        let lock: { port: number; authToken: string } | undefined;
        const deadline = Date.now() + 60_000;
        while (!lock && Date.now() < deadline) {
          for (const f of fs.existsSync(lockDir) ? fs.readdirSync(lockDir).filter((n) => /^\d+\.lock$/.test(n)) : []) {
            const file = path.join(lockDir, f);
            const stat = fs.statSync(file, { throwIfNoEntry: false });
            if (stat && stat.mtimeMs >= openedAt) lock = { port: Number(f.slice(0, -5)), authToken: JSON.parse(fs.readFileSync(file, 'utf8')).authToken };
          }
          if (!lock) await new Promise((r) => setTimeout(r, 200));
        }
        expect({ lockFileWritten: !!lock, console: lock ? [] : wb.console().slice(-20) }).toEqual({ lockFileWritten: true, console: [] });
        client = new Client({ name: 'native-claude-tools-test', version: '0.0.0' });
        await client.connect(new HeaderWebSocketClientTransport(`ws://127.0.0.1:${lock!.port}/tools`, { 'x-claude-code-ide-authorization': lock!.authToken }));
        const call = (command: string) =>
          client!.callTool({ name: 'execute_command', arguments: { command } }, undefined, { timeout: 60_000 }).then((r) => {
            const text = (r as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');
            return { isError: r.isError === true, text, json: JSON.parse(text) as Record<string, unknown> };
          });

        await screenshotOnFailure(wb.page, 'vscode-tools-approval', async () => {
          const approved = path.join(workspace, 'approved-ran.txt');
          const running = call(`echo approved-run | tee ${JSON.stringify(approved)}`);
          // Asked first: nothing has run while the modal is up.
          expect(await stateAfter(running, 1500)).toBe('pending');
          expect(fs.existsSync(approved)).toBe(false);
          const dialog = await answerDialog(wb.page, 'Run');
          expect(dialog).toEqual({
            message: 'Claude wants to run a command in the terminal',
            detail: expect.stringContaining('echo approved-run'),
            buttons: expect.arrayContaining(['Run', 'Reject']),
          });
          const ran = await running;
          expect(ran).toMatchObject({ isError: false, json: { exit_code: 0, output_captured: true } });
          expect(String(ran.json.output).trim()).toBe('approved-run');
          expect(fs.readFileSync(approved, 'utf8')).toBe('approved-run\n');

          const rejectedMarker = path.join(workspace, 'rejected-ran.txt');
          // With a right-to-left override after `#` (Trojan Source): the dialog writes it out and says why.
          const rejecting = call(`echo ran > ${JSON.stringify(rejectedMarker)} # \u202E;)"txt.selif"(evomer`);
          const asked = await answerDialog(wb.page, 'Reject');
          expect(asked.detail).toContain('# ⟦U+202E⟧;)"txt.selif"(evomer');
          expect(asked.detail).toContain('invisible or direction-changing characters');
          const rejected = await rejecting;
          expect(rejected).toMatchObject({ isError: false, json: { status: 'rejected', command: expect.stringContaining('rejected-ran.txt') } });
          await new Promise((r) => setTimeout(r, 1000));
          expect(fs.existsSync(rejectedMarker)).toBe(false);
        });
      } finally {
        await client?.close();
        await wb.close();
      }
    }, 150_000);
  });
});
