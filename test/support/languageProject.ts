/**
 * The small TypeScript project the real tests of the language tools ask VS Code's TypeScript about
 * (test/real/vscode-language.test.ts with the SDK's client, test/real/vscode-language-claude.test.ts with
 * the real claude CLI): cross-file imports, an exported function used in another file, a comment and a
 * string that mention it, and a function of the same name in another module.
 */
import * as fs from 'fs';
import * as path from 'path';

export const LANGUAGE_PROJECT: Readonly<Record<string, string>> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'commonjs', noEmit: true }, include: ['src'] }, null, 2) + '\n',
  'src/math.ts': [
    '/** Doubles a number. */',
    'export function double(n: number): number {',
    '  return n * 2;',
    '}',
    '',
    'export class Calculator {',
    '  total = 0;',
    '  add(n: number): this {',
    '    this.total += double(n);',
    '    return this;',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/app.ts': [
    "import { double } from './math';",
    '',
    '// double is mentioned in this comment',
    'export function run(): number {',
    "  const label = 'double';",
    '  const result = double(21);',
    '  return result + double(1) + label.length;',
    '}',
    '',
  ].join('\n'),
  // A function of the same name in another module: not a reference to math's double.
  'src/other/double.ts': "export function double(s: string): string {\n  return s + s;\n}\nexport const twice = double('x');\n",
  'src/main.ts': "import { run } from './app';\nexport const answer = run();\nexport const biggest = Math.max(1, 2);\n",
  // Its references are asked of a provider that never answers (registered by vscode-language's inner suite).
  'settings.ini': '[main]\nname = demo\n',
  'notes.txt': 'double trouble\n',
};

/** Writes the project's files into `workspace`. */
export function writeLanguageProject(workspace: string): void {
  for (const [rel, content] of Object.entries(LANGUAGE_PROJECT)) {
    fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspace, rel), content);
  }
}

/** `file:line:column` (1-based) of the `nth` whole-word `word` on the first line of the project's `rel` that contains `marker`. */
export function placeIn(rel: string, marker: string, word: string, nth = 0): string {
  const lines = (LANGUAGE_PROJECT[rel] ?? '').split('\n');
  const index = lines.findIndex((l) => l.includes(marker));
  if (index < 0) throw new Error(`no line with ${JSON.stringify(marker)} in ${rel}`);
  const columns = [...lines[index].matchAll(new RegExp(`\\b${word}\\b`, 'g'))].map((m) => m.index + 1);
  if (columns[nth] === undefined) throw new Error(`no ${word} #${nth} on ${rel}:${index + 1}`);
  return `${rel}:${index + 1}:${columns[nth]}`;
}
