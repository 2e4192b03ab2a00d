import * as fs from 'fs';
import * as path from 'path';

// Every citation in the code and the docs must be followable by someone who has only this repository:
// the protocol is docs/protocol.md, the VS Code traps docs/vscode-traps.md ("trap N"), and links and
// anchors lead somewhere that exists. Notes kept outside the repository must not be cited.

const ROOT = path.join(__dirname, '../..');
const SELF = path.relative(ROOT, __filename);
const TEXT = /\.(ts|js|mjs|cjs|md|json|sh)$/;
/** Where citations are checked: folders walked for text files, and the text files at the top (configs, README, CHANGELOG; not package-lock.json). */
const SCANNED = [
  'src',
  'docs',
  'bench',
  'scripts',
  'test',
  ...fs
    .readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isFile() && TEXT.test(d.name) && d.name !== 'package-lock.json')
    .map((d) => d.name),
];
const SKIPPED = new Set(['node_modules', 'fixtures']);

function walk(relative: string): string[] {
  const absolute = path.join(ROOT, relative);
  if (!fs.existsSync(absolute)) return [];
  if (fs.statSync(absolute).isFile()) return [relative];
  return fs
    .readdirSync(absolute, { withFileTypes: true })
    .filter((d) => !SKIPPED.has(d.name))
    .flatMap((d) => (d.isDirectory() ? walk(path.join(relative, d.name)) : TEXT.test(d.name) ? [path.join(relative, d.name)] : []));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The trap numbers docs/vscode-traps.md defines: its headings `### N. …`. */
export function definedTraps(markdown: string): Set<number> {
  return new Set([...markdown.matchAll(/^###\s+(\d+)\.\s/gm)].map((m) => Number(m[1])));
}

/** Trap numbers a text cites: "trap 5", "traps 12-17", "traps 5, 8, 9 and 11". */
export function citedTraps(text: string): number[] {
  const cited: number[] = [];
  for (const m of text.matchAll(/\btraps?\s+(\d+(?:\s*(?:[-–]|,|\band\b)\s*\d+)*)/gi)) {
    for (const part of m[1].split(/,|\band\b/)) {
      const [from, to] = part.split(/[-–]/).map((s) => Number(s.trim()));
      for (let n = from; n <= (to ?? from); n++) cited.push(n);
    }
  }
  return cited;
}

/** Citations of notes outside the repository, or of their numbering. */
export function outsideCitations(text: string): string[] {
  const found: string[] = [];
  for (const re of [/ide-protocol\.md/g, /vscode-pitfalls\.md/g, /(?:\.\.|\/work)\/shared\b/g, /\bpitfalls?\s+\d+/gi, /(?<!RFC \d+ )§\s*\d[\d.]*/g]) {
    for (const m of text.matchAll(re)) found.push(m[0]);
  }
  return found;
}

/** `[text](target)` links of a markdown file that are not web addresses. */
export function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

const read = (relative: string) => fs.readFileSync(path.join(ROOT, relative), 'utf8');
const files = SCANNED.flatMap(walk).filter((f) => f !== SELF);
const trapsDoc = 'docs/vscode-traps.md';

/** Whether `file#anchor` (relative to the repository) exists: the file, and the heading when one is named. */
function resolves(file: string, anchor: string | undefined): boolean {
  const absolute = path.join(ROOT, file);
  if (!fs.existsSync(absolute)) return false;
  if (!anchor) return true;
  return fs.statSync(absolute).isFile() && file.endsWith('.md') && headingAnchors(read(file)).has(decodeURIComponent(anchor));
}

describe('citations stay inside the repository', () => {
  it('scans the code and the docs', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'webpack.config.js', 'docs/protocol.md', trapsDoc, 'src/tools/openDiff.ts']));
  });

  it('no file cites the team notes outside the repository (ide-protocol.md, vscode-pitfalls.md, ../shared, §N, pitfall N)', () => {
    const found = files.flatMap((f) => outsideCitations(read(f)).map((c) => `${f}: ${c}`));
    expect(found).toEqual([]);
  });

  it('every "trap N" cited is an entry of docs/vscode-traps.md', () => {
    const defined = definedTraps(read(trapsDoc));
    expect(defined.size).toBeGreaterThan(20);
    const undefinedTraps = files.flatMap((f) =>
      citedTraps(read(f))
        .filter((n) => !defined.has(n))
        .map((n) => `${f}: trap ${n}`),
    );
    expect(undefinedTraps).toEqual([]);
  });

  it('every docs/….md named in the code and the docs exists, with its #section when one is given', () => {
    const broken: string[] = [];
    for (const f of files) {
      for (const m of read(f).matchAll(/\bdocs\/[\w./-]*?\.md(?:#([\w-]+))?/g)) {
        const [file, anchor] = m[0].split('#');
        if (!resolves(file, anchor)) broken.push(`${f}: ${m[0]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every relative link in README.md and docs/ leads to a file that exists, and to a heading when it names one', () => {
    const broken: string[] = [];
    for (const f of files.filter((f) => f.endsWith('.md') && (f === 'README.md' || f === 'CHANGELOG.md' || f.startsWith('docs' + path.sep)))) {
      for (const link of relativeLinks(read(f))) {
        const [target, anchor] = link.split('#');
        const file = target ? path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, f)), target)) : f;
        if (file.startsWith('..') || !resolves(file, anchor)) broken.push(`${f}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('find citations of the outside notes, but not an RFC section', () => {
    expect(outsideCitations('see ide-protocol.md §3.4 and ../shared/docs/x.md (pitfall 7); RFC 6455 §5.2; /work/shared/docs/y.md')).toEqual([
      'ide-protocol.md',
      '../shared',
      '/work/shared',
      'pitfall 7',
      '§3.4',
    ]);
    expect(outsideCitations('vscode-pitfalls.md items 2-4; pitfalls 12-17')).toEqual(['vscode-pitfalls.md', 'pitfalls 12']);
    expect(outsideCitations('docs/protocol.md#opendiff, trap 5')).toEqual([]);
  });

  it('read trap numbers, single, ranges and lists', () => {
    expect(citedTraps('(trap 5) traps 12-14; traps 5, 8 and 11; Traps 19 and 21')).toEqual([5, 12, 13, 14, 5, 8, 11, 19, 21]);
    expect(definedTraps('## Group\n\n### 1. One\n\ntext\n\n### 12. Twelve\n#### 3. not an entry\n')).toEqual(new Set([1, 12]));
  });

  it('make anchors as GitHub does', () => {
    const anchors = headingAnchors(
      '# A title\n## MCP handshake and ide_connected\n### 5. Unsaved edits, in `the` file\n```\n# not a heading\n```\n## A title\n',
    );
    expect([...anchors]).toEqual(['a-title', 'mcp-handshake-and-ide_connected', '5-unsaved-edits-in-the-file', 'a-title-1']);
  });

  it('take relative links, not web addresses or code', () => {
    expect(relativeLinks('[a](b.md) [c](https://x.org/d) [e](../f.md#g) `[h](i.md)` [j](#k) [l](mailto:m@n.o)')).toEqual(['b.md', '../f.md#g', '#k']);
  });
});
