/**
 * Whether a terminal command line starts claude: `claude`, `npx claude`, `~/.local/bin/claude --ide`,
 * `cd app && claude`. Used to start language servers while claude itself starts (docs/diagnostics.md).
 */
export function startsClaude(commandLine: string): boolean {
  return /(?:^|[\s;&|/])claude(?:\.exe)?(?=$|\s)/.test(commandLine);
}
