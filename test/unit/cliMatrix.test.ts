import { defaultVersions, renderTable } from '../setup/cliMatrix';

describe('cli matrix', () => {
  test('default versions: pinned, latest 2.1.x, last 2.0.x, last 1.0.x, ordered numerically', () => {
    const published = ['0.2.9', '1.0.9', '1.0.128', '1.0.100', '2.0.9', '2.0.77', '2.0.8', '2.1.99', '2.1.330', '2.1.328', '2.1.1000-beta'];
    expect(defaultVersions(published)).toEqual(['2.1.328', '2.1.330', '2.0.77', '1.0.128']);
    expect(defaultVersions(['2.1.328'])).toEqual(['2.1.328']);
  });

  test('the table has a row per test, a column per version and the totals', () => {
    const table = renderTable([
      {
        version: '2.1.328',
        results: new Map([
          ['cli-ide › a', 'pass'],
          ['cli-ide › b', 'pass'],
        ] as const),
        failures: new Map(),
      },
      {
        version: '1.0.128',
        results: new Map([
          ['cli-ide › a', 'fail'],
          ['cli-ide › b', 'pass'],
        ] as const),
        failures: new Map(),
      },
      { version: '0.9.0', installError: 'no such version', results: new Map(), failures: new Map() },
    ]);
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^\| test +\| 2\.1\.328 +\| 1\.0\.128 +\| 0\.9\.0 +\|$/);
    expect(lines[2]).toMatch(/^\| cli-ide › a +\| pass +\| FAIL +\| — +\|$/);
    expect(lines[4]).toMatch(/^\| TOTAL +\| 2\/2 pass +\| 1\/2 pass +\| not run +\|$/);
  });
});
