// This project's server as the extension runs it, minus VS Code: IdeBridge → IdeServer → one
// McpServer per connection with every tool of both routes, scripted hosts (test/support/fakeHosts).
// As in src/extension.ts, the SDK, zod and the tools are imported on the first connection.
import * as path from 'node:path';
import { IdeBridge, type ServerIdentity } from '../../src/server/ideBridge';
import { lazySessionFactory } from '../../src/server/lazySessionFactory';
import { memoryLogger } from '../../src/util/logger';
import { benchHosts } from './hosts';
import { serve } from './serve';
import { BENCH_TOKEN, selectionParams } from './shared';

serve(async () => {
  const { hosts, root } = benchHosts();
  let saved: ServerIdentity | undefined = { port: 0, token: BENCH_TOKEN };
  const log = memoryLogger(); // drops every line, as a channel at the default level drops debug
  const bridge = new IdeBridge({
    ideName: 'Bench',
    lockPid: process.pid,
    runningInWindows: false,
    lockDirectory: path.join(root, 'ide'),
    identity: { load: () => saved, save: async (identity) => void (saved = identity) },
    log,
    createSession: lazySessionFactory(async () => {
      const [{ createSessionFactory }, { ideTools, workspaceTools }] = await Promise.all([
        import(/* webpackChunkName: "session" */ '../../src/server/mcpSession'),
        import(/* webpackChunkName: "session" */ '../../src/tools/registry'),
      ]);
      const toolsByRoute = { ide: ideTools(hosts), tools: workspaceTools(hosts) };
      // traceCalls off: VS Code's default log level (Info) does not show the per-call debug line.
      return createSessionFactory({
        toolsFor: (route) => toolsByRoute[route],
        serverInfo: { name: 'native-claude', version: 'bench' },
        log,
        traceCalls: () => false,
      });
    }),
  });
  const { port } = await bridge.start([root]);
  return {
    port,
    push: (count) => {
      for (let i = 0; i < count; i++) void bridge.ideServer?.notifySessions('selection_changed', selectionParams);
    },
  };
});
