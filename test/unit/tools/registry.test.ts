import * as fs from 'fs';
import * as path from 'path';
import type { ToolHosts } from '../../../src/tools/registry';
import { ideTools, workspaceTools } from '../../../src/tools/registry';
import type { ToolDefinition } from '../../../src/tools/toolDefinition';
import { RecentEdits } from '../../../src/review/recentEdits';
import { KeyedLock } from '../../../src/util/keyedLock';
import { DiskDocumentWriter, ScriptedLanguageFeatures, ScriptedReviewHost, StaticDiagnostics } from '../../support/fakeHosts';

// The registry is where a newcomer finds what each route serves, and each tool has a file of its own.
describe('tools/registry', () => {
  const asked: string[] = [];
  const ran: string[] = [];
  let mode: 'write-only' | 'always' = 'write-only';
  const hosts = (over: Partial<ToolHosts> = {}): ToolHosts => ({
    review: new ScriptedReviewHost(),
    diagnostics: new StaticDiagnostics(),
    workspace: { folders: () => [process.cwd()], ripgrepPath: () => undefined },
    documents: new DiskDocumentWriter(),
    approvalMode: () => mode,
    lock: new KeyedLock(),
    recentEdits: new RecentEdits(),
    ...over,
  });
  const names = (tools: ToolDefinition[]) => tools.map((t) => t.name);
  const terminal = { run: async (command: string, { cwd }: { cwd: string }) => (ran.push(command), { exit_code: 0, output: '', cwd, output_captured: true }) };

  it('lists every tool of both routes, execute_command included when a terminal is given', () => {
    expect(names(ideTools(hosts()))).toEqual(['openDiff', 'close_tab', 'closeAllDiffTabs', 'getDiagnostics']);
    expect(names(workspaceTools(hosts()))).toEqual(['read_file', 'list_files', 'search_files', 'get_diagnostics', 'write_file', 'apply_diff']);
    expect(names(workspaceTools(hosts({ terminal })))).toEqual([
      'read_file',
      'list_files',
      'search_files',
      'get_diagnostics',
      'write_file',
      'apply_diff',
      'execute_command',
    ]);
  });

  it("serves the language tools only when VS Code's language features are given", () => {
    expect(names(workspaceTools(hosts({ language: new ScriptedLanguageFeatures() })))).toEqual([
      'read_file',
      'list_files',
      'search_files',
      'get_diagnostics',
      'find_definitions',
      'find_references',
      'describe_symbol',
      'file_outline',
      'find_symbols',
      'call_hierarchy',
      'write_file',
      'apply_diff',
      'rename_symbol',
    ]);
  });

  it('execute_command asks the command approver under approvalMode "always", as extension.ts wires it', async () => {
    const approver = { approve: async (command: string) => (asked.push(command), false) };
    const tool = workspaceTools(hosts({ terminal, commandApprover: approver })).find((t) => t.name === 'execute_command')!;
    const context = { connectionId: 1, signal: new AbortController().signal };
    await tool.handle({ command: 'echo one' }, context);
    mode = 'always';
    const rejected = await tool.handle({ command: 'echo two' }, context);
    expect(ran).toEqual(['echo one']);
    expect(asked).toEqual(['echo two']);
    expect(JSON.stringify(rejected)).toContain('rejected');
  });

  it('each tool is defined in a file of its own under src/tools', () => {
    const dir = path.join(__dirname, '../../../src/tools');
    const defined = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => ({ f, tools: [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/defineTool\(\{\s*name: '([^']+)'/g)].map((m) => m[1]) }));
    expect(defined.filter((d) => d.tools.length > 1)).toEqual([]);
    const all = [...names(ideTools(hosts())), ...names(workspaceTools(hosts({ terminal, language: new ScriptedLanguageFeatures() })))];
    expect(all.map((name) => defined.filter((d) => d.tools.includes(name)).length)).toEqual(all.map(() => 1));
  });
});
