import { execFileSync } from 'node:child_process';
import { claudeLaunchCommand } from '../../../src/cliSetup/launchCommand';
import { toolsRouteEntry } from '../../../src/cliSetup/toolsRouteEntry';

describe('the command line Launch claude types', () => {
  test('without the tools enabled: the configured command as it is', () => {
    expect(claudeLaunchCommand('claude', { toolsEnabled: false, platform: 'linux' })).toBe('claude');
  });

  test('with the tools enabled: --mcp-config with the entry, its ${VAR} placeholders kept literal by the shell', () => {
    const line = claudeLaunchCommand('printf "%s\\n"', { toolsEnabled: true, platform: 'linux' });
    expect(line.startsWith('printf "%s\\n" --mcp-config \'')).toBe(true);
    const printed = execFileSync('/bin/bash', ['-c', line], { encoding: 'utf8', env: { PATH: process.env.PATH, NATIVE_CLAUDE_PORT: '1234' } })
      .trim()
      .split('\n');
    expect(printed[0]).toBe('--mcp-config');
    expect(JSON.parse(printed[1])).toEqual({ mcpServers: { vscode: toolsRouteEntry() } });
  });

  test('on Windows (other quoting rules) the entry is left out', () => {
    expect(claudeLaunchCommand('claude', { toolsEnabled: true, platform: 'win32' })).toBe('claude');
  });
});
