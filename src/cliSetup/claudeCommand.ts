import * as os from 'node:os';

/**
 * The `nativeClaude.claudeCommand` setting, read once for everyone who runs or looks for claude: the
 * walkthrough, Check Setup, Launch, `claude mcp` for the tools route, the permission-rules offer.
 * Its description's own example is `~/.local/bin/claude`, and VS Code users write `${env:HOME}`,
 * so both are expanded here, not by each caller (a shell would expand `~`; `execFile` and a PATH
 * lookup do not). The setting may also be a command line (`claude --model opus`): the program is its
 * first word. Quotes are not interpreted (a quoted word is passed on as written).
 */
export interface ClaudeCommand {
  /** The program: a name to look up on PATH, or a path (`~` and `${env:NAME}` expanded). */
  program: string;
  /** The words after the program (only Launch passes them on). */
  args: string[];
  /** What Launch types in a terminal: program and arguments, expanded. */
  line: string;
}

const DEFAULT_CLAUDE_COMMAND = 'claude';

export interface ExpandOptions {
  env?: NodeJS.ProcessEnv;
  /** The directory `~` stands for (default: the user's home). */
  home?: string;
  /** How Launch's line quotes a program path with spaces (default: this platform). */
  platform?: NodeJS.Platform;
}

/** One word of the setting: `${env:NAME}` (unset: empty, as VS Code does), then a leading `~` or `~/…`. */
function expandWord(word: string, env: NodeJS.ProcessEnv, home: string): string {
  const expanded = word.replace(/\$\{env:([^}]+)\}/g, (_, name: string) => env[name] ?? '');
  return expanded === '~' || expanded.startsWith('~/') || expanded.startsWith('~\\') ? home + expanded.slice(1) : expanded;
}

/** The words are split before expanding, so a home or variable with spaces stays one program path. */
export function parseClaudeCommand(setting: string | undefined, options: ExpandOptions = {}): ClaudeCommand {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const words = (setting ?? '')
    .trim()
    .split(/\s+/)
    .map((w) => expandWord(w, env, home))
    .filter(Boolean);
  const [program, ...args] = words;
  if (!program) return { program: DEFAULT_CLAUDE_COMMAND, args: [], line: DEFAULT_CLAUDE_COMMAND };
  return { program, args, line: [shellWord(program, options.platform ?? process.platform), ...args].join(' ') };
}

/** The program as a terminal's shell reads it back as one word. */
function shellWord(word: string, platform: NodeJS.Platform): string {
  if (!/\s/.test(word)) return word;
  return platform === 'win32' ? `"${word}"` : `'${word.replace(/'/g, `'\\''`)}'`;
}
