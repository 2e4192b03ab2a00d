import { startsClaude } from '../../../src/terminal/claudeCommandLine';

test('startsClaude: command lines that start claude, and ones that only mention it', () => {
  for (const line of ['claude', 'claude --ide', 'npx claude', '~/.local/bin/claude', 'cd app && claude', 'export A=1; claude -c', 'C:\\tools\\claude.exe']) {
    expect({ line, starts: startsClaude(line.replace(/\\/g, '/')) }).toEqual({ line, starts: true });
  }
  for (const line of ['claude-code --version', 'cat claude.md', 'echo claudette', 'ls ~/.claude', 'git commit -m "claude:"']) {
    expect({ line, starts: startsClaude(line) }).toEqual({ line, starts: false });
  }
});
