import type * as vscode from 'vscode';
import { TerminalEnvironment } from '../../../src/vscode/terminals/terminalEnvironment';

/**
 * What TerminalEnvironment writes into the extension's collection: the global entries and, for
 * CLAUDE_CODE_SSE_PORT, one scoped to each workspace folder (keys as `<scope>|<variable>`). Which
 * extension's value a terminal gets is VS Code's business, proven in test/real/vscode-coexistence-reload.
 */
class RecordingCollection {
  /** VS Code's default for a collection. */
  persistent = true;
  description: string | undefined;
  readonly entries = new Map<string, string>();

  private scopedView(scope: string) {
    return {
      replace: (name: string, value: string) => void this.entries.set(`${scope}|${name}`, value),
      delete: (name: string) => void this.entries.delete(`${scope}|${name}`),
    };
  }
  replace(name: string, value: string): void {
    this.scopedView('global').replace(name, value);
  }
  delete(name: string): void {
    this.scopedView('global').delete(name);
  }
  clear(): void {
    this.entries.clear();
  }
  getScoped(scope: vscode.EnvironmentVariableScope) {
    return this.scopedView(scope.workspaceFolder!.uri.toString());
  }
  snapshot(): Record<string, string> {
    return Object.fromEntries([...this.entries].sort(([a], [b]) => a.localeCompare(b)));
  }
}

const folder = (name: string, index: number) => ({ uri: { toString: () => `file:///${name}` }, name, index }) as unknown as vscode.WorkspaceFolder;

describe('TerminalEnvironment', () => {
  let folders: vscode.WorkspaceFolder[];
  let collection: RecordingCollection;
  let env: TerminalEnvironment;
  beforeEach(() => {
    folders = [folder('a', 0), folder('b', 1)];
    collection = new RecordingCollection();
    env = new TerminalEnvironment(collection as unknown as vscode.GlobalEnvironmentVariableCollection, () => folders);
  });

  it('is not persistent (it carries the token, which VS Code would store on disk), and sets the port globally and scoped to every workspace folder', () => {
    env.apply(4242, { NATIVE_CLAUDE_PORT: '4242' });
    expect(collection.persistent).toBe(false);
    expect(collection.snapshot()).toEqual({
      'file:///a|CLAUDE_CODE_SSE_PORT': '4242',
      'file:///b|CLAUDE_CODE_SSE_PORT': '4242',
      'global|CLAUDE_CODE_SSE_PORT': '4242',
      'global|ENABLE_IDE_INTEGRATION': 'true',
      'global|NATIVE_CLAUDE_PORT': '4242',
    });
  });

  it('leaving the port to another extension removes it everywhere, scoped entries included', () => {
    env.apply(4242);
    env.apply(4242, { NATIVE_CLAUDE_PORT: '4242' }, false);
    expect(collection.snapshot()).toEqual({ 'global|NATIVE_CLAUDE_PORT': '4242' });
  });

  it('a removed folder loses its scoped entry; an added one gets it', () => {
    env.apply(4242);
    folders = [folder('b', 0), folder('c', 1)];
    env.apply(4242);
    expect(Object.keys(collection.snapshot()).filter((k) => k.endsWith('|CLAUDE_CODE_SSE_PORT'))).toEqual([
      'file:///b|CLAUDE_CODE_SSE_PORT',
      'file:///c|CLAUDE_CODE_SSE_PORT',
      'global|CLAUDE_CODE_SSE_PORT',
    ]);
  });

  it('clear() leaves nothing', () => {
    env.apply(4242);
    env.clear();
    expect(collection.snapshot()).toEqual({});
  });
});
