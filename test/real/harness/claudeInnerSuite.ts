/**
 * One run of an inner suite with claude in code-server's integrated terminal: `runInnerSuite()`
 * (innerSuite.ts) with the integrated claude's env, which also stops claude's tmux (before the server),
 * the fake model and the claude's temp root (after it), whatever failed.
 */
import type { StartCodeServerOptions } from './codeServer';
import type { FakeModel } from './fakeModel';
import { runInnerSuite, type InnerSuiteOptions, type InnerSuiteRun } from './innerSuite';
import type { IntegratedClaude } from './integratedClaude';

export interface ClaudeInnerSuiteOptions<Results> extends Omit<InnerSuiteOptions<Results>, 'server'> {
  ic: IntegratedClaude;
  model: FakeModel;
  /** code-server's options but its env (the integrated claude's). */
  server: Omit<StartCodeServerOptions, 'env'>;
}

export type ClaudeInnerSuiteRun<Results> = InnerSuiteRun<Results>;

export function runClaudeInnerSuite<Results>(opts: ClaudeInnerSuiteOptions<Results>): Promise<ClaudeInnerSuiteRun<Results>> {
  const { ic, model, beforeStop, afterStop, ...rest } = opts;
  return runInnerSuite<Results>({
    ...rest,
    server: { ...opts.server, env: ic.env },
    beforeStop: async () => {
      try {
        await beforeStop?.();
      } finally {
        await ic.killTmux();
      }
    },
    afterStop: async () => {
      try {
        await model.close();
        await ic.cleanup();
      } finally {
        await afterStop?.();
      }
    },
  });
}
