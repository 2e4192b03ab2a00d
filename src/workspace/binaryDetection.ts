// Binary sniffing the way git and VS Code do it: a NUL byte near the start means "not text".
// UTF-16 text contains NULs too: read_file asks only when the file has no UTF-16 byte order mark.

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
