/**
 * What a .vsix holds: its entries (path and unpacked size) read with yauzl, and the archive's size.
 * Used by `npm run package` (scripts/package-report.ts) and test/unit/package-contents.test.ts.
 */
import * as fs from 'fs';
import * as yauzl from 'yauzl';

export interface VsixEntry {
  path: string;
  bytes: number;
}

export interface VsixContents {
  file: string;
  /** Size of the .vsix itself. */
  bytes: number;
  entries: VsixEntry[];
}

/**
 * Text a template or a draft leaves behind, which must not ship (issue 25): package.json said
 * `https://github.com/REPLACE-WITH-OWNER/...`. `>>>>>>> REPLACE` (apply_diff's block syntax in README) is no placeholder.
 */
export const PLACEHOLDERS: RegExp[] = [
  /REPLACE[-_ ]?(WITH|ME|OWNER)/,
  /\b(TODO|FIXME|TBD|CHANGEME|XXX)\b/,
  /\bexample\.(com|org|net)\b/i,
  /\b(your|my)[-_](name|org|user|owner|publisher|repo|repository)\b/i,
  /<(owner|user|org|repo)>/i,
];

/** Each placeholder found in `text`, with its line. */
export function findPlaceholders(text: string): string[] {
  return text.split('\n').flatMap((line, i) => (PLACEHOLDERS.some((re) => re.test(line)) ? [`line ${i + 1}: ${line.trim().slice(0, 160)}`] : []));
}

/** The .vsix budget (issue 12). */
export const MAX_VSIX_BYTES = 300 * 1024;

export function readVsix(file: string): Promise<VsixContents> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error(`cannot open ${file}`));
      const entries: VsixEntry[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        if (!e.fileName.endsWith('/')) entries.push({ path: e.fileName, bytes: e.uncompressedSize });
        zip.readEntry();
      });
      zip.on('end', () => resolve({ file, bytes: fs.statSync(file).size, entries: entries.sort((a, b) => a.path.localeCompare(b.path)) }));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

export function formatKiB(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}
