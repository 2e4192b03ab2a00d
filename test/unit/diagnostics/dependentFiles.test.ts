// Finding the files that use a changed file from their imports, and which come first (src/diagnostics/dependentFiles.ts).
import { dependentsNotChecked, importedTargets, rankDependents, relativeSpecifiers, resolutionCandidates } from '../../../src/diagnostics/dependentFiles';

describe('dependent files: relative imports that resolve to a changed file', () => {
  test('every import form is read; bare package names are not files of the workspace', () => {
    const text = [
      "import { double } from './math';",
      "import type { T } from '../types/index.js';",
      "export * from './reexport'",
      "import './side-effect.css';",
      "const lazy = import('./lazy');",
      'const old = require( "./old.cjs" );',
      "import React from 'react';",
      "import x from '@scope/pkg/sub';",
    ].join('\n');
    expect(relativeSpecifiers(text).sort()).toEqual(['../types/index.js', './lazy', './math', './old.cjs', './reexport', './side-effect.css']);
  });

  test("a specifier resolves as TypeScript resolves it: extensions, a .js written for a .ts source, a folder's index", () => {
    expect(resolutionCandidates('/w/src/main.ts', './math')).toEqual(
      expect.arrayContaining(['/w/src/math.ts', '/w/src/math.tsx', '/w/src/math/index.ts', '/w/src/math.js']),
    );
    expect(resolutionCandidates('/w/src/main.ts', './math.js')).toEqual(expect.arrayContaining(['/w/src/math.ts']));
    expect(resolutionCandidates('/w/src/a/b.ts', '..')).toEqual(expect.arrayContaining(['/w/src/index.ts']));
    const targets = new Set(['/w/src/math.ts', '/w/lib/index.ts']);
    expect(importedTargets('/w/src/main.ts', "import { double } from './math.js';\nimport { x } from '../lib';\n", targets).sort()).toEqual([
      '/w/lib/index.ts',
      '/w/src/math.ts',
    ]);
    expect(
      importedTargets(
        '/w/src/other.ts',
        "import { double } from './mathematics';\n// from './math' in a comment is still read: a false positive costs one check\n",
        targets,
      ),
    ).toEqual(['/w/src/math.ts']);
    expect(importedTargets('/w/src/other.ts', "import { d } from 'math';\n", targets)).toEqual([]);
  });

  test('most relevant first: imported and referenced, then more references, then nearer, then by path; a changed file is never its own dependent', () => {
    const found = new Map([
      ['/w/src/far/deep/z.ts', { references: 1, imports: true }],
      ['/w/src/main.ts', { references: 3, imports: true }],
      ['/w/src/only-refs.ts', { references: 9, imports: false }],
      ['/w/src/only-import.ts', { references: 0, imports: true }],
      ['/w/src/b.ts', { references: 1, imports: true }],
      ['/w/src/math.ts', { references: 2, imports: false }],
    ]);
    expect(rankDependents(found, ['/w/src/math.ts'])).toEqual([
      '/w/src/main.ts',
      '/w/src/b.ts',
      '/w/src/far/deep/z.ts',
      '/w/src/only-refs.ts',
      '/w/src/only-import.ts',
    ]);
  });

  test('the note names the files left unchecked and says how to check one', () => {
    const files = Array.from({ length: 12 }, (_, i) => `/w/u${i}.ts`);
    expect(dependentsNotChecked(files, (f) => f.slice(3))).toBe(
      'not checked: 12 more files that use the changed files (at most 10 are checked per answer; ask about a file by its path to check it): u0.ts, u1.ts, u2.ts, u3.ts, u4.ts, u5.ts, u6.ts, u7.ts, u8.ts, u9.ts, and 2 more',
    );
  });
});

