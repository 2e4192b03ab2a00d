/**
 * scripts/packaged-readme.ts: the README the .vsix ships leaves out the pictures VS Code's extension page
 * cannot show (no https address), keeps everything else, and stops the build on a picture it cannot leave
 * out cleanly. test/unit/package-contents.test.ts checks the packaged file itself.
 */
import * as fs from 'fs';
import * as path from 'path';
import { packagedReadme } from '../../scripts/packaged-readme';

describe('packagedReadme', () => {
  it('leaves out pictures on lines of their own with the blank line each leaves, in lists too', () => {
    const md = [
      '# T',
      '',
      'Intro.',
      '',
      '![a diff](docs/images/review.png)',
      '',
      '## Next',
      '',
      '1. Step one.',
      '',
      '   ![status](docs/images/status-bar.png)',
      '',
      '2. Step two.',
      '',
    ].join('\n');
    expect(packagedReadme(md)).toBe(['# T', '', 'Intro.', '', '## Next', '', '1. Step one.', '', '2. Step two.', ''].join('\n'));
  });

  it('keeps https pictures, links, code and text as they are', () => {
    const plain = '![logo](https://example.org/a.png)\n\nSee [docs/security.md](docs/security.md).\n\n| a | `>>>>>>> REPLACE` |\n';
    expect(packagedReadme(plain)).toBe(plain);
  });

  it('refuses a relative or data: picture inside a line of text, naming it and saying what to do', () => {
    expect(() => packagedReadme('Look: ![x](docs/images/x.png) here.\n')).toThrow(/docs\/images\/x\.png.*line of its own.*https/);
    expect(() => packagedReadme('<p><img src="media/a.png"></p>\n')).toThrow(/media\/a\.png/);
    expect(() => packagedReadme('a ![d](data:image/png;base64,AAAA) b\n')).toThrow(/data:image/);
  });

  it("on this repository's README: every picture left out, every other line kept in order", () => {
    const readme = fs.readFileSync(path.resolve(__dirname, '..', '..', 'README.md'), 'utf8');
    const out = packagedReadme(readme);
    const pictures = readme.split('\n').filter((l) => /^\s*!\[/.test(l));
    expect(pictures.length).toBeGreaterThanOrEqual(5);
    expect(out).not.toMatch(/!\[|<img/);
    const rest = readme.split('\n').filter((l) => !/^\s*!\[/.test(l) && l.trim() !== '');
    expect(out.split('\n').filter((l) => l.trim() !== '')).toEqual(rest);
  });
});
