/**
 * The first-run walkthrough in real VS Code: it opens with its five steps, and each step ticks itself off
 * when the user has done the thing (the workbench's own checkmarks, read from the page by the outer test's
 * `walkthrough` probe). The inner half of test/real/vscode-walkthrough.test.ts; claude's side of the IDE
 * connection is the SDK's real Client on the IDE route, announcing itself with `ide_connected` as the CLI does.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeaderWebSocketClientTransport } from '../../support/wsClientTransport';
import { after, before, describe, it } from '../bdd';
import { AUTH_HEADER, proposalTabs, record, recordOutcomes, toolsRunActive, workspaceRoot, type NativeClaudeApi } from '../toolsClient';
import { EXTENSION_ID, installedExtension, probe, waitFor } from '../util';

const WALKTHROUGH = `${EXTENSION_ID}#nativeClaude.firstRun`;

interface WalkthroughStep {
  id: string;
  title: string;
  checked: boolean;
}
interface WalkthroughPage {
  title: string;
  steps: WalkthroughStep[];
}

const page = () => probe<WalkthroughPage>('walkthrough', undefined, 15_000);
const checked = async () => Object.fromEntries((await page()).steps.map((s) => [s.id.split('#').pop()!, s.checked]));

/** Brings the walkthrough to the front (a review tab may cover it) and waits until `step` shows its checkmark. */
async function waitChecked(step: string, timeoutMs = 15_000): Promise<Record<string, boolean>> {
  let last: Record<string, boolean> = {};
  try {
    return await waitFor(
      `walkthrough step ${step} to be checked`,
      async () => {
        await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
        last = await checked();
        return last[step] ? last : undefined;
      },
      timeoutMs,
      500,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen ${JSON.stringify(last)}`, { cause: e });
  }
}

describe('first-run walkthrough', function () {
  this.timeout(60_000);
  recordOutcomes();
  let api: NativeClaudeApi;
  let client: Client | undefined;

  before(async function () {
    if (!toolsRunActive()) this.skip();
    api = (await installedExtension<NativeClaudeApi>()).exports;
    await waitFor('the IDE server to run', () => api.status().running, 30_000);
  });

  after(async () => {
    await client?.close().catch(() => undefined);
  });

  it('[shown] opens from the command with its five steps, none done yet (claude is not on PATH)', async () => {
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
    const shown = await waitFor('the walkthrough page', async () => ((await page()).steps.length > 0 ? page() : undefined), 20_000, 500);
    record('shown', { page: shown });
    const declared = (await installedExtension()).packageJSON.contributes.walkthroughs[0];
    assert.strictEqual(shown.title, declared.title);
    assert.deepStrictEqual(
      shown.steps.map((s) => s.title),
      declared.steps.map((s: { title: string }) => s.title),
    );
    assert.deepStrictEqual(
      shown.steps.map((s) => s.checked),
      [false, false, false, false, false],
    );
  });

  it('[findClaude] completes when nativeClaude.claudeCommand names an executable, and Check Setup finds the same one', async () => {
    // `~/.local/bin/claude`, the example in the setting's description: the walkthrough used to tick
    // while Check Setup said claude was not found (only one of them expanded `~`).
    const setting = process.env.NC_WALKTHROUGH_CLAUDE!;
    const fakeClaude = path.join(os.homedir(), setting.replace(/^~\//, ''));
    assert.ok(setting.startsWith('~/') && fs.existsSync(fakeClaude), 'the outer test made an executable claude under ~');
    await vscode.workspace.getConfiguration('nativeClaude').update('claudeCommand', setting, vscode.ConfigurationTarget.Global);
    const state = await waitChecked('findClaude');
    const report = await vscode.commands.executeCommand<{ sections: Array<{ findings: Array<{ id: string; title: string; detail?: string[] }> }> }>(
      'nativeClaude.checkSetup',
    );
    const cli = report.sections.flatMap((s) => s.findings).filter((f) => f.id.startsWith('cli.'));
    record('findClaude', { state, cli });
    assert.deepStrictEqual(state, { findClaude: true, runClaude: false, seeConnection: false, tryReview: false, enableTools: false });
    // Found where the walkthrough found it, and run (not "not on the PATH"). The stand-in answers
    // `--version` with no version (so enabling the tools later edits the file, not `claude mcp`).
    assert.strictEqual(cli.length, 1);
    assert.notStrictEqual(cli[0].id, 'cli.notFound', cli[0].title);
    assert.strictEqual(cli[0].detail?.[0], fakeClaude);
  });

  it('[connected] a claude session connecting completes "run claude" and "see the connection"', async () => {
    const lock = JSON.parse(fs.readFileSync(api.status().lockFilePath!, 'utf8')) as { authToken: string };
    client = new Client({ name: 'walkthrough-test', version: '0.0.0' });
    await client.connect(new HeaderWebSocketClientTransport(`ws://127.0.0.1:${api.status().port}/`, { [AUTH_HEADER]: lock.authToken }));
    await client.notification({ method: 'ide_connected', params: { pid: process.pid } });
    await waitFor('the session to count', () => api.status().sessionCount === 1, 10_000);
    await waitChecked('runClaude');
    const state = await waitChecked('seeConnection');
    record('connected', { state });
    assert.deepStrictEqual(state, { findClaude: true, runClaude: true, seeConnection: true, tryReview: false, enableTools: false });
  });

  it('[tryReview] a review diff opening completes "try a review"', async () => {
    const file = path.join(workspaceRoot(), 'walkthrough.txt');
    fs.writeFileSync(file, 'before\n');
    const answer = client!.callTool(
      {
        name: 'openDiff',
        arguments: { old_file_path: file, new_file_path: file, new_file_contents: 'after\n', tab_name: '✻ [Claude Code] walkthrough.txt ⧉' },
      },
      undefined,
      { timeout: 60_000 },
    );
    const review = await waitFor('the review tab', () => proposalTabs()[0], 15_000);
    const state = await waitChecked('tryReview');
    record('tryReview', { state });
    // Closing the tab rejects; the file stays as it was.
    await vscode.window.tabGroups.close(review.tab);
    const result = (await answer) as { content: Array<{ type: string; text?: string }> };
    record('tryReview', { answer: result.content.map((c) => c.text) });
    assert.strictEqual(fs.readFileSync(file, 'utf8'), 'before\n');
    assert.deepStrictEqual(state, { findClaude: true, runClaude: true, seeConnection: true, tryReview: true, enableTools: false });
  });

  it('[enableTools] enabling the tools completes the last step, and the entry is in the CLI config', async () => {
    await vscode.commands.executeCommand('nativeClaude.enableTools');
    const state = await waitChecked('enableTools');
    record('enableTools', { state });
    const config = JSON.parse(fs.readFileSync(path.join(process.env.CLAUDE_CONFIG_DIR!, '.claude.json'), 'utf8')) as { mcpServers?: Record<string, unknown> };
    assert.ok(config.mcpServers?.vscode, 'the vscode entry was written');
    assert.deepStrictEqual(state, { findClaude: true, runClaude: true, seeConnection: true, tryReview: true, enableTools: true });
  });
});
