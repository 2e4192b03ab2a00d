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
