/**
 * Anthropic's terminal-era VS Code extension (`anthropic.claude-code`), as shipped inside the CLI's npm
 * package: `vendor/claude-code.vsix` of `@anthropic-ai/claude-code@1.0.109`. Fetched once with `npm pack`
 * into `$TMPDIR/nc-anthropic-1.0.109`. Its lock files go to `$HOME/.claude/ide` (it ignores CLAUDE_CONFIG_DIR).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const ANTHROPIC_VERSION = '1.0.109';

/** Path of the .vsix (fetched on first use). */
export function anthropicVsix(): string {
  const dir = path.join(os.tmpdir(), `nc-anthropic-${ANTHROPIC_VERSION}`);
  const vsix = path.join(dir, 'claude-code.vsix');
  if (fs.existsSync(vsix)) return vsix;
  fs.mkdirSync(dir, { recursive: true });
  const tgz = execFileSync('npm', ['pack', `@anthropic-ai/claude-code@${ANTHROPIC_VERSION}`, '--silent'], { cwd: dir, encoding: 'utf8', timeout: 300_000 })
    .trim()
    .split('\n')
    .pop()!;
  execFileSync('tar', ['xzf', tgz, '-C', dir, '--strip-components=2', 'package/vendor/claude-code.vsix'], { cwd: dir });
  fs.rmSync(path.join(dir, tgz), { force: true });
  return vsix;
}
