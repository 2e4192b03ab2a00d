// The hosts the floor and the real server build their tools on: scripted review, the bench's
// Problems panel, a temporary workspace folder (removed when the process exits).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RecentEdits } from '../../src/review/recentEdits';
import type { ToolHosts } from '../../src/tools/registry';
import { KeyedLock } from '../../src/util/keyedLock';
import { DiskDocumentWriter, ScriptedReviewHost } from '../../test/support/fakeHosts';
import { benchPanel } from './panel';

export function benchHosts(): { hosts: ToolHosts; root: string } {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'nc-transport-bench-')));
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  const hosts: ToolHosts = {
    review: new ScriptedReviewHost(),
    diagnostics: benchPanel(),
    workspace: { folders: () => [root], ripgrepPath: () => undefined },
    documents: new DiskDocumentWriter(),
    approvalMode: () => 'write-only',
    lock: new KeyedLock(),
    recentEdits: new RecentEdits(),
  };
  return { hosts, root };
}
