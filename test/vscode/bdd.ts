/**
 * mocha's bdd functions for the inner suites: `import { describe, it, before, after } from '../bdd'`.
 *
 * Why not `from 'mocha'`: the root tsconfig type-checks test/** with jest's globals, and importing mocha's
 * typings there would replace jest's `describe`/`it` types for every jest test (describe.each, test.todo
 * break). So this module types the few functions itself and loads mocha untyped. Runtime: the same
 * functions mocha exports, bound to the suite file mocha is loading.
 */
export interface TestContext {
  timeout(ms: number): void;
  slow(ms: number): void;
  retries(n: number): void;
  skip(): never;
}
export interface SuiteContext {
  timeout(ms: number): void;
  slow(ms: number): void;
  retries(n: number): void;
}
export type TestFn = (this: TestContext) => void | PromiseLike<unknown>;
export type HookFn = (this: TestContext) => void | PromiseLike<unknown>;
export type SuiteFn = (this: SuiteContext) => void;

export interface DescribeFn {
  (title: string, fn: SuiteFn): void;
  only(title: string, fn: SuiteFn): void;
  skip(title: string, fn: SuiteFn): void;
}
export interface ItFn {
  (title: string, fn?: TestFn): void;
  only(title: string, fn?: TestFn): void;
  skip(title: string, fn?: TestFn): void;
}
export type HookRegistrar = (fn: HookFn) => void;

interface MochaBdd {
  describe: DescribeFn;
  it: ItFn;
  before: HookRegistrar;
  after: HookRegistrar;
  beforeEach: HookRegistrar;
  afterEach: HookRegistrar;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const mocha = require('mocha') as MochaBdd;

export const describe: DescribeFn = mocha.describe;
export const it: ItFn = mocha.it;
export const before: HookRegistrar = mocha.before;
export const after: HookRegistrar = mocha.after;
export const beforeEach: HookRegistrar = mocha.beforeEach;
export const afterEach: HookRegistrar = mocha.afterEach;
