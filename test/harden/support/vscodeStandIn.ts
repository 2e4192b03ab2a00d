import type { IdeBridge } from '../../../src/server/ideBridge';
import type { WindowSessions } from '../../../src/vscode/lifecycle/windowSessions';

/**
 * The part of the `vscode` module that src/vscode/changes/claudeChanges.ts touches, for harden tests that run
 * its real commands in Node (`jest.mock('vscode', () => vscodeStandIn(), { virtual: true })`). What the
 * commands did is read back from {@link standIn}.
 */
export const standIn = {
  commands: new Map<string, (...args: unknown[]) => Promise<unknown>>(),
  /** The modal questions asked. */
  questions: [] as string[],
  /** The error messages shown. */
  errors: [] as string[],
  /** The (non-modal) warnings shown. */
  warnings: [] as string[],
  /** The (non-modal) information messages shown. */
  infos: [] as string[],
  /** The modal questions' details, in the order asked. */
  details: [] as string[],
  /** The editor tabs open (`window.tabGroups.all[0].tabs`), and those the extension closed. */
  tabs: [] as { label: string; input: unknown }[],
  closedTabs: [] as { label: string; input: unknown }[],
  /** Settings as `inspect()` reports them, by `section.key` (e.g. `files.exclude`). */
  settings: {} as Record<string, { defaultValue?: unknown; globalValue?: unknown; workspaceValue?: unknown } | undefined>,
  /** What the dialog answers: undefined is the user closing it (Cancel). */
  dialogAnswer: undefined as string | undefined,
  /** The listeners of the file system watchers created, by event ({@link fireWatcher} calls them). */
  watcherListeners: { change: [], create: [], delete: [] } as {
    change: ((uri: unknown) => void)[];
    create: ((uri: unknown) => void)[];
    delete: ((uri: unknown) => void)[];
  },
  /** VS Code's file watcher reporting `fsPath` (a file: URI). */
  fireWatcher(event: 'change' | 'create' | 'delete', fsPath: string): void {
    for (const listener of this.watcherListeners[event]) listener({ scheme: 'file', fsPath, path: fsPath });
  },
  /** The file system providers registered, by scheme. */
  fileSystems: new Map<string, unknown>(),
  /** The git extension's exports (`vscode.git`), if the test gives one. */
  gitExtension: undefined as unknown,
  reset(): void {
    this.commands.clear();
    this.questions.length = 0;
    this.errors.length = 0;
    this.warnings.length = 0;
    this.infos.length = 0;
    this.details.length = 0;
    this.tabs = [];
    this.closedTabs = [];
    this.settings = {};
    this.dialogAnswer = undefined;
    this.gitExtension = undefined;
    this.fileSystems.clear();
    this.watcherListeners = { change: [], create: [], delete: [] };
  },
};

