/** Harness self-test: a deliberately failing assertion. The outer test asserts a NON-zero exit code. */
import * as assert from 'assert';
import { describe, it } from '../bdd';

describe('harness self-test (deliberately failing)', () => {
  it('passes before the failure', () => {
    assert.ok(true);
  });

  it('fails on purpose', () => {
    assert.strictEqual(1 + 1, 3, 'deliberate failure: the harness must report it');
  });
});
