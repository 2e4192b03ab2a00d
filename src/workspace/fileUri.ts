/**
 * `file://` + raw path (as the CLI sends it and as diagnostics are keyed, docs/protocol.md#getdiagnostics) back to
 * the path. Not percent-decoded: the path is raw, so a file named `a%20b.ts` stays itself. On Windows the
 * `/` before a drive letter is dropped. Undefined for other schemes.
 */
export function pathOfFileUri(uri: string): string | undefined {
  if (!uri.startsWith('file://')) return undefined;
  const raw = uri.slice('file://'.length);
  return /^\/[A-Za-z]:/.test(raw) ? raw.slice(1) : raw;
}
