// Binary sniffing the way git and VS Code do it: a NUL byte near the start means "not text".
// UTF-16 files contain NULs too and are therefore reported as binary; this project reads files as
// UTF-8, so refusing them is the honest answer.

import { promises as fs } from 'fs';

/** How many leading bytes are inspected. */
export const BINARY_SNIFF_BYTES = 8192;

/** True when a NUL byte occurs within the first {@link BINARY_SNIFF_BYTES} bytes. */
export function looksBinary(buf: Uint8Array): boolean {
  const end = Math.min(buf.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) {
    if (buf[i] === 0) return true;
  }
  return false;
}

/**
 * Reads at most the first {@link BINARY_SNIFF_BYTES} bytes of the file (never the whole file, so it
 * is safe on huge files and on endless devices) and applies {@link looksBinary}.
 * Rejects like `fs.open` does (ENOENT, EISDIR, EACCES...).
 */
export async function fileLooksBinary(filePath: string): Promise<boolean> {
  const handle = await fs.open(filePath, 'r');
  try {
    const buf = new Uint8Array(BINARY_SNIFF_BYTES);
    let filled = 0;
    // A single read may return fewer bytes than asked (pipes, network files): loop until full or EOF.
    while (filled < buf.length) {
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return looksBinary(buf.subarray(0, filled));
  } finally {
    await handle.close();
  }
}
