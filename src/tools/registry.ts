import type { DiagnosticsSource } from '../host/diagnostics';
import type { LanguageFeatures } from '../host/languageFeatures';
import type { CodeApprover, NotebookKernelHost } from '../host/notebookKernel';
import type { CommandApprover, TerminalHost } from '../host/terminal';
import type { ReviewHost } from '../host/review';
import type { WorkspaceHost } from '../host/workspace';
import type { ChangeDependencies } from '../review/proposeChange';
import type { RecentEdits } from '../review/recentEdits';
import type { Logger } from '../util/logger';
import { applyDiffTool } from './applyDiff';
import { callHierarchyTool } from './callHierarchy';
import { describeSymbolTool } from './describeSymbol';
import { fileOutlineTool } from './fileOutline';
import { findDefinitionsTool } from './findDefinitions';
import { findReferencesTool } from './findReferences';
import { findSymbolsTool } from './findSymbols';
import type { LanguageBudgets } from './languageQuery';
import { executeCodeTool } from './executeCode';
import { executeCommandTool } from './executeCommand';
import { getDiagnosticsTool } from './getDiagnostics';
import { ideGetDiagnosticsTool } from './ideGetDiagnostics';
import { listFilesTool } from './listFiles';
import { closeAllDiffTabsTool } from './closeAllDiffTabs';
import { closeTabTool } from './closeTab';
import { openDiffTool } from './openDiff';
import { readFileTool } from './readFile';
import { renameSymbolTool } from './renameSymbol';
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
  /** Where execute_command runs its commands (VS Code's integrated terminals); without it the tool is not served. */
  terminal?: TerminalHost;
  /** Asks before each command when approvalMode is "always"; without it commands are not asked about. */
  commandApprover?: CommandApprover;
  /** The notebook executeCode runs code in (VS Code's active notebook editor); without it the tool is not served. */
  notebooks?: NotebookKernelHost;
  /** Asks before executeCode runs code unless approvalMode is "never"; without it code is not asked about. */
  codeApprover?: CodeApprover;
  /** VS Code's language features (definitions, references, hover, symbols, calls); without it those tools are not served. */
  language?: LanguageFeatures;
  /** How long the language tools wait for a language server (tests shorten it). */
  languageBudgets?: LanguageBudgets;
}

function languageTools(language: LanguageFeatures, workspace: WorkspaceHost, budgets?: LanguageBudgets): ToolDefinition[] {
  return [
    findDefinitionsTool(language, workspace, budgets),
    findReferencesTool(language, workspace, budgets),
    describeSymbolTool(language, workspace, budgets),
    fileOutlineTool(language, workspace, budgets),
    findSymbolsTool(language, workspace, budgets),
    callHierarchyTool(language, workspace, budgets),
  ] as ToolDefinition[];
}

/**
 * What each route serves. The IDE connection gets the CLI's own calls; of these the CLI shows the
 * model only getDiagnostics and executeCode (docs/protocol.md#what-the-model-sees). The tools connection gets the workspace tools
 * the model uses as `mcp__<name>__<tool>` (docs/protocol.md#the-tools-route-entry), and none of the CLI's internal calls.
 */
export function ideTools(hosts: ToolHosts): ToolDefinition[] {
  return [
    openDiffTool(hosts.review, hosts.recentEdits, hosts.documents, hosts.changes),
    closeTabTool(hosts.review),
    closeAllDiffTabsTool(hosts.review, hosts.changes),
    ideGetDiagnosticsTool(hosts.diagnostics, hosts.recentEdits, hosts.log, hosts.changes),
    ...(hosts.notebooks ? [executeCodeTool(hosts.notebooks, hosts.codeApprover && { mode: hosts.approvalMode, approver: hosts.codeApprover }, hosts.log)] : []),
  ] as ToolDefinition[];
}

export function workspaceTools(hosts: ToolHosts): ToolDefinition[] {
  return [
    readFileTool(hosts.workspace),
    listFilesTool(hosts.workspace),
    searchFilesTool(hosts.workspace),
    getDiagnosticsTool(hosts.diagnostics, hosts.workspace),
    ...(hosts.language ? languageTools(hosts.language, hosts.workspace, hosts.languageBudgets) : []),
    writeFileTool(hosts.workspace, hosts),
    applyDiffTool(hosts.workspace, hosts),
    ...(hosts.language?.rename ? [renameSymbolTool(hosts.language, hosts.workspace, hosts, hosts.languageBudgets)] : []),
    ...(hosts.terminal
      ? [executeCommandTool(hosts.terminal, hosts.workspace, hosts.commandApprover && { mode: hosts.approvalMode, approver: hosts.commandApprover })]
      : []),
  ] as ToolDefinition[];
}
