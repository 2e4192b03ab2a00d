// The part every benchmark server shares: it reports its port over IPC and answers the parent's
// control messages (push notifications, heap after GC). Each server is its own webpack entry, so
// a process loads only its own code (the echo server never loads the SDK).
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import type { ControlReply, ControlRequest } from './shared';

export interface BenchServer {
  port: number;
  /** Pushes `count` selection_changed notifications to the main connection, without waiting. */
  push(count: number): void;
}

export function serve(start: () => Promise<BenchServer>): void {
  start()
    .then((server) => {
      process.on('message', (request: ControlRequest) => {
        let reply: ControlReply;
        if (request.kind === 'push') {
          server.push(request.count);
          reply = { kind: 'pushed' };
        } else if (request.kind === 'spaces') {
          reply = { kind: 'spaces', newSpace: heapSpaces(true, 'space_size'), oldSpacesUsed: heapSpaces(false, 'space_used_size') };
        } else {
          // Two full collections (the second frees what the first's finalizers let go), compacting:
          // a plain forced GC leaves old-space pages as fragmented as the run left them, and how much
          // of that stays committed varies from run to run (the floor kept 0.5-2.3 MB of free old
          // space in otherwise equal runs). V8 compacts by itself once the process idles (its memory
          // reducer: this server's RSS fell from 104 to 58 MB 16-30 s after a run); this shows what
          // the server keeps then, without the wait. Node 20's gc({ type: 'major', flavor:
          // 'last-resort' }) was tried: it ignores the options. Set here, for the measurement only.
          setFlagsFromString('--compact-on-every-full-gc');
          global.gc?.();
          global.gc?.();
          reply = { kind: 'heap', heapUsed: process.memoryUsage().heapUsed, youngGen: heapSpaces(true, 'physical_space_size') };
        }
        process.send?.(reply);
      });
      process.on('disconnect', () => process.exit(0));
      process.send?.({ kind: 'ready', port: server.port } satisfies ControlReply);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}

/** A figure of V8's young generation (`young`) or of all its other spaces, summed. */
function heapSpaces(young: boolean, figure: 'space_size' | 'space_used_size' | 'physical_space_size'): number {
  return getHeapSpaceStatistics()
    .filter((s) => s.space_name.startsWith('new_') === young)
    .reduce((n, s) => n + s[figure], 0);
}
