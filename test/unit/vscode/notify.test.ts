import * as fs from 'fs';
import * as path from 'path';

// A notification turns `[label](command:…)` in its message into a link that runs the command, and most
// of ours carry text from outside (a file name claude chose, an error's message). So every non-modal
// notification goes through src/vscode/notify.ts, which makes such text plain; this keeps it that way.
const SRC = path.join(__dirname, '../../../src');

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** The argument list of the call whose `(` is at `open`. */
function argumentsAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if ('([{'.includes(text[i])) depth++;
    else if (')]}'.includes(text[i]) && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

test('every non-modal notification goes through notify (links in outside text stay text)', () => {
  const direct: string[] = [];
  let modal = 0;
  for (const file of sources(SRC)) {
    if (file.endsWith(path.join('vscode', 'notify.ts'))) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\.\s*show(?:Information|Warning|Error)Message\s*\(/g)) {
      if (/modal:\s*true/.test(argumentsAt(text, m.index + m[0].length - 1))) modal++;
      else direct.push(`${path.relative(SRC, file)}:${text.slice(0, m.index).split('\n').length}`);
    }
  }
  expect(direct).toEqual([]);
  expect(modal).toBeGreaterThan(0); // the scan does see calls
});
