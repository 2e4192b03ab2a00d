// The part every benchmark server shares: it reports its port over IPC and answers the parent's
// control messages (push notifications, heap after GC). Each server is its own webpack entry, so
// a process loads only its own code (the echo server never loads the SDK).
import { getHeapSpaceStatistics } from 'node:v8';
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
          const spaces = getHeapSpaceStatistics();
          const newSpace = spaces.filter((s) => s.space_name.startsWith('new_')).reduce((n, s) => n + s.space_size, 0);
          const oldSpacesUsed = spaces.filter((s) => !s.space_name.startsWith('new_')).reduce((n, s) => n + s.space_used_size, 0);
          reply = { kind: 'spaces', newSpace, oldSpacesUsed };
        } else {
          // Two full collections (the second frees what the first's finalizers let go). Node 20's
          // gc({ type: 'major', flavor: 'last-resort' }) was tried: it left the garbage in place.
          global.gc?.();
          global.gc?.();
          const youngGen = getHeapSpaceStatistics()
            .filter((s) => s.space_name.startsWith('new_'))
            .reduce((n, s) => n + s.physical_space_size, 0);
          reply = { kind: 'heap', heapUsed: process.memoryUsage().heapUsed, youngGen };
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
