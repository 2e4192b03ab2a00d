import * as path from 'node:path';
import { claudeConfigDir, claudeUserConfigPath, lockFileDirectories, lockFileDirectory, userSettingsPath } from '../../../src/otherPrograms/claudeConfigDir';

// As claude resolves CLAUDE_CONFIG_DIR (1.0.128, 2.0.77, 2.1.328, 2.1.331): `?? ~/.claude` for its
// config folder (not trimmed: "" and "  " are relative folders), `|| home` for .claude.json, and
// lock files also from ~/.claude/ide whenever the variable is set (2.1).
const none = () => undefined;

describe('where claude keeps its files (CLAUDE_CONFIG_DIR resolved once)', () => {
  test('unset: everything under the home folder', () => {
    expect(claudeConfigDir({}, '/h')).toBe('/h/.claude');
    expect(userSettingsPath({}, '/h')).toBe('/h/.claude/settings.json');
    expect(claudeUserConfigPath({}, '/h', none)).toBe('/h/.claude.json');
    expect(lockFileDirectory({}, '/h')).toBe('/h/.claude/ide');
    expect(lockFileDirectories({}, '/h')).toEqual(['/h/.claude/ide']);
  });

  test('an absolute folder: used as it is (NFC), and claude 2.1 also reads ~/.claude/ide', () => {
    const env = { CLAUDE_CONFIG_DIR: '/c/cafe\u0301' };
    expect(claudeConfigDir(env, '/h')).toBe('/c/caf\u00e9');
    expect(userSettingsPath(env, '/h')).toBe('/c/caf\u00e9/settings.json');
    expect(claudeUserConfigPath({ CLAUDE_CONFIG_DIR: '/c' }, '/h', none)).toBe('/c/.claude.json');
    expect(lockFileDirectory(env, '/h')).toBe('/c/caf\u00e9/ide');
    expect(lockFileDirectories(env, '/h')).toEqual(['/c/caf\u00e9/ide', '/h/.claude/ide']);
  });

  test.each([[''], ['  '], ['cfg']])(
    'CLAUDE_CONFIG_DIR=%j is a relative folder for claude, not "unset": its files stay relative (refused by the writer); lock files go to ~/.claude/ide',
    (value) => {
      const env = { CLAUDE_CONFIG_DIR: value };
      expect(claudeConfigDir(env, '/h')).toBe(value);
      expect(userSettingsPath(env, '/h')).toBe(path.join(value, 'settings.json'));
      expect(lockFileDirectory(env, '/h')).toBe('/h/.claude/ide');
      expect(lockFileDirectories(env, '/h')).toEqual(['/h/.claude/ide']);
    },
  );

  test('.claude.json: "" means the home folder there (claude uses `||`), other relative values stay relative', () => {
    expect(claudeUserConfigPath({ CLAUDE_CONFIG_DIR: '' }, '/h', none)).toBe('/h/.claude.json');
    expect(claudeUserConfigPath({ CLAUDE_CONFIG_DIR: '  ' }, '/h', none)).toBe('  /.claude.json');
  });
});
