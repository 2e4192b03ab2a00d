jest.mock('vscode', () => ({}), { virtual: true });
import { stricterApprovalMode } from '../../../src/vscode/approvalModeSetting';
import { resolveApprovalModes } from '../../../src/vscode/settings';

// Issue 22, finding 6: a workspace (or folder) setting can only make nativeClaude.approvalMode stricter
// than the user's own, since the CLI's user-wide allow rules were written on the user's premise.

describe('approval mode: a workspace can only ask for more', () => {
  test('strictness: never < write-only < always', () => {
    expect(stricterApprovalMode('never', 'write-only')).toBe('write-only');
    expect(stricterApprovalMode('always', 'write-only')).toBe('always');
    expect(stricterApprovalMode('never', 'always')).toBe('always');
    expect(stricterApprovalMode('never', 'never')).toBe('never');
  });

  test('a workspace "never" does not weaken the user\'s write-only (or the default)', () => {
    expect(resolveApprovalModes({ defaultValue: 'write-only', workspaceValue: 'never' })).toEqual({ effective: 'write-only', user: 'write-only' });
    expect(resolveApprovalModes({ defaultValue: 'write-only', globalValue: 'always', workspaceValue: 'write-only' })).toEqual({
      effective: 'always',
      user: 'always',
    });
    expect(resolveApprovalModes({ defaultValue: 'write-only', globalValue: 'always', workspaceFolderValue: 'never' }).effective).toBe('always');
  });

  test('a workspace "always" makes it stricter; the user\'s own mode stays what the CLI rules follow', () => {
    expect(resolveApprovalModes({ defaultValue: 'write-only', globalValue: 'never', workspaceValue: 'always' })).toEqual({
      effective: 'always',
      user: 'never',
    });
    expect(resolveApprovalModes({ defaultValue: 'write-only', globalValue: 'never', workspaceFolderValue: 'write-only' })).toEqual({
      effective: 'write-only',
      user: 'never',
    });
  });

  test('the user may choose "never" for themselves', () => {
    expect(resolveApprovalModes({ defaultValue: 'write-only', globalValue: 'never' })).toEqual({ effective: 'never', user: 'never' });
  });

  test('values outside the enum count as unset', () => {
    expect(resolveApprovalModes({ defaultValue: 'write-only', globalValue: 'sometimes', workspaceValue: 42 })).toEqual({
      effective: 'write-only',
      user: 'write-only',
    });
    expect(resolveApprovalModes(undefined)).toEqual({ effective: 'write-only', user: 'write-only' });
  });
});
