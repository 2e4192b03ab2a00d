import * as fs from 'fs';
import * as path from 'path';

// The rooms of src/ and what each may import (each room's README.md, "May import:"). A newcomer finds a
// concern by its folder name; this test keeps the folders honest: no import runs against the arrows,
// only the VS Code adapters touch the `vscode` module, and docs/architecture.md draws the arrows that
// are actually there.
const MAY_IMPORT: Record<string, string[]> = {
  util: [],
  workspace: ['util'],
  host: ['workspace'],
  diagnostics: ['host', 'workspace', 'util'],
  review: ['host', 'workspace', 'diagnostics', 'util'],
  changes: ['host', 'workspace', 'util'],
  tools: ['host', 'workspace', 'review', 'diagnostics', 'terminal', 'util'],
  server: ['tools', 'otherPrograms', 'util'],
  terminal: ['server', 'util'],
  selection: ['server', 'util'],
  otherPrograms: ['workspace', 'util'],
  cliSetup: ['otherPrograms', 'host', 'util'],
  health: ['cliSetup', 'server', 'otherPrograms', 'host', 'util'],
  vscode: ['*'],
};

/**
 * The rooms inside src/vscode and which of them each may import (its README: "Rooms of src/vscode it may
 * import:"). Every room may also import src/vscode's shared files (notify, settings, statusBar) and any
 * room outside src/vscode; the shared files import no room of src/vscode.
 */
const VSCODE_MAY_IMPORT: Record<string, string[]> = {
  changes: ['lifecycle'],
  lifecycle: ['diagnostics', 'terminals', 'workspace'],
  setup: ['review', 'terminals'],
  selection: ['workspace'],
  review: [],
  diagnostics: [],
  language: [],
  notebooks: [],
  terminals: [],
  workspace: [],
};

const ROOT = path.join(__dirname, '../..');
const SRC = path.join(ROOT, 'src');
const importRe = /(?:from\s+|import\s*\(\s*(?:\/\*[^*]*\*\/\s*)?|require\s*\(\s*)['"]([^'"]+)['"]/g;

/** The .ts files of a room, its sub-rooms' included (src/vscode's rooms). */
function filesOf(folder: string): string[] {
  return fs
    .readdirSync(path.join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(SRC, folder, f));
}

/** Every `room → room` import under src/ (type-only imports included), as sorted "from → to" strings. */
function actualArrows(): string[] {
  const arrows = new Set<string>();
  for (const folder of Object.keys(MAY_IMPORT)) {
    if (!fs.existsSync(path.join(SRC, folder))) continue;
    for (const file of filesOf(folder)) {
      for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(importRe)) {
        if (!spec.startsWith('.')) continue;
        const target = path.relative(SRC, path.resolve(path.dirname(file), spec)).split(path.sep)[0];
        if (target !== folder && !target.startsWith('..') && target in MAY_IMPORT) arrows.add(`${folder} → ${target}`);
      }
    }
  }
  return [...arrows].sort();
}

/** The rooms named in a list such as "review, diagnostics (types), host and workspace". */
function roomList(text: string): string[] {
  return text
    .replace(/\([^)]*\)/g, '')
    .split(/,|\band\b/)
    .map((s) => s.trim())
    .filter(Boolean);
}

interface DrawnRooms {
  /** Rooms in the order the picture lists them, top to bottom. */
  order: string[];
  /** The arrows drawn (`►`), as sorted "from → to" strings. */
  arrows: string[];
  /** The rooms the note under the picture says use src/util. */
  utilUsers: string[];
  /** Arrow targets that are not rooms of the picture. */
  unknown: string[];
}

/**
 * Reads the "Rooms" picture of docs/architecture.md: a line `src/<room>/` starts a room; text after `►`
 * lists the rooms it imports, continued on the next line when it ends with a comma.
 */
