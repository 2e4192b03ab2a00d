import type { DiagnosticsSource } from '../host/diagnostics';
import type { ReviewHost } from '../host/review';
import type { WorkspaceHost } from '../host/workspace';
import type { ChangeDependencies } from '../review/proposeChange';
import type { RecentEdits } from '../review/recentEdits';
import type { Logger } from '../util/logger';
import { applyDiffTool } from './applyDiff';
import { getDiagnosticsTool } from './getDiagnostics';
import { ideGetDiagnosticsTool } from './ideGetDiagnostics';
import { listFilesTool } from './listFiles';
import { closeAllDiffTabsTool, closeTabTool, openDiffTool } from './openDiff';
import { readFileTool } from './readFile';
import { searchFilesTool } from './searchFiles';
import type { ToolDefinition } from './toolDefinition';
import { writeFileTool } from './writeFile';

export interface ToolHosts extends ChangeDependencies {
  review: ReviewHost;
  diagnostics: DiagnosticsSource;
  workspace: WorkspaceHost;
  /** Files just accepted through openDiff, for the next getDiagnostics. */
  recentEdits?: RecentEdits;
  /** Where the diagnostics calls say how long they waited. */
  log?: Logger;
  /** Extra workspace tools (execute_command), built where the terminal lives. */
  extraWorkspaceTools?: ToolDefinition[];
}

/**
 * What each route serves. The IDE connection gets the CLI's own calls; of these the CLI shows the
 * model only getDiagnostics (ide-protocol.md §5.1). The tools connection gets the workspace tools
 * the model uses as `mcp__<name>__<tool>` (§5.2), and none of the CLI's internal calls.
 */
export function ideTools(hosts: ToolHosts): ToolDefinition[] {
  return [
    openDiffTool(hosts.review, hosts.recentEdits, hosts.documents),
    closeTabTool(hosts.review),
    closeAllDiffTabsTool(hosts.review),
    ideGetDiagnosticsTool(hosts.diagnostics, hosts.recentEdits, hosts.log),
  ] as ToolDefinition[];
}

export function workspaceTools(hosts: ToolHosts): ToolDefinition[] {
  return [
    readFileTool(hosts.workspace),
    listFilesTool(hosts.workspace),
    searchFilesTool(hosts.workspace),
    getDiagnosticsTool(hosts.diagnostics, hosts.workspace),
    writeFileTool(hosts.workspace, hosts),
    applyDiffTool(hosts.workspace, hosts),
    ...(hosts.extraWorkspaceTools ?? []),
  ] as ToolDefinition[];
}