export function vscodeStandIn() {
  const disposable = { dispose: () => undefined };
  class EventEmitter {
    event = () => disposable;
    fire() {}
    dispose() {}
  }
  const uri = (fsPath: string) => ({ scheme: 'file', fsPath, path: fsPath });
  class ThemeIcon {
    constructor(readonly id: string) {}
  }
  class Disposable {
    constructor(readonly dispose: () => void) {}
  }
  class FileSystemError extends Error {
    static FileNotFound = (what?: unknown) => new FileSystemError(`FileNotFound: ${String(what)}`);
    static NoPermissions = (what?: unknown) => new FileSystemError(`NoPermissions: ${String(what)}`);
  }
  class TabInputTextDiff {
    constructor(
      readonly original: unknown,
      readonly modified: unknown,
    ) {}
  }
  return {
    EventEmitter,
    ThemeIcon,
    Disposable,
    FileSystemError,
    TabInputTextDiff,
    FileType: { File: 1, Directory: 2 },
    FilePermission: { Readonly: 1 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    Uri: {
      file: uri,
      from: (parts: { scheme: string; path: string; query?: string }) =>
        parts.scheme === 'file' ? uri(parts.path) : { ...parts, fsPath: parts.path, toString: () => `${parts.scheme}:${parts.path}?${parts.query ?? ''}` },
    },
    scm: {
      createSourceControl: () => ({ inputBox: {}, createResourceGroup: () => ({ resourceStates: [], dispose: () => undefined }), dispose: () => undefined }),
    },
    window: {
      createStatusBarItem: () => ({ show: () => undefined, hide: () => undefined, dispose: () => undefined }),
      showWarningMessage: async (message: string, options?: unknown) =>
        (options as { modal?: boolean } | undefined)?.modal
          ? (standIn.questions.push(message), standIn.details.push((options as { detail?: string }).detail ?? ''), standIn.dialogAnswer)
          : void standIn.warnings.push(message),
      showInformationMessage: async (message: string) => void standIn.infos.push(message),
      showErrorMessage: async (message: string) => void standIn.errors.push(message),
      tabGroups: {
        get all() {
          return [{ tabs: standIn.tabs }];
        },
        close: async (tabs: { label: string; input: unknown }[]) => {
          standIn.closedTabs.push(...tabs);
          standIn.tabs = standIn.tabs.filter((t) => !tabs.includes(t));
          return true;
        },
      },
    },
    workspace: {
      workspaceFolders: undefined,
      registerTextDocumentContentProvider: () => disposable,
      registerFileSystemProvider: (scheme: string, provider: unknown) => (standIn.fileSystems.set(scheme, provider), disposable),
      onWillSaveTextDocument: () => disposable,
      asRelativePath: (p: string) => p,
      getWorkspaceFolder(target: { fsPath: string }) {
        const folders = (this as { workspaceFolders?: { uri: { fsPath: string } }[] }).workspaceFolders ?? [];
        return folders.find((f) => target.fsPath === f.uri.fsPath || target.fsPath.startsWith(`${f.uri.fsPath}/`));
      },
      getConfiguration: (section?: string) => ({
        get: (key: string) => {
          const i = standIn.settings[`${section}.${key}`];
          return i?.workspaceValue ?? i?.globalValue ?? i?.defaultValue;
        },
        inspect: (key: string) => standIn.settings[`${section}.${key}`],
      }),
      onDidChangeConfiguration: () => disposable,
      onDidChangeWorkspaceFolders: () => disposable,
      createFileSystemWatcher: () => {
        const on = (event: 'change' | 'create' | 'delete') => (listener: (uri: unknown) => void) => (
          standIn.watcherListeners[event].push(listener),
          disposable
        );
        return { onDidChange: on('change'), onDidCreate: on('create'), onDidDelete: on('delete'), dispose: () => undefined };
      },
    },
    commands: {
      registerCommand: (name: string, run: (...args: unknown[]) => Promise<unknown>) => (standIn.commands.set(name, run), disposable),
      executeCommand: async () => undefined,
    },
    extensions: { getExtension: (id: string) => (id === 'vscode.git' && standIn.gitExtension ? { isActive: true, exports: standIn.gitExtension } : undefined) },
  };
}

/**
 * What ClaudeChanges needs of the IDE bridge and the window's sessions, with one claude connected
 * (connection #1, verified pid 4242: session `claude-pid-4242`) and no terminal names.
 */
export const oneClaude = {
  session: 'claude-pid-4242',
  bridge: {
    on: () => undefined,
    off: () => undefined,
    status: () => ({ sessionCount: 0 }),
    ideServer: { connections: () => [{ id: 1, route: 'ide', cliPid: 4242, pidCheck: 'verified', connectedAt: new Date(0) }], sessionConnections: () => [] },
  } as unknown as IdeBridge,
  // Connection 1 is the one claude, pid 4242 verified (src/server/sessionSource.ts answers this in the product).
  windowSessions: {
    labels: () => [],
    claudeOf: (id: number) => (id === 1 ? { id: 1, cliPid: 4242, pidCheck: 'verified', connectedAt: new Date(0) } : undefined),
    sessionTerminals: { onDidChangeTargets: () => ({ dispose: () => undefined }) },
  } as unknown as WindowSessions,
};
