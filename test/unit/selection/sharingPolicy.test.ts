import { DEFAULT_EXCLUDE_PATTERNS, SharingPolicy } from '../../../src/selection/sharingPolicy';

describe('sharing policy', () => {
  const ws = '/home/u/project';
  const policy = (exclude: readonly string[] = DEFAULT_EXCLUDE_PATTERNS, shareSelection = true) => new SharingPolicy({ shareSelection, exclude }, () => [ws]);

  test.each([
    ['.env', true],
    ['.env.local', true],
    ['config/.env.production', true],
    ['certs/server.pem', true],
    ['id.key', true],
    ['deep/a/b/secrets/token.txt', true],
    ['secrets/x.json', true],
    ['src/app.ts', false],
    ['src/environment.ts', false],
    ['keys.ts', false],
    ['src/secretsManager.ts', false],
  ])('default patterns: %s excluded = %s', (relative, excluded) => {
    expect(policy().isExcluded(`${ws}/${relative}`)).toBe(excluded);
  });

  test('files outside every workspace folder are matched by their absolute path', () => {
    expect(policy().isExcluded('/etc/ssl/private/site.key')).toBe(true);
    expect(policy().isExcluded('/srv/secrets/db.txt')).toBe(true);
    expect(policy().isExcluded('/srv/app/main.ts')).toBe(false);
  });

  test('patterns with a slash are relative to the workspace folder', () => {
    const p = policy(['generated/**']);
    expect(p.isExcluded(`${ws}/generated/a/b.ts`)).toBe(true);
    expect(p.isExcluded(`${ws}/src/generated.ts`)).toBe(false);
  });

  test('an empty list excludes nothing; blank entries are ignored', () => {
    expect(policy([]).isExcluded(`${ws}/.env`)).toBe(false);
    expect(policy(['', '  ']).isExcluded(`${ws}/.env`)).toBe(false);
  });

  test('the toggle stops selections of every file', () => {
    expect(policy(DEFAULT_EXCLUDE_PATTERNS, false).mayShareSelectionOf(`${ws}/src/app.ts`)).toBe(false);
    expect(policy().mayShareSelectionOf(`${ws}/src/app.ts`)).toBe(true);
    expect(policy().mayShareSelectionOf(`${ws}/.env`)).toBe(false);
  });
});
