// The claude CLI's version numbers, read once for everyone: the server (a client's `initialize` and
// User-Agent, src/server/clientVersion.ts), Check Setup (`claude --version`), `claude mcp`
// (src/cliSetup/claudeMcpCommand.ts), the permission rules and the CLI test matrix.

/** The CLI versions the project's own matrix (`npm run test:cli-matrix`) runs green. */
export const SUPPORTED_CLI_RANGE = {
  /** Oldest CLI measured: the last 1.0.x. Older ones were not tried. */
  oldest: '1.0.128',
  /** First version NOT covered: a new major line may change the IDE protocol. */
  below: '3.0.0',
  /** The lines the matrix runs by default: pinned, latest 2.1.x, last 2.0.x, last 1.0.x. */
  measured: ['2.1.328', '2.1.330', '2.0.77', '1.0.128'] as const,
} as const;

/** The range in words, for the README, the health check and warnings. */
export const SUPPORTED_CLI_RANGE_TEXT = `${SUPPORTED_CLI_RANGE.oldest} or newer, below ${SUPPORTED_CLI_RANGE.below}`;

export type VersionTriple = [number, number, number];

/**
 * `x.y.z` at the start of the text, followed by nothing, a space or a pre-release/build suffix:
 * `2.1.328`, `2.1.328-beta.1`, `2.1.328 (Claude Code)` (what `claude --version` prints) → [2, 1, 328];
 * anything else (`2.1`, `test`) → undefined.
 */
export function parseVersion(text: string): VersionTriple | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:[-+ ].*)?$/s.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/**
 * A version as it may be shown to the user (a tooltip, a notification): `x.y.z` and a pre-release or
 * build suffix of letters, digits, dots and dashes (at most 30), nothing after it. A peer's version
 * text can hold anything after the digits (50 characters, line breaks included: fake tooltip lines).
 * Undefined when the text is not a version.
 */
export function shownVersion(text: string): string | undefined {
  if (!parseVersion(text)) return undefined;
  return /^\s*(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]{1,30})?)/.exec(text)?.[1];
}

/** Negative when a < b, 0 when equal, positive when a > b. Both must parse. */
export function compareVersions(a: string | VersionTriple, b: string | VersionTriple): number {
  const x = typeof a === 'string' ? parseVersion(a) : a;
  const y = typeof b === 'string' ? parseVersion(b) : b;
  if (!x || !y) throw new Error(`Not a version: ${!x ? a : b}`);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

export type CliVersionSupport = 'supported' | 'too-old' | 'too-new' | 'unknown';

/** Where a CLI version stands against {@link SUPPORTED_CLI_RANGE}; `unknown` when it does not parse. */
export function cliVersionSupport(version: string): CliVersionSupport {
  const v = parseVersion(version);
  if (!v) return 'unknown';
  if (compareVersions(v, SUPPORTED_CLI_RANGE.oldest) < 0) return 'too-old';
  if (compareVersions(v, SUPPORTED_CLI_RANGE.below) >= 0) return 'too-new';
  return 'supported';
}

/** Whether this CLI matches tool-level permission rules (`mcp__vscode__read_file`); 1.0.x matches only `mcp__vscode`. */
export function matchesToolLevelRules(version: string): boolean | undefined {
  const v = parseVersion(version);
  return v ? v[0] >= 2 : undefined;
}
