// What the transport benchmark's client and servers agree on.
import type { DiagnosticItem } from '../../src/host/diagnostics';

export const BENCH_TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';
/** Connections to this path ask for the ~1 MB result (the echo server needs to know up front). */
export const BULK_PATH = '/?bulk';
/** The file the small tools/call asks about: one problem, a ~200-byte answer. */
export const SMALL_FILE = '/work/project/src/small.ts';

/** ~1 MB of diagnostics (as getDiagnostics without a uri returns them): 350 files × 20 problems. */
export function bulkPanel(): Array<[string, DiagnosticItem[]]> {
  return Array.from({ length: 350 }, (_, f) => [
    `/work/project/src/module${f}/file${f}.ts`,
    Array.from({ length: 20 }, (_, i) => ({
      message: `Property 'x${i}' does not exist on type 'SomeLongTypeName${f}'. Did you mean 'y${i}'?`,
      severity: 'Error' as const,
      range: { start: { line: i * 3, character: 4 }, end: { line: i * 3, character: 9 } },
      source: 'ts',
      code: '2339',
    })),
  ]);
}

export type ControlRequest = { kind: 'push'; count: number } | { kind: 'heap' } | { kind: 'spaces' };
/** `spaces`: V8's heap as it stands (no GC first), in bytes: what RSS is made of besides Node itself. */
export type HeapSpaces = { newSpace: number; oldSpacesUsed: number };
export type ControlReply =
  { kind: 'ready'; port: number } | { kind: 'pushed' } | { kind: 'heap'; heapUsed: number; youngGen: number } | ({ kind: 'spaces' } & HeapSpaces);

/** A selection_changed notification's params, as the selection tracker sends them. */
export const selectionParams = {
  text: 'const x = 1;',
  filePath: '/work/project/src/a.ts',
  fileUrl: 'file:///work/project/src/a.ts',
  selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 12 }, isEmpty: false },
};
