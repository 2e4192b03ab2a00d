// The claude CLI versions this extension supports, as the health check reads them: the range is
// defined once, where the server reads each client's version (src/server/clientVersion.ts).
import { SUPPORTED_CLI_RANGE } from '../server/clientVersion';

export { SUPPORTED_CLI_RANGE };

type Triple = [number, number, number];

/** `2.1.328 (Claude Code)` → [2, 1, 328]; undefined when no x.y.z is in the text. */
export function parseCliVersion(text: string): Triple | undefined {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

export type CliVersionSupport = 'supported' | 'too-old' | 'too-new' | 'unknown';

export function cliVersionSupport(version: string): CliVersionSupport {
  const v = parseCliVersion(version);
  if (!v) return 'unknown';
  if (compare(v, parseCliVersion(SUPPORTED_CLI_RANGE.oldest)!) < 0) return 'too-old';
  if (compare(v, parseCliVersion(SUPPORTED_CLI_RANGE.below)!) >= 0) return 'too-new';
  return 'supported';
}

/** Whether this CLI matches tool-level permission rules (`mcp__vscode__read_file`); 1.0.x matches only `mcp__vscode`. */
export function matchesToolLevelRules(version: string): boolean | undefined {
  const v = parseCliVersion(version);
  return v ? v[0] >= 2 : undefined;
}
