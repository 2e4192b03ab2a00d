/**
 * claude's own getDiagnostics calls, read from its debug log (`--debug-file`), and the check that they
 * stayed within claude's budgets (docs/diagnostics.md): for the real tests of diagnostics.
 */
import { AFTER_WRITES_WAIT_MS, BASELINE_WAIT_MS } from '../../../src/diagnostics/waitBudgets';

/**
 * How long claude's getDiagnostics calls took (`Calling MCP tool: getDiagnostics` … `Tool 'getDiagnostics'
 * completed successfully in 486ms`); a call the model made (claude asks its permission hook first) is marked.
 */
export function cliDiagnosticsCalls(debugLog: string): Array<{ ms: number; byModel: boolean }> {
  const calls: Array<{ ms: number; byModel: boolean }> = [];
  let modelAsked = false;
  for (const line of debugLog.split('\n')) {
    if (/PermissionRequestHooks called for tool: mcp__ide__getDiagnostics/.test(line)) modelAsked = true;
    const done = /Tool 'getDiagnostics' (completed successfully|failed)[^\d]*(\d+(?:\.\d+)?)(ms|s)/.exec(line);
    if (done) {
      calls.push({ ms: done[1] === 'failed' ? Infinity : Number(done[2]) * (done[3] === 's' ? 1000 : 1), byModel: modelAsked });
      modelAsked = false;
    }
  }
  return calls;
}

/**
 * The most the extension may take to answer claude's own calls, by its own log (ms): its deadlines
 * (src/diagnostics/waitBudgets.ts) and a margin for an extension host busy at that moment, below claude's
 * limits (500 ms, 2 s) by what the answer's way back takes.
 */
const OWN_ANSWER_MAX_MS = { baseline: BASELINE_WAIT_MS + 150, afterWrites: AFTER_WRITES_WAIT_MS + 300 };

/** How long the extension took to answer claude's own calls, by its log (those of 100 ms or more). */
export function claudesCallsAnswered(extensionLog: string): Array<{ call: '{uri}' | '{}'; ms: number }> {
  return [...extensionLog.matchAll(/getDiagnostics (\{uri\}|\{\}) .*?from claude answered in (\d+) ms/g)].map((m) => ({ call: m[1] as '{uri}' | '{}', ms: Number(m[2]) }));
}

/**
 * claude's own calls stayed within its budgets: every call it started was answered, under 2 s, and
 * under 500 ms except its calls after its writes (`{}`), which the extension logs when they take 100 ms
 * or more. claude's log shows whole seconds from 1 s on, so the extension's own log (ms) must also show
 * each of claude's calls answered within its deadline and margin (OWN_ANSWER_MAX_MS), the window's
 * first change and a language server's slow first check included.
 */
export function expectWithinClaudesBudgets(run: { debugLog: string; extensionLog: string }): void {
  const own = cliDiagnosticsCalls(run.debugLog).filter((c) => !c.byModel);
  const started = (run.debugLog.match(/Calling MCP tool: getDiagnostics/g) ?? []).length;
  const afterWrites = [...run.extensionLog.matchAll(/getDiagnostics \{\} \(.*\) from claude answered in (\d+) ms/g)].map((m) => Number(m[1]));
  expect({ started, answered: cliDiagnosticsCalls(run.debugLog).length }).toEqual({ started, answered: started });
  expect(own.filter((c) => c.ms >= 2000)).toEqual([]);
  expect(own.filter((c) => c.ms >= 500).length).toBeLessThanOrEqual(afterWrites.filter((ms) => ms >= 400).length);
  const answers = claudesCallsAnswered(run.extensionLog);
  expect(answers.filter((a) => a.ms > (a.call === '{uri}' ? OWN_ANSWER_MAX_MS.baseline : OWN_ANSWER_MAX_MS.afterWrites))).toEqual([]);
}