function readRoomsPicture(markdown: string): DrawnRooms {
  const section = markdown.split(/^## Rooms$/m)[1] ?? '';
  const picture = section.split('```')[1] ?? '';
  const order: string[] = [];
  const targets: [string, string][] = [];
  let room: string | undefined;
  let continued = false;
  for (const line of picture.split('\n')) {
    const start = /^\s*src\/(\w+)\//.exec(line);
    if (start) {
      room = start[1];
      order.push(room);
    }
    let listed: string | undefined;
    if (line.includes('►')) listed = line.slice(line.lastIndexOf('►') + 1);
    else if (continued && !start) listed = line;
    continued = false;
    if (listed === undefined || room === undefined) continue;
    for (const target of roomList(listed)) targets.push([room, target]);
    continued = listed.trim().endsWith(',');
  }
  const note = /Arrows into\s+`src\/util`\s+are not drawn:\s*([^.]*?)\s+uses? it\./.exec(section);
  return {
    order,
    arrows: [...new Set(targets.map(([from, to]) => `${from} → ${to}`))].sort(),
    utilUsers: note ? roomList(note[1].replace(/\s+/g, ' ')).sort() : [],
    unknown: targets.filter(([, to]) => !order.includes(to)).map(([from, to]) => `${from} → ${to}`),
  };
}

describe('src/ layering', () => {
  it('every folder under src/ is a known room', () => {
    const folders = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
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

  it('no two files under src/ share a name (an adapter is named for what it adapts, e.g. vsCodeTextCodec.ts)', () => {
    const byName = new Map<string, string[]>();
    for (const folder of Object.keys(MAY_IMPORT)) {
      if (!fs.existsSync(path.join(SRC, folder))) continue;
      for (const file of filesOf(folder)) byName.set(path.basename(file), [...(byName.get(path.basename(file)) ?? []), path.relative(SRC, file)]);
    }
    expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
  });

  it("each room's README says what it may import, as this test enforces it", () => {
    const differs: string[] = [];
    for (const [room, allowed] of Object.entries(MAY_IMPORT)) {
      const readme = fs.readFileSync(path.join(SRC, room, 'README.md'), 'utf8');
      const may = /May import:\s*([^.]*)\./.exec(readme);
      const said = /Imports nothing from src\//.test(readme) ? [] : may && /everything under src/.test(may[1]) ? ['*'] : may ? roomList(may[1]) : undefined;
      if (JSON.stringify(said?.sort()) !== JSON.stringify([...allowed].sort()))
        differs.push(`${room}: README says ${JSON.stringify(said)}, the test allows ${JSON.stringify(allowed)}`);
    }
    expect(differs).toEqual([]);
  });
});

describe('src/vscode in rooms', () => {
  const VSCODE = path.join(SRC, 'vscode');
  const roomOf = (file: string): string | undefined => {
    const parts = path.relative(VSCODE, file).split(path.sep);
    return parts.length > 1 ? parts[0] : undefined; // undefined: a shared file at src/vscode's top
  };

  it('every folder under src/vscode is a known room, and holds no folder of its own', () => {
    const folders = fs
      .readdirSync(VSCODE, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.sort()).toEqual(Object.keys(VSCODE_MAY_IMPORT).sort());
    const nested = folders.flatMap((f) =>
      fs
        .readdirSync(path.join(VSCODE, f), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => `${f}/${d.name}`),
    );
    expect(nested).toEqual([]);
  });

  it('no import between them runs against their arrows; the shared files import no room', () => {
    const wrong: string[] = [];
    for (const file of filesOf('vscode')) {
      const from = roomOf(file);
      for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(importRe)) {
        if (!spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), spec);
        if (!target.startsWith(VSCODE + path.sep)) continue;
        const to = roomOf(target + '.ts');
        if (to === undefined || to === from) continue;
        if (from === undefined || !VSCODE_MAY_IMPORT[from].includes(to)) wrong.push(`${path.relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the arrows between them run one way (an order exists: no cycle)', () => {
    const placed: string[] = [];
    const left = new Set(Object.keys(VSCODE_MAY_IMPORT));
    while (left.size) {
      const next = [...left].find((room) => VSCODE_MAY_IMPORT[room].every((to) => placed.includes(to)));
      if (!next) break;
      placed.push(next);
      left.delete(next);
    }
    expect([...left]).toEqual([]);
  });

  it("each room's README says what it owns and which rooms of src/vscode it may import, as this test enforces it", () => {
    const differs: string[] = [];
    for (const [room, allowed] of Object.entries(VSCODE_MAY_IMPORT)) {
      const readme = fs.readFileSync(path.join(VSCODE, room, 'README.md'), 'utf8');
      const may = /Rooms of src\/vscode it may import:\s*([^.]*)\./.exec(readme);
      const said = may ? (may[1].trim() === 'none' ? [] : roomList(may[1])) : undefined;
      if (!/^Owns /m.test(readme)) differs.push(`${room}: README does not say what it owns`);
      if (JSON.stringify(said?.sort()) !== JSON.stringify([...allowed].sort()))
        differs.push(`${room}: README says ${JSON.stringify(said)}, the test allows ${JSON.stringify(allowed)}`);
    }
    expect(differs).toEqual([]);
  });
});

describe('docs/architecture.md draws the imports there are', () => {
  const drawn = readRoomsPicture(fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'));
  const actual = actualArrows();

  it('the picture lists every room once', () => {
    expect([...drawn.order].sort()).toEqual(Object.keys(MAY_IMPORT).sort());
    expect(drawn.unknown).toEqual([]);
  });

  it('every arrow drawn is an import, and every import between rooms (but into util, and from vscode) is drawn', () => {
    const expected = actual.filter((a) => !a.startsWith('vscode →') && !a.endsWith('→ util'));
    expect({
      drawnButNotImported: drawn.arrows.filter((a) => !expected.includes(a)),
      importedButNotDrawn: expected.filter((a) => !drawn.arrows.includes(a)),
    }).toEqual({
      drawnButNotImported: [],
      importedButNotDrawn: [],
    });
  });

  it('the note under the picture names exactly the rooms that import util', () => {
    const users = actual.filter((a) => a.endsWith('→ util') && !a.startsWith('vscode →')).map((a) => a.split(' → ')[0]);
    expect(drawn.utilUsers).toEqual(users.sort());
  });

  it('every arrow points down the picture (no room imports one drawn above it)', () => {
    const up = actual.filter((a) => {
      const [from, to] = a.split(' → ');
      return drawn.order.indexOf(to) <= drawn.order.indexOf(from);
    });
    expect(up).toEqual([]);
  });

  it('the reader: arrows, continued lists, parentheses and the util note', () => {
    const picture = [
      '## Rooms',
      '',
      '```',
      ' src/a/   first ──► b (types), c,',
      '                    d',
      ' src/b/   second, which also names src/c/ in its text',
      '          more text ───► c',
      ' src/c/   third',
      ' src/d/   fourth ──► x',
      '```',
      '',
      'Arrows into `src/util` are not drawn: a, b and',
      'd use it.',
    ].join('\n');
    expect(readRoomsPicture(picture)).toEqual({
      order: ['a', 'b', 'c', 'd'],
      arrows: ['a → b', 'a → c', 'a → d', 'b → c', 'd → x'],
      utilUsers: ['a', 'b', 'd'],
      unknown: ['d → x'],
    });
  });
});
