// The part every benchmark server shares: it reports its port over IPC and answers the parent's
// control messages (push notifications, heap after GC). Each server is its own webpack entry, so
// a process loads only its own code (the echo server never loads the SDK).
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
        } else {
          global.gc?.();
          global.gc?.();
          reply = { kind: 'heap', heapUsed: process.memoryUsage().heapUsed };
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
