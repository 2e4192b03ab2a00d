import { cliVersionSupport, compareVersions, matchesToolLevelRules, parseVersion } from '../../../src/util/cliVersion';

// One reading of claude's version numbers for the server (initialize, User-Agent), Check Setup
// (`claude --version`), `claude mcp` and the permission rules.
describe('cliVersion', () => {
  test('parses and orders versions numerically, not as text', () => {
    expect(parseVersion('2.1.328')).toEqual([2, 1, 328]);
    expect(parseVersion('2.1.328-beta.1')).toEqual([2, 1, 328]);
    expect(parseVersion('test')).toBeUndefined();
    expect(parseVersion('2.1')).toBeUndefined();
    expect(compareVersions('2.1.99', '2.1.100')).toBeLessThan(0);
    expect(compareVersions('1.0.128', '2.0.0')).toBeLessThan(0);
    expect(compareVersions('2.0.77', '2.0.77')).toBe(0);
    expect(() => compareVersions('x', '1.0.0')).toThrow(/Not a version: x/);
  });

  test('reads what `claude --version` prints, on every line the matrix runs', () => {
    expect(parseVersion('2.1.328 (Claude Code)')).toEqual([2, 1, 328]);
    expect(parseVersion('1.0.128 (Claude Code)\n')).toEqual([1, 0, 128]);
    expect(parseVersion('2.1.3280')).toEqual([2, 1, 3280]);
    expect(parseVersion('2.1.328x')).toBeUndefined();
    expect(compareVersions([2, 1, 327], '2.1.328')).toBeLessThan(0);
  });

  test('the supported range and the rule form, judged on the same reading', () => {
    expect(cliVersionSupport('2.1.328 (Claude Code)')).toBe('supported');
    expect(cliVersionSupport('3.0.0-beta.1')).toBe('too-new');
    expect(cliVersionSupport('0.2.9')).toBe('too-old');
    expect(cliVersionSupport('v2')).toBe('unknown');
    expect(matchesToolLevelRules('1.0.128 (Claude Code)')).toBe(false);
    expect(matchesToolLevelRules('nonsense')).toBeUndefined();
  });
});
