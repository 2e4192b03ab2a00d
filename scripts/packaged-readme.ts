/**
 * The README the .vsix ships: `npm run package` writes dist/README.md from README.md and hands it to vsce
 * (`--readme-path`, packaged as extension/readme.md). VS Code's extension details page shows only http(s)
 * pictures: it drops a relative or data: image source, leaving a broken-image box (seen in code-server
 * 4.139.1), and this project has no public URL to host its pictures. So the packaged README leaves out the
 * pictures on lines of their own; any other non-https picture stops the build. Text and links are README.md's.
 */
import * as fs from 'fs';
import * as path from 'path';

const IMAGE_LINE = /^[ \t]*!\[[^\]]*\]\([^)]*\)[ \t]*$/;
const IMAGE = /!\[[^\]]*\]\(\s*([^)\s]*)[^)]*\)|<img\b[^>]*\bsrc\s*=\s*["']([^"']*)["']/gi;

export function packagedReadme(markdown: string): string {
  const lines = markdown.split('\n');
  const kept: string[] = [];
  for (const line of lines) {
    if (IMAGE_LINE.test(line) && !/\]\(\s*https:\/\//i.test(line)) {
      // Drop the picture and the blank line it leaves, so paragraphs keep one blank line between them.
      if (kept.length > 0 && kept[kept.length - 1].trim() === '') kept.pop();
      continue;
    }
    kept.push(line);
  }
  const text = kept.join('\n');
  const left = [...text.matchAll(IMAGE)].map((m) => m[1] ?? m[2]).filter((src) => !/^https:\/\//i.test(src));
  if (left.length > 0) {
    throw new Error(
      `README.md has pictures inside a line of text that the extension's details page cannot show: ${left.join(', ')}. ` +
        'Put each picture on a line of its own (the packaged README leaves those out) or give it an https URL.',
    );
  }
  return text;
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const out = path.join(root, 'dist', 'README.md');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, packagedReadme(fs.readFileSync(path.join(root, 'README.md'), 'utf8')));
}
