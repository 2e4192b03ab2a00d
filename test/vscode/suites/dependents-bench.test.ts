/**
 * The inner half of bench/dependents.real.ts: in one window on a ~300-file TypeScript project, for each
 * changed module (an exported function used by several closed files), as claude and its model would:
 *   1. claude's baseline `getDiagnostics {uri}` of the module (the IDE route, no tool_use id: claude's own);
 *   2. the module written on disk (claude's Write in accept-edits mode): its function now takes one argument;
 *   3. claude's `getDiagnostics {}` (its own call after its write, within its 2 s);
 *   4. raw: one caller (never opened before) opened by hand, timed until TypeScript reports its error;
 *      then its editor is closed again;
 *   5. the model's `getDiagnostics {}` (marked with a tool_use id): finds the files that use the module,
 *      loads and waits for them; its answer should name every caller's new error;
 *   6. raw: `vscode.executeReferenceProvider` on the changed export (TypeScript warm from step 5).
 * Times in ms, written to the spec's results file; the outer bench prints the rows. Runs only with
 * $NC_DEPENDENTS_BENCH.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import * as vscode from 'vscode';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, it } from '../bdd';
import { ideRoute } from '../toolsClient';
import { sleep, waitFor } from '../util';

interface Spec {
  results: string;
  /** One per sample: the module changed, its new text, the files that call it. */
  changes: Array<{ module: string; newText: string; exportName: string; callers: string[] }>;
  /** The caller's error after the change (TypeScript's message). */
  callerError: string;
  /** The first change waits until this long after the suite's start (0: at once, the window's first seconds). */
  firstChangeAfterMs: number;
}

const SPEC_PATH = process.env.NC_DEPENDENTS_BENCH;
/** A folder for CPU profiles of this extension host (claude's two calls of the first two changes); $BENCH_CPU_PROF of the outer bench. */
const PROFILE_DIR = process.env.NC_DEPENDENTS_BENCH_CPU_PROF;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;

const textOf = (result: CallToolResult) => result.content.filter((c) => c.type === 'text').map((c) => (c.type === 'text' ? c.text : ''));
const hasError = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).some((d) => d.message === spec!.callerError);
const tabPaths = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input as { uri?: vscode.Uri } | undefined)?.uri?.fsPath ?? '');

describe('dependents bench: the extra work of checking the files that use a changed export', function () {
  this.timeout(900_000);

  it('measures each change', async function () {
    if (!spec) this.skip();
    // Every time this thread was held ≥ 100 ms, from the suite's start (the window open, the extension
    // active): a 10 ms heartbeat that fires late by the time it was held. Whose work held it is not known
    // here; the CPU profiles ($BENCH_CPU_PROF) say that.
    const suiteStart = performance.now();
    const blocks: Array<{ atMs: number; heldMs: number }> = [];
    let lastBeat = performance.now();
    const heartbeat = setInterval(() => {
      const now = performance.now();
      if (now - lastBeat >= 110) blocks.push({ atMs: Math.round(lastBeat - suiteStart), heldMs: Math.round(now - lastBeat - 10) });
      lastBeat = now;
    }, 10);
    const ide = await ideRoute();
    // How long this thread (the extension host: the product, VS Code's TypeScript client, this suite) was blocked during a call.
    const lag = monitorEventLoopDelay({ resolution: 10 });
    const call = async (args: Record<string, unknown>, toolUseId?: string) => {
      lag.reset();
      lag.enable();
      const started = performance.now();
      const result = await ide.client.callTool(
        { name: 'getDiagnostics', arguments: args, ...(toolUseId ? { _meta: { 'claudecode/toolUseId': toolUseId } } : {}) },
        undefined,
        { timeout: 120_000 },
      );
      const ms = performance.now() - started;
      lag.disable();
      return { ms, texts: textOf(result as CallToolResult), maxLagMs: lag.max / 1e6 };
    };
    const session = PROFILE_DIR ? new inspector.Session() : undefined;
    const post = (method: string, params?: object) =>
      new Promise<unknown>((resolve, reject) => session!.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
    if (session) {
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
    }
    const samples: Array<Record<string, unknown>> = [];
    try {
      await sleep(spec.firstChangeAfterMs - (performance.now() - suiteStart));
      for (const [n, change] of spec.changes.entries()) {
        const moduleUri = vscode.Uri.file(change.module);
        if (session && n < 2) await post('Profiler.start');
        const baselineAtMs = performance.now() - suiteStart;
        const baseline = await call({ uri: moduleUri.toString() });
        fs.writeFileSync(change.module, change.newText);
        const claudes = await call({});
        if (session && n < 2) {
          const { profile } = (await post('Profiler.stop')) as { profile: unknown };
          fs.writeFileSync(path.join(PROFILE_DIR!, `change${n + 1}.cpuprofile`), JSON.stringify(profile));
        }

        // Raw: one caller opened by hand (never opened before in this window), until TypeScript reports its error.
        const caller = vscode.Uri.file(change.callers[0]);
        let started = performance.now();
        await vscode.window.showTextDocument(caller, { preview: true });
        await waitFor("TypeScript's report of the caller's error", () => hasError(caller), 30_000, 10);
        const byHandMs = performance.now() - started;
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

        const model = await call({}, `toolu_bench_${n}`);
        const entries = JSON.parse(model.texts[0]) as Array<{ uri: string; diagnostics: Array<{ message: string }> }>;
        const named = change.callers.filter((c) => entries.some((e) => e.uri === `file://${c}` && e.diagnostics.some((d) => d.message === spec.callerError)));

        // Raw: VS Code's own reference search on the changed export.
        const doc = await vscode.workspace.openTextDocument(moduleUri);
        const position = doc.positionAt(doc.getText().indexOf(change.exportName));
        started = performance.now();
        const locations = (await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', moduleUri, position)) ?? [];
        const referencesMs = performance.now() - started;
        const referencing = new Set(locations.map((l) => l.uri.fsPath).filter((p) => p !== change.module));

        samples.push({
          module: change.module,
          baselineAtMs,
          baselineMs: baseline.ms,
          baselineLagMs: baseline.maxLagMs,
          claudesMs: claudes.ms,
          claudesLagMs: claudes.maxLagMs,
          claudesNote: claudes.texts[1],
          modelMs: model.ms,
          modelNamed: named.length,
          modelNote: model.texts[1],
          callers: change.callers.length,
          referencesMs,
          referencingFiles: referencing.size,
          byHandMs,
        });
        fs.writeFileSync(spec.results, JSON.stringify({ state: 'running', samples, blocks }, null, 2));
        // The check tabs of this change close (CHECK_TABS_IDLE_MS after the answer) before the next one.
        await waitFor('the check tabs to close', () => !tabPaths().some((p) => change.callers.includes(p)), 30_000, 100);
        await sleep(500);
      }
      assert.ok(samples.length === spec.changes.length);
      fs.writeFileSync(spec.results, JSON.stringify({ state: 'passed', samples, blocks }, null, 2));
    } catch (error) {
      fs.writeFileSync(spec.results, JSON.stringify({ state: 'failed', error: String((error as Error).stack ?? error), samples, blocks }, null, 2));
      throw error;
    } finally {
      clearInterval(heartbeat);
      session?.disconnect();
    }
  });
});