describe("write_file/apply_diff's new_diagnostics: the files that use the edited one", () => {
  const { trackChangeDiagnostics } = jest.requireActual<typeof import('../../../src/diagnostics/changeDiagnostics')>(
    '../../../src/diagnostics/changeDiagnostics',
  );
  type Item = import('../../../src/host/diagnostics').DiagnosticItem;
  const callerError: Item = {
    message: 'Expected 1 arguments, but got 2.',
    severity: 'Error',
    range: { start: { line: 1, character: 28 }, end: { line: 1, character: 29 } },
    source: 'ts',
    code: '2554',
  };

  /** A Problems panel where loading a file makes its server report `reports[file]` 100 ms later. */
  function world(users: string[], lookupMs = 0) {
    const problems = new Map<string, Item[]>();
    const listeners = new Set<(p: readonly string[]) => void>();
    const loaded = new Set<string>(['/w/api.ts']);
    const reportedAt = new Map<string, number>();
    const loads: string[] = [];
    const reports: Record<string, Item[]> = { '/w/caller.ts': [callerError] };
    let released = 0;
    const report = (file: string, items: Item[]) => {
      problems.set(file, items);
      reportedAt.set(file, Date.now());
      for (const l of listeners) l([file]);
    };
    const source = {
      all: () => [...problems].filter(([, d]) => d.length).map(([p, diagnostics]) => ({ uri: `file://${p}`, diagnostics })),
      forFile: (p: string) => problems.get(p) ?? [],
      onDidChange: (l: (p: readonly string[]) => void) => (listeners.add(l), { dispose: () => listeners.delete(l) }),
      documents: {
        load: async (p: string) => {
          loads.push(p);
          if (loaded.has(p)) return 'loaded' as const;
          loaded.add(p);
          setTimeout(() => report(p, reports[p] ?? []), 100);
          return 'opened' as const;
        },
        matchesDisk: async (p: string) => (loaded.has(p) ? true : undefined),
        isDirty: () => false,
        lastChange: (p: string) => ({ diagnostics: reportedAt.get(p) }),
        onDidChangeDocument: () => ({ dispose: () => undefined }),
        takeChangedOnDisk: () => [],
        checkerAnswered: async () => true,
        releaseCheckTabs: () => void released++,
        dependentsOf: async (_: readonly string[], { limit }: { limit: number }) => {
          await new Promise((r) => setTimeout(r, lookupMs));
          return { files: users.slice(0, limit), more: users.slice(limit) };
        },
      },
    };
    return { source, loads, report, released: () => released };
  }

  test('a closed caller broken by the change is named, marked as not checked before it; users beyond 10 are named in a note; check tabs released', async () => {
    const users = ['/w/caller.ts', ...Array.from({ length: 11 }, (_, i) => `/w/other${i}.ts`)];
    const w = world(users);
    const tracked = trackChangeDiagnostics(w.source, '/w/api.ts', 1500);
    setTimeout(() => w.report('/w/api.ts', []), 50); // the edited file's report after the write
    const { lines } = await tracked.finish('a\n', 'b\n', (f) => f.slice(3));
    expect(lines).toEqual([
      '[Error] caller.ts:2:29 — Expected 1 arguments, but got 2. (ts 2554) (in a file that uses it, not checked before this change: the problem may be older)',
      'Note: not checked: 2 more files that use the changed files (at most 10 are checked per answer; ask about a file by its path to check it): other9.ts, other10.ts',
    ]);
    expect([...new Set(w.loads.filter((p) => p !== '/w/api.ts'))]).toEqual(users.slice(0, 10));
    expect(w.released()).toBe(1);
  });

  test('users found only after the answer went are not loaded (no check tab nothing would close)', async () => {
    const w = world(['/w/caller.ts'], 400);
    const tracked = trackChangeDiagnostics(w.source, '/w/api.ts', 200);
    setTimeout(() => w.report('/w/api.ts', []), 20);
    await tracked.finish('a\n', 'b\n', (f) => f);
    await new Promise((r) => setTimeout(r, 400));
    expect(w.loads).not.toContain('/w/caller.ts');
  });
});
