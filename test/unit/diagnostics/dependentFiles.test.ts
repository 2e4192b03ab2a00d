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
      "const old = require( \"./old.cjs\" );",
      "import React from 'react';",
      "import x from '@scope/pkg/sub';",
    ].join('\n');
    expect(relativeSpecifiers(text).sort()).toEqual(['../types/index.js', './lazy', './math', './old.cjs', './reexport', './side-effect.css']);
  });

  test("a specifier resolves as TypeScript resolves it: extensions, a .js written for a .ts source, a folder's index", () => {
    expect(resolutionCandidates('/w/src/main.ts', './math')).toEqual(expect.arrayContaining(['/w/src/math.ts', '/w/src/math.tsx', '/w/src/math/index.ts', '/w/src/math.js']));
    expect(resolutionCandidates('/w/src/main.ts', './math.js')).toEqual(expect.arrayContaining(['/w/src/math.ts']));
    expect(resolutionCandidates('/w/src/a/b.ts', '..')).toEqual(expect.arrayContaining(['/w/src/index.ts']));
    const targets = new Set(['/w/src/math.ts', '/w/lib/index.ts']);
    expect(importedTargets('/w/src/main.ts', "import { double } from './math.js';\nimport { x } from '../lib';\n", targets).sort()).toEqual(['/w/lib/index.ts', '/w/src/math.ts']);
    expect(importedTargets('/w/src/other.ts', "import { double } from './mathematics';\n// from './math' in a comment is still read: a false positive costs one check\n", targets)).toEqual(['/w/src/math.ts']);
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
    expect(rankDependents(found, ['/w/src/math.ts'])).toEqual(['/w/src/main.ts', '/w/src/b.ts', '/w/src/far/deep/z.ts', '/w/src/only-refs.ts', '/w/src/only-import.ts']);
  });

  test('the note names the files left unchecked and says how to check one', () => {
    const files = Array.from({ length: 12 }, (_, i) => `/w/u${i}.ts`);
    expect(dependentsNotChecked(files, (f) => f.slice(3))).toBe(
      'not checked: 12 more files that use the changed files (at most 10 are checked per answer; ask about a file by its path to check it): u0.ts, u1.ts, u2.ts, u3.ts, u4.ts, u5.ts, u6.ts, u7.ts, u8.ts, u9.ts, and 2 more',
    );
  });
});
