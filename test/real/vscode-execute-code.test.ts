/**
 * executeCode in real VS Code (code-server 4.139.1, the packaged extension) with a real kernel: the
 * test-only python kernel extension (test/vscode/python-kernel; the Jupyter extension cannot be
 * installed here) is the notebook's controller, one persistent python3 process per notebook.
 *
 * 1. test/vscode/suites/notebook-execute.test.ts calls the tool over the IDE route with the MCP SDK's
 *    client (approvalMode "never"): state across calls, errors, images, the user editing the notebook,
 *    cancellation, the kernel dying, no kernel, the notebook closed, no notebook; and 20 calls whose
 *    overhead the extension logs (printed here as p50/p90).
 * 2. test/vscode/suites/notebook-with-claude.test.ts: the real claude (2.1.328, or the CLI matrix's) in
 *    the integrated terminal, driven by the scripted fake model here: `x = 6 * 7; print(x)` → 42,
 *    `print(x + 1)` → 43, `1/0` → ZeroDivisionError, a PNG → an image in the model's next request, a
 *    refusal (Don't Run), a cancellation (Esc in claude). The user's Run / Don't Run is clicked here, in
 *    the workbench, through a probe (the inner suite cannot click a notification).
 *
 *   npx jest --selectProjects real --runInBand -- test/real/vscode-execute-code.test.ts
 * NC_EXEC_SCREENSHOTS=<dir> saves the question and a result as PNGs there (README pictures).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { runClaudeInnerSuite } from './harness/claudeInnerSuite';
import { codeServerAvailable, compileInnerSuites, PYTHON_KERNEL_EXTENSION_PATH, type Probes, type SuiteResult } from './harness/codeServer';
import { freshMessages, startFakeModel, textOf, type FakeModel, type MessagesRequest, type Reply } from './harness/fakeModel';
import { prepareIntegratedClaude } from './harness/integratedClaude';
import { CLAUDE_VERSION, cliAtLeast } from './harness/claudeCli';
import { expectInnerPassed as expectInner, innerFailureContext, type InnerResult } from './harness/innerResults';
import { ensureVsix } from './harness/vsix';
import { clickNotificationButton, findNotification, notificationContent } from './harness/workbenchUi';

const NOTEBOOK_JSON = {
  cells: [
    { cell_type: 'markdown', metadata: {}, source: ['# Analysis'] },
    { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: ['import math'] },
  ],
  metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
};

/** The model's calls, in order (each after the previous one's result). */
const STEPS: Array<{ name: string; input: Record<string, unknown> }> = [
  // 2.1 defers the IDE's tools behind ToolSearch; before 2.1 the model has the tool at once (and a
  // ToolSearch call would only be answered "no such tool"), so the first step is a harmless Read there.
  cliAtLeast('2.1.0')
    ? { name: 'ToolSearch', input: { query: 'select:mcp__ide__executeCode', max_results: 1 } }
    : { name: 'Read', input: { file_path: 'data.csv' } },
  { name: 'mcp__ide__executeCode', input: { code: 'x = 6 * 7; print(x)' } },
  { name: 'mcp__ide__executeCode', input: { code: 'print(x + 1)' } },
  { name: 'mcp__ide__executeCode', input: { code: '1/0' } },
  { name: 'mcp__ide__executeCode', input: { code: 'display_png(png_bytes())' } },
  { name: 'mcp__ide__executeCode', input: { code: "import os; os.remove('data.csv')" } },
  { name: 'mcp__ide__executeCode', input: { code: 'import time; time.sleep(60)' } },
];
const id = (i: number) => `toolu_nc_exec_${i}`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

