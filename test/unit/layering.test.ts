import * as fs from 'fs';
import * as path from 'path';

// The rooms of src/ and what each may import (docs/architecture.md, "Rooms"). A newcomer finds a
// concern by its folder name; this test keeps the folders honest: no import runs against the arrows,
// and only the VS Code adapters touch the `vscode` module.
const MAY_IMPORT: Record<string, string[]> = {
  util: [],
  workspace: ['util'],
  host: ['workspace'],
  diagnostics: ['host', 'workspace', 'util'],
  review: ['host', 'workspace', 'diagnostics', 'util'],
  tools: ['host', 'workspace', 'review', 'diagnostics', 'terminal', 'util'],
  server: ['tools', 'util'],
  terminal: ['server', 'util'],
  selection: ['server', 'util'],
  route: ['host', 'util'],
  health: ['route', 'server', 'host', 'util'],
  vscode: ['*'],
};

const SRC = path.join(__dirname, '../../src');
const importRe = /(?:from\s+|import\s*\(\s*(?:\/\*[^*]*\*\/\s*)?|require\s*\(\s*)['"]([^'"]+)['"]/g;

function filesOf(folder: string): string[] {
  return fs.readdirSync(path.join(SRC, folder)).filter((f) => f.endsWith('.ts')).map((f) => path.join(SRC, folder, f));
}

describe('src/ layering', () => {
  it('every folder under src/ is a known room', () => {
    const folders = fs.readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('no import runs against the arrows, and only src/vscode imports vscode', () => {
    const wrong: string[] = [];
    for (const folder of Object.keys(MAY_IMPORT)) {
      if (!fs.existsSync(path.join(SRC, folder))) continue;
      for (const file of filesOf(folder)) {
        const text = fs.readFileSync(file, 'utf8');
        for (const [, spec] of text.matchAll(importRe)) {
          const where = `${path.relative(SRC, file)} imports ${spec}`;
          if (spec === 'vscode' && folder !== 'vscode' && !/import type \* as vscode from 'vscode'/.test(text)) wrong.push(where);
          if (!spec.startsWith('.')) continue;
          const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep)[0];
          if (target === folder || target.startsWith('..')) continue;
          const allowed = MAY_IMPORT[folder];
          if (!allowed.includes('*') && !allowed.includes(target)) wrong.push(where);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
