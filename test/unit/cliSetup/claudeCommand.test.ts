import { parseClaudeCommand } from '../../../src/cliSetup/claudeCommand';

// The one reading of nativeClaude.claudeCommand: the walkthrough, Check Setup, Launch and `claude mcp`
// all take their program from here, so they cannot disagree about `~/.local/bin/claude` again.
describe('parseClaudeCommand', () => {
  const home = '/home/ann';
  const env = { HOME: home, TOOLS: '/opt/tools', EMPTY: '' };

  it("expands ~ in the program, as the setting's own example (~/.local/bin/claude) expects", () => {
    expect(parseClaudeCommand('~/.local/bin/claude', { env, home })).toEqual({
      program: '/home/ann/.local/bin/claude',
      args: [],
      line: '/home/ann/.local/bin/claude',
    });
    expect(parseClaudeCommand('~', { env, home }).program).toBe(home);
  });

  it('expands ${env:NAME} anywhere in a word; an unset variable is empty', () => {
    expect(parseClaudeCommand('${env:TOOLS}/claude --settings ${env:HOME}/s.json', { env, home })).toEqual({
      program: '/opt/tools/claude',
      args: ['--settings', '/home/ann/s.json'],
      line: '/opt/tools/claude --settings /home/ann/s.json',
    });
    expect(parseClaudeCommand('${env:NOPE}claude', { env, home }).program).toBe('claude');
  });

  it('takes the first word as the program and keeps the rest for Launch', () => {
    expect(parseClaudeCommand('  claude   --model opus ', { env, home })).toEqual({
      program: 'claude',
      args: ['--model', 'opus'],
      line: 'claude --model opus',
    });
  });

  it('leaves ~ inside a word, and quotes, as written', () => {
    expect(parseClaudeCommand('a~/claude', { env, home }).program).toBe('a~/claude');
    expect(parseClaudeCommand('"/opt/claude" --x', { env, home }).line).toBe('"/opt/claude" --x');
  });

  it('falls back to claude when the setting is empty or expands to nothing', () => {
    for (const setting of [undefined, '', '   ', '${env:EMPTY}']) {
      expect(parseClaudeCommand(setting, { env, home })).toEqual({ program: 'claude', args: [], line: 'claude' });
    }
  });

  it('a home with a space stays one program: split before expanding, quoted for the terminal', () => {
    const spaced = '/home/ann b';
    expect(parseClaudeCommand('~/bin/claude --ide', { env, home: spaced, platform: 'linux' })).toEqual({
      program: '/home/ann b/bin/claude',
      args: ['--ide'],
      line: "'/home/ann b/bin/claude' --ide",
    });
    expect(parseClaudeCommand('~/bin/claude', { env, home: spaced, platform: 'win32' }).line).toBe('"/home/ann b/bin/claude"');
  });
});