describe(`vscode-execute-code (claude ${CLAUDE_VERSION})`, () => {
  let root = '';
  let workspace = '';
  let model: FakeModel;
  let run: SuiteResult | undefined;
  let runError: Error | undefined;
  let results: Record<string, InnerResult> = {};
  let extensionLog = '';
  const shots = process.env.NC_EXEC_SCREENSHOTS;

  const expectInnerPassed = (key: string) => expectInner(key, results[key], () => innerFailureContext(results[key], run, runError));

  /** Clicks `button` on the executeCode question whose text contains `contains`; answers what it showed. */
  const PROBES: Probes = {
    notification: async (page: Page, arg: unknown) => {
      const { button, contains } = arg as { button: string; contains: string };
      const toast = await findNotification(page, contains);
      const { message, buttons } = await notificationContent(toast);
      if (shots && contains === 'display_png(png_bytes())') await page.screenshot({ path: path.join(shots, 'execute-code-question.png') });
      await clickNotificationButton(toast, button);
      await toast.waitFor({ state: 'hidden', timeout: 10_000 });
      if (shots && contains === 'time.sleep(60)') {
        await page.waitForTimeout(500);
        await page.screenshot({ path: path.join(shots, 'execute-code-result.png') });
      }
      return { message, buttons };
    },
  };

  beforeAll(async () => {
    if (!codeServerAvailable()) throw new Error('code-server/chromium missing: run test/setup/install-real-clients.sh');
    const [vsix] = await Promise.all([ensureVsix(), compileInnerSuites()]);
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-exec-')));
    workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    const notebook = path.join(workspace, 'analysis.ipynb');
    fs.writeFileSync(notebook, JSON.stringify(NOTEBOOK_JSON, null, 1) + '\n');
    fs.writeFileSync(path.join(workspace, 'data.csv'), 'a,b\n1,2\n');
    const resultsPath = path.join(root, 'results.json');
    model = await startFakeModel();
    model.respond(
      ...Array.from({ length: 30 }, () => (request: MessagesRequest): Reply => {
        const fresh = freshMessages(request);
        if (fresh.some((m) => m.role === 'user' && textOf(m).includes('finish'))) return { text: 'done notebook' };
        if (fresh.some((m) => m.role === 'user' && textOf(m).includes('scenario:notebook'))) return { toolUse: { ...STEPS[0], id: id(0) } };
        const done = (request.messages ?? []).flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'tool_result').length;
        if (done > 0 && done < STEPS.length) return { toolUse: { ...STEPS[done], id: id(done) } };
        return { text: 'ok' };
      }),
    );
    const ic = prepareIntegratedClaude({
      workspace,
      modelUrl: model.url,
      env: { NC_TOOLS_RESULTS: resultsPath, NC_EXEC_NOTEBOOK: notebook, NC_EXEC_CLAUDE: workspace },
    });
    // claude's own permission prompt for the model's IDE tools is not what this test is about: allowed up front.
    const settingsPath = path.join(ic.configDir, 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsPath, 'utf8')) as { permissions?: { allow?: string[] } };
    settings.permissions = { ...settings.permissions, allow: [...(settings.permissions?.allow ?? []), 'mcp__ide__executeCode'] };
    fs.writeFileSync(settingsPath, JSON.stringify(settings, null, 2));
    if (shots) fs.mkdirSync(shots, { recursive: true });
    const inner = await runClaudeInnerSuite<Record<string, InnerResult>>({
      ic,
      model,
      server: {
        workspace,
        vsixPaths: [vsix],
        userSettings: {
          'git.enabled': false,
          'files.autoSave': 'off',
          'terminal.integrated.defaultProfile.linux': 'bash',
          'terminal.integrated.shellIntegration.enabled': true,
          'nativeClaude.approvalMode': 'never',
          'workbench.startupEditor': 'none',
        },
      },
      run: {
        files: ['notebook-'],
        extraDevelopmentPaths: [PYTHON_KERNEL_EXTENSION_PATH],
        timeout: 180_000,
        timeoutMs: 420_000,
        probeDir: ic.probeDir,
        probes: PROBES,
        screenshotOnProbeError: true,
        name: 'vscode-execute-code',
      },
      resultsPath,
    });
    ({ suite: run, suiteError: runError, extensionLog } = inner);
    results = inner.results ?? {};
    if (process.env.NC_EXEC_DEBUG)
      console.log(JSON.stringify({ exitCode: run?.exitCode, results }, null, 2), '\n', run?.log.slice(-80).join('\n'), '\n', extensionLog.slice(-5000));
  }, 600_000);

  afterAll(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('ran every inner test (none skipped or missing)', () => {
    expect({ exitCode: run?.exitCode, runError: runError?.message.slice(0, 3000) }).toMatchObject({ exitCode: expect.any(Number), runError: undefined });
    expect(Object.keys(results).sort()).toEqual(
      ['claude', 'nb-cancel', 'nb-closed', 'nb-died', 'nb-edit', 'nb-error', 'nb-image', 'nb-list', 'nb-nokernel', 'nb-none', 'nb-overhead', 'nb-state'].sort(),
    );
  });

  describe('direct calls over the IDE route', () => {
    for (const key of ['nb-list', 'nb-state', 'nb-error', 'nb-image', 'nb-edit', 'nb-cancel', 'nb-died', 'nb-nokernel', 'nb-closed', 'nb-none']) {
      it(key, () => {
        const data = expectInnerPassed(key);
        console.log(`${key}: ${JSON.stringify(data)}`);
      });
    }

    it('nb-overhead: p50/p90 of what the extension adds to a call (printed)', () => {
      const data = expectInnerPassed('nb-overhead') as { callMs: number[]; cells: number[] };
      const lines = data.cells.map((cell) =>
        new RegExp(
          `executeCode in cell ${cell} of analysis\\.ipynb: finished; overhead (\\d+) ms from the call to the cell running \\((\\d+) ms to hand it over\\), (\\d+) ms from its end to the answer; the kernel ran it in (\\d+) ms`,
        ).exec(extensionLog),
      );
      expect(lines.filter((l) => !l).length).toBe(0);
      const column = (i: number) => lines.map((l) => Number(l![i]));
      const [toRunning, toHandOver, afterEnd, kernel] = [column(1), column(2), column(3), column(4)];
      const stats = (values: number[]) => ({ p50: percentile(values, 50), p90: percentile(values, 90) });
      const figures = {
        calls: lines.length,
        callToCellRunningMs: stats(toRunning),
        ofWhichToHandOverMs: stats(toHandOver),
        kernelEndToAnswerMs: stats(afterEnd),
        kernelRunMs: stats(kernel),
        wholeCallAtClientMs: stats(data.callMs),
      };
      console.log(`executeCode overhead over 20 calls of \`pass\`: ${JSON.stringify(figures)}`);
      expect(lines.length).toBe(20);
    });
  });

  describe('with claude in the terminal', () => {
    it("the inner scenario passed (Run clicked four times, Don't Run once, Run + Esc once)", () => {
      const data = expectInnerPassed('claude') as { asked: Array<{ message: string; buttons: string[] }> };
      console.log(`claude: ${JSON.stringify(data)}`);
      expect(data.asked[0].message).toContain('x = 6 * 7; print(x)');
      expect(data.asked[0].message).toContain('analysis.ipynb');
      expect(data.asked[0].buttons).toEqual(['Run', "Don't Run"]);
    });

    it('42, then 43 (state persists), then ZeroDivisionError', () => {
      const answers = [1, 2, 3].map((i) => model.toolResultText(id(i)));
      console.log(`answers: ${JSON.stringify(answers)}`);
      expect(answers[0]).toMatch(/^42\n/);
      expect(answers[1]).toMatch(/^43\n/);
      expect(answers[2]).toMatch(/^ZeroDivisionError: division by zero\n[\s\S]*The code raised an error \(above\)/);
      expect(answers[2]).not.toContain('\u001b');
    });

    it('the PNG is an image item in the next model request', () => {
      const request = model.mainRequests.find((r) =>
        freshMessages(r).some((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === id(4))),
      );
      expect(request).toBeDefined();
      const result = freshMessages(request!)
        .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
        .find((b) => b.tool_use_id === id(4))!;
      const blocks = Array.isArray(result.content) ? result.content : [];
      console.log(`image answer: ${JSON.stringify(blocks).slice(0, 300)}`);
      expect(blocks.find((b) => b.type === 'image')).toMatchObject({ source: { type: 'base64', media_type: 'image/png' } });
    });

    it("Don't Run: the model is told to ask the user; the file is still there", () => {
      const text = model.toolResultText(id(5));
      console.log(`refusal: ${text}`);
      expect(text).toMatch(/The user chose not to run this code in analysis\.ipynb\. Do not run it again as it is; ask the user how they want to proceed\./);
      expect(fs.existsSync(path.join(workspace, 'data.csv'))).toBe(true);
    });

    it('Esc in claude interrupts the running cell (the model got no result of it, or an interrupted one)', () => {
      const text = model.toolResultText(id(6));
      console.log(`cancelled call's result as the model saw it: ${JSON.stringify(text)}`);
      const data = results.claude?.data as { interruptedMs?: number };
      console.log(`interrupted ${data?.interruptedMs} ms after Esc`);
      expect(text ?? '').not.toMatch(/Ran in cell/);
    });
  });
});
