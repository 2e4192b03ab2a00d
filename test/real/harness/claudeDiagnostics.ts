/**
 * claude's MCP tool calls, read from its debug log (`--debug-file`): how long each took and what went
 * wrong; for the real tests of diagnostics, the check that claude's own getDiagnostics calls stayed within
 * claude's budgets (docs/diagnostics.md).
 */
import { AFTER_WRITES_WAIT_MS, BASELINE_WAIT_MS } from '../../../src/diagnostics/waitBudgets';

/**
 * How long claude's calls of the MCP tool `tool` of server `server` took: `ms` as claude says it
 * (`Tool 'find_symbols' completed successfully in 486ms`, or `2s`: claude floors to the second from 1 s
 * on; a failed call is Infinity), and `spanMs` from the timestamps of the call's `Calling MCP tool:` line
 * and that line (calls paired in order). A call the model made (claude asks its permission hook first) is
 * marked.
 */
export function cliMcpToolCalls(debugLog: string, server: string, tool: string): Array<{ ms: number; spanMs?: number; startedAt?: number; byModel: boolean }> {
  const calls: Array<{ ms: number; spanMs?: number; startedAt?: number; byModel: boolean }> = [];
  let modelAsked = false;
  const startedAt: Array<number | undefined> = [];
  const asked = `PermissionRequestHooks called for tool: mcp__${server}__${tool}`;
  const calling = `Calling MCP tool: ${tool}`;
  const done = new RegExp(`Tool '${tool}' (completed successfully|failed)[^\\d]*(\\d+(?:\\.\\d+)?)(ms|s)`);
  const timeOf = (line: string) => {
    const t = Date.parse(line.split(' ')[0]);
    return Number.isNaN(t) ? undefined : t;
  };
  for (const line of debugLog.split('\n')) {
    if (line.includes(asked)) modelAsked = true;
    if (line.endsWith(calling)) startedAt.push(timeOf(line));
    const m = done.exec(line);
    if (m) {
      const start = startedAt.shift();
      const end = timeOf(line);
      calls.push({
        ms: m[1] === 'failed' ? Infinity : Number(m[2]) * (m[3] === 's' ? 1000 : 1),
        spanMs: start !== undefined && end !== undefined ? end - start : undefined,
        startedAt: start,
        byModel: modelAsked,
      });
      modelAsked = false;
    }
  }
  return calls;
}

/** The lines of claude's debug log that say a call of the MCP tool `tool` failed, was aborted or timed out. */
export function cliMcpToolTrouble(debugLog: string, tool: string): string[] {
  return debugLog.split('\n').filter((l) => l.includes(`'${tool}'`) && /failed|abort|timed? ?out|timeout|malformed/i.test(l));
}

/**
 * claude's getDiagnostics calls (see {@link cliMcpToolCalls}), each of claude's own marked by what it is
 * for, read off claude's log: its call after its writes (`{}`) is made while it gathers a request's
 * attachments, so the log says "getLSPDiagnosticAttachments called" within a few ms of its
 * `Calling MCP tool:` line; its baseline (`{uri}`, before a write) is made alone.
 */
export function cliDiagnosticsCalls(debugLog: string): Array<{ ms: number; byModel: boolean; call?: 'baseline' | '{}' }> {
  const attachmentsAt = debugLog
    .split('\n')
    .filter((l) => l.includes('getLSPDiagnosticAttachments called'))
    .map((l) => Date.parse(l.split(' ')[0]));
  return cliMcpToolCalls(debugLog, 'ide', 'getDiagnostics').map(({ ms, byModel, startedAt }) => {
    if (byModel) return { ms, byModel };
    const made = attachmentsAt.some((t) => startedAt !== undefined && Math.abs(t - startedAt) <= 20);
    return { ms, byModel, call: made ? '{}' : 'baseline' };
  });
}

/**
 * The most the extension may take to answer claude's own calls, by its own log (ms): its deadlines
 * (src/diagnostics/waitBudgets.ts) and a margin for an extension host busy at that moment, below claude's
 * limits (500 ms, 2 s) by what the answer's way back takes.
 */
const OWN_ANSWER_MAX_MS = { baseline: BASELINE_WAIT_MS + 150, afterWrites: AFTER_WRITES_WAIT_MS + 300 };

/** How long the extension took to answer claude's own calls, by its log (those of 100 ms or more). */
export function claudesCallsAnswered(extensionLog: string): Array<{ call: '{uri}' | '{}'; ms: number }> {
  return [...extensionLog.matchAll(/getDiagnostics (\{uri\}|\{\}) .*?from claude answered in (\d+) ms/g)].map((m) => ({
    call: m[1] as '{uri}' | '{}',
    ms: Number(m[2]),
  }));
}

/**
 * claude's own calls stayed within its budgets, by claude's own log: every call it started was answered,
 * its baselines under 500 ms and its calls after its writes (`{}`) under 2 s (claude's log shows whole
 * seconds from 1 s on). And by the extension's log, each of claude's calls that took 100 ms or more was
 * answered within its deadline and margin (OWN_ANSWER_MAX_MS), the window's first change and a language
 * server's slow first check included. (The two clocks differ by the way there and back: a `{}` the
 * extension answered in 390 ms took 602 ms by claude's, under load.)
 */
export function expectWithinClaudesBudgets(run: { debugLog: string; extensionLog: string }): void {
  const calls = cliDiagnosticsCalls(run.debugLog);
  const started = (run.debugLog.match(/Calling MCP tool: getDiagnostics/g) ?? []).length;
  expect({ started, answered: calls.length }).toEqual({ started, answered: started });
  expect(calls.filter((c) => c.call === 'baseline' && c.ms >= 500)).toEqual([]);
  expect(calls.filter((c) => c.call === '{}' && c.ms >= 2000)).toEqual([]);
  const answers = claudesCallsAnswered(run.extensionLog);
  expect(answers.filter((a) => a.ms > (a.call === '{uri}' ? OWN_ANSWER_MAX_MS.baseline : OWN_ANSWER_MAX_MS.afterWrites))).toEqual([]);
}
