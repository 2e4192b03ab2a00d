import type { SuiteResult } from './codeServer';

/**
 * The outcome of one inner mocha test (run in code-server's extension host), as the inner suites record
 * it in their results file: `state` 'passed' or 'failed', the error, and what the test measured.
 */
export interface InnerResult<Data = Record<string, unknown>> {
  state?: string;
  error?: string;
  ms?: number;
  data?: Data;
}

/**
 * Asserts that the inner test `key` passed and returns its data. On failure the message also carries
 * `context()` (the run's error, the end of the inner log…), so a red CI says why without a rerun.
 */
export function expectInnerPassed<Data>(key: string, result: InnerResult<Data> | undefined, context: () => Record<string, unknown>): Data {
  const extra = result?.state === 'passed' ? {} : context();
  expect({ key, state: result?.state, error: result?.error, ...extra }).toEqual({ key, state: 'passed', error: undefined });
  return result!.data ?? ({} as Data);
}

/**
 * The usual `context()` of expectInnerPassed in an outer test: the inner test's data, what the run threw,
 * and the end of the inner log (without the workbench's AgentHost and gallery lines).
 */
export function innerFailureContext(result: InnerResult | undefined, suite: SuiteResult | undefined, runError: Error | undefined): Record<string, unknown> {
  return { data: result?.data, runError: runError?.message.slice(0, 3000), innerLogTail: suite?.log.filter((l) => !/AgentHost|gallery/.test(l)).slice(-40) };
}
