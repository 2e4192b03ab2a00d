import { formatListing } from '../../../src/tools/listFiles';
import { buildRecursiveListing } from '../../support/recursiveListing';

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
    expect(listing.entries.filter((e) => !e.includes('/') || (e.split('/').length === 2 && e.endsWith('/')))).toHaveLength(50);
  });

  test('formats with the workspace-relative prefix, a truncation line and the empty case', () => {
    expect(formatListing({ entries: ['a.ts', 'lib/'], total: 2, truncated: false }, 'src/')).toBe('src/a.ts\nsrc/lib/');
    expect(formatListing({ entries: ['a'], total: 900, truncated: true }, '')).toMatch(/^a\ntruncated: true — 1 of 900 entries shown/);
    expect(formatListing({ entries: [], total: 0, truncated: false }, '')).toMatch(/no entries/);
  });
});

describe('tools: list_files listing against a plain reference', () => {
  /** The listing by definition: every file and folder, the shallowest `limit` (by depth, then path), in path order. */
  function reference(files: string[], limit: number) {
    const entries = new Set<string>();
    for (const file of files) {
      entries.add(file);
      for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1)) entries.add(file.slice(0, slash + 1));
    }
    const depth = (entry: string) => entry.replace(/\/$/, '').split('/').length - 1;
    const all = [...entries].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    return { entries: all.slice(0, limit).sort(), total: all.length, truncated: all.length > limit };
  }

  /** A small deterministic generator (mulberry32), so a failure can be replayed. */
  function random(seed: number) {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  test('a level cut short and then left behind does not hide what a shallower level shows', () => {
    // 1,100 files two levels down: the level is cut to its first 3 paths. Then 1,100 new top-level
    // folders move the cut to the top level, where "e.txt" arrives last and sorts second.
    const files = [
      ...Array.from({ length: 1100 }, (_, i) => `d/e/f${String(i).padStart(4, '0')}`),
      ...Array.from({ length: 1100 }, (_, i) => `z${i}/x/f`),
      'e.txt',
    ];
    expect(buildRecursiveListing(files, 3)).toEqual(reference(files, 3));
    expect(buildRecursiveListing(files, 3).entries).toEqual(['d/', 'e.txt', 'z0/']);
  });

  test.each([1, 2, 3, 4, 5, 6, 7, 8])('gives the same listing on a random tree and order (seed %i)', (seed) => {
    const next = random(seed);
    const names = ['a', 'ab', 'a-b', 'b', 'é', 'z', '_', 'Z', 'modül', '0'];
    const pick = () => names[Math.floor(next() * names.length)] + (next() < 0.5 ? String(Math.floor(next() * 40)) : '');
    const unique = new Set<string>();
    const count = 200 + Math.floor(next() * 4000);
    while (unique.size < count) {
      const depth = Math.floor(next() * 5);
      unique.add(Array.from({ length: depth + 1 }, pick).join('/'));
    }
    let files = [...unique];
    // rg walks folders in parallel: sometimes folder by folder, sometimes shuffled.
    if (next() < 0.5) files.sort();
    else
      files = files
        .map((f) => [next(), f] as const)
        .sort((x, y) => x[0] - y[0])
        .map(([, f]) => f);
    for (const limit of [1, 3, 10, 50, 500]) expect(buildRecursiveListing(files, limit)).toEqual(reference(files, limit));
  });
});
