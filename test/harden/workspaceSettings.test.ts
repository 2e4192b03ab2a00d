// Hardening — the settings a repository can set (its `.vscode/settings.json`, a `.code-workspace`, a
// folder's settings) in a trusted workspace. It could set `nativeClaude.excludeFromSharing: []`, and
// `.env` selections then went to every session; `multipleSessions: newest-wins` (any token holder may
// then close claude's session); `maxMessageBytes` with no maximum; `shareSelection`/`autoStart` back on
// against the user's choice. Now each setting has one rule in src/vscode/settings.ts: a repository's
// value counts only where it is as safe as the user's own, numbers have a maximum, and a value of the
// wrong type counts as unset. The real settings reader against a stand-in of the `vscode` module.

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import * as vscode from 'vscode';
import { currentSharingPolicy } from '../../src/vscode/selection/selectionSharing';
import { SETTING_DEFAULTS, reportInvalidSettingsTo, setting, type NativeClaudeSettings } from '../../src/vscode/settings';
import { standIn } from './support/vscodeStandIn';

type Key = keyof NativeClaudeSettings;
/** What inspect() reports: the manifest's default, the user's own value, and the repository's. */
function set(key: Key, values: { user?: unknown; repository?: unknown; folder?: unknown }) {
  standIn.settings[`nativeClaude.${key}`] = {
    defaultValue: SETTING_DEFAULTS[key],
    globalValue: values.user,
    workspaceValue: values.repository,
    workspaceFolderValue: values.folder,
  } as never;
}
const MiB = 1024 * 1024;

describe("hardening: a repository's settings cannot make Native Claude less safe than the user's own", () => {
  beforeEach(() => {
    standIn.reset();
    (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = [{ uri: { fsPath: '/w' }, name: 'w' }];
  });

  test('excludeFromSharing: [] from the repository: a .env selection is still not shared; its own patterns are added', () => {
    set('excludeFromSharing', { repository: [] });
    expect(currentSharingPolicy().isExcluded('/w/.env')).toBe(true);
    set('excludeFromSharing', { repository: ['*.secret'], folder: [42, 'x'.repeat(5000)] });
    expect(currentSharingPolicy().isExcluded('/w/.env.local')).toBe(true);
    expect(currentSharingPolicy().isExcluded('/w/db.secret')).toBe(true);
    // The user's own list is theirs: a pattern they removed stays removed.
    set('excludeFromSharing', { user: ['*.pem'] });
    expect(currentSharingPolicy().isExcluded('/w/.env')).toBe(false);
  });

  test("multipleSessions: newest-wins from the repository is ignored; the user's own counts", () => {
    set('multipleSessions', { repository: 'newest-wins' });
    expect(setting('multipleSessions')).toBe('all');
    set('multipleSessions', { user: 'newest-wins' });
    expect(setting('multipleSessions')).toBe('newest-wins');
  });

  test('maxMessageBytes: a maximum of 64 MiB; a repository may only lower it; a wrong type falls back', () => {
    set('maxMessageBytes', { repository: 1024 * MiB });
    expect(setting('maxMessageBytes')).toBe(16 * MiB);
    set('maxMessageBytes', { user: 1024 * MiB });
    expect(setting('maxMessageBytes')).toBe(64 * MiB);
    set('maxMessageBytes', { repository: 1 * MiB });
    expect(setting('maxMessageBytes')).toBe(1 * MiB);
    set('maxMessageBytes', { user: 'lots', repository: { a: 1 } });
    expect(setting('maxMessageBytes')).toBe(16 * MiB);
  });

  test('a value of the wrong type is said in the log, once per setting, scope and value, with what counts instead', () => {
    const warned: string[] = [];
    reportInvalidSettingsTo({ warn: (m) => warned.push(m) });
    set('maxMessageBytes', { user: '1000000', repository: true });
    for (let i = 0; i < 5; i++) expect(setting('maxMessageBytes')).toBe(16 * MiB);
    expect(warned).toEqual([
      'Setting nativeClaude.maxMessageBytes: the user value "1000000" is not valid (see its description in Settings); it counts as unset.',
      'Setting nativeClaude.maxMessageBytes: the workspace value true is not valid (see its description in Settings); it counts as unset.',
    ]);
    // A valid or unset value says nothing; approvalMode, read on its own path, reports too.
    set('maxMessageBytes', { user: 2 * MiB });
    set('approvalMode', { folder: 'sometimes' });
    expect(setting('maxMessageBytes')).toBe(2 * MiB);
    expect(setting('approvalMode')).toBe('write-only');
    expect(warned.slice(2)).toEqual([
      'Setting nativeClaude.approvalMode: the folder value "sometimes" is not valid (see its description in Settings); it counts as unset.',
    ]);
  });

  test('shareSelection and autoStart: a repository may turn them off, never back on', () => {
    for (const key of ['shareSelection', 'autoStart'] as const) {
      set(key, { user: false, repository: true });
      expect(setting(key)).toBe(false);
      set(key, { repository: false });
      expect(setting(key)).toBe(false);
      set(key, { repository: 'yes' });
      expect(setting(key)).toBe(true);
    }
  });

  test("claudeCommand and approvalMode: the repository's program is never run, its `never` never counts", () => {
    set('claudeCommand', { repository: './scripts/evil.sh' });
    expect(setting('claudeCommand')).toBe('claude');
    set('approvalMode', { repository: 'never' });
    expect(setting('approvalMode')).toBe('write-only');
    set('approvalMode', { repository: 'always' });
    expect(setting('approvalMode')).toBe('always');
  });

  test("reviewPlacement: where a review opens is the repository's to choose; a wrong value falls back", () => {
    set('reviewPlacement', { user: 'beside', repository: 'background' });
    expect(setting('reviewPlacement')).toBe('background');
    set('reviewPlacement', { repository: 'elsewhere' });
    expect(setting('reviewPlacement')).toBe('active');
  });
});
