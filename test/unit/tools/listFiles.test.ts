import { buildRecursiveListing, formatListing } from '../../../src/tools/listFiles';

describe('tools: list_files listing', () => {
  test('derives folders from file paths and prints them in tree order', () => {
    const listing = buildRecursiveListing(['src/util/b.ts', 'README.md', 'src/a.ts', 'src-x/c.ts', 'a.txt']);
    expect(listing).toEqual({
      entries: ['README.md', 'a.txt', 'src-x/', 'src-x/c.ts', 'src/', 'src/a.ts', 'src/util/', 'src/util/b.ts'],
      total: 8,
      truncated: false,
    });
  });

  test('past the limit keeps the shallowest entries, filling the cut level in path order', () => {
    const files = ['top.txt'];
    for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) files.push(`d${i}/f${j}.txt`);
    const listing = buildRecursiveListing(files, 8);
    // depth 0: top.txt + 5 folders = 6; then 2 of the 25 depth-1 files, in path order
    expect(listing.truncated).toBe(true);
    expect(listing.total).toBe(31);
    expect(listing.entries).toEqual(['d0/', 'd0/f0.txt', 'd0/f1.txt', 'd1/', 'd2/', 'd3/', 'd4/', 'top.txt']);
  });

  test('exactly at the limit is not truncated; duplicates and empty lines are ignored', () => {
    expect(buildRecursiveListing(['a', 'b', 'a', ''], 2)).toEqual({ entries: ['a', 'b'], total: 2, truncated: false });
  });

  test('files of one folder need not arrive together (rg walks folders in parallel)', () => {
    const listing = buildRecursiveListing(['a/b/1', 'a/c/1', 'a/b/2', 'x', 'a/b/d/3', 'a/2'], 6);
    // depth 0: a/, x = 2; depth 1: a/2, a/b/, a/c/ = 3 (5 kept); depth 2: a/b/1, a/b/2, a/b/d/, a/c/1 → 1 more
    expect(listing).toEqual({ entries: ['a/', 'a/2', 'a/b/', 'a/b/1', 'a/c/', 'x'], total: 10, truncated: true });
  });

  test('a big tree keeps only what can be shown, and still counts everything', () => {
    // 3,000 files two levels down arrive before the shallow ones: the deep ones are dropped as soon
    // as the cap is known to fall above them, yet the total and the shallow entries stay exact.
    const files = [...Array.from({ length: 3000 }, (_, i) => `deep/er/f${i}`), 'top.txt', 'deep/mid.txt'];
    const listing = buildRecursiveListing(files, 4);
    expect(listing).toEqual({ entries: ['deep/', 'deep/er/', 'deep/mid.txt', 'top.txt'], total: 3004, truncated: true });
  });

  test('handles a 100,000-file tree quickly', () => {
    const files: string[] = [];
    for (let i = 0; i < 100_000; i++) files.push(`pkg${i % 50}/src/mod${i % 700}/file${i}.ts`);
    const started = Date.now();
    const listing = buildRecursiveListing(files, 500);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(listing.entries).toHaveLength(500);
    expect(listing.entries.filter((e) => !e.includes('/') || e.split('/').length === 2 && e.endsWith('/'))).toHaveLength(50);
  });

  test('formats with the workspace-relative prefix, a truncation line and the empty case', () => {
    expect(formatListing({ entries: ['a.ts', 'lib/'], total: 2, truncated: false }, 'src/')).toBe('src/a.ts\nsrc/lib/');
    expect(formatListing({ entries: ['a'], total: 900, truncated: true }, '')).toMatch(/^a\ntruncated: true — 1 of 900 entries shown/);
    expect(formatListing({ entries: [], total: 0, truncated: false }, '')).toMatch(/no entries/);
  });
});
