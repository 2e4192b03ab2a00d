// Which claude CLI is on the other end of a connection, and whether this extension supports it.
// The CLI says who it is twice: `User-Agent: claude-code/<version>` on the WebSocket upgrade and
// `clientInfo` + `protocolVersion` in MCP `initialize` (docs/compatibility.md has the frames).
// The version numbers and the supported range are read in src/util/cliVersion.ts.

import { cliVersionSupport, shownVersion, SUPPORTED_CLI_RANGE, SUPPORTED_CLI_RANGE_TEXT } from '../util/cliVersion';

/** The name every claude CLI line sends in `clientInfo` and its User-Agent. */
const CLAUDE_CODE_CLIENT_NAME = 'claude-code';

/** What a peer said about itself. Fields are absent when the peer did not send them. */
export interface ClientInfo {
  name: string;
  version: string;
  /** Sent from 2.1 on ("Claude Code"). */
  title?: string;
  /** MCP protocol the client asked for: 2025-06-18 (1.0.x), 2025-11-25 (2.0 on). */
  protocolVersion?: string;
}

/** `claude-code/2.1.328 (cli)` → {name, version}; other agents → undefined. */
export function clientFromUserAgent(userAgent: string | undefined): ClientInfo | undefined {
  const match = /^([A-Za-z0-9._-]+)\/(\d+\.\d+\.\d+\S*)/.exec(userAgent ?? '');
  return match ? { name: match[1], version: match[2] } : undefined;
}

/** The `params` of an MCP `initialize` request → ClientInfo; undefined when it has no usable clientInfo. */
export function clientFromInitialize(params: unknown): ClientInfo | undefined {
  if (!isObject(params) || !isObject(params.clientInfo)) return undefined;
  const { name, version, title } = params.clientInfo;
  if (typeof name !== 'string' || typeof version !== 'string') return undefined;
  const info: ClientInfo = { name: name.slice(0, 100), version: version.slice(0, 50) };
  if (typeof title === 'string') info.title = title.slice(0, 100);
  if (typeof params.protocolVersion === 'string') info.protocolVersion = params.protocolVersion.slice(0, 50);
  return info;
}

/** Short form for logs and the status tooltip: `claude-code 2.1.328 (MCP 2025-11-25)`. */
export function describeClient(client: ClientInfo): string {
  return `${client.name} ${client.version}${client.protocolVersion ? ` (MCP ${client.protocolVersion})` : ''}`;
}

export type CliSupport = { supported: true } | { supported: false; reason: 'too-old' | 'too-new'; message: string };

/**
 * Whether a claude CLI version is in {@link SUPPORTED_CLI_RANGE}; outside it, a plain sentence saying
 * what may not work and what to do. Versions that do not parse are not judged (supported).
 */
export function cliSupport(version: string): CliSupport {
  const support = cliVersionSupport(version);
  if (support === 'too-old') {
    return {
      supported: false,
      reason: 'too-old',
      message:
        `Claude Code ${shownVersion(version)} is older than the oldest version Native Claude supports (${SUPPORTED_CLI_RANGE.oldest}). ` +
        'Reviewing its edits in VS Code, sharing your selection and diagnostics may not work. ' +
        'Update it with `claude update` (or `npm install -g @anthropic-ai/claude-code@latest`), then start claude again.',
    };
  }
  if (support === 'too-new') {
    return {
      supported: false,
      reason: 'too-new',
      message:
        `Claude Code ${shownVersion(version)} is newer than the versions Native Claude was tested with (${SUPPORTED_CLI_RANGE_TEXT}). ` +
        'Reviews, selection sharing and diagnostics may not work if the CLI changed how it talks to the editor. ' +
        'Update the Native Claude extension; if that does not help, install a supported CLI (`npm install -g @anthropic-ai/claude-code@2`).',
    };
  }
  return { supported: true };
}

/**
 * The warning for a CLI outside the range, once per version for the life of this object (a window),
 * so reconnects and several sessions of the same CLI do not repeat it. Other MCP clients (not
 * claude-code) on the tools route are not judged.
 */
export class CompatibilityNotices {
  private readonly said = new Set<string>();

  noticeFor(client: ClientInfo): string | undefined {
    if (client.name !== CLAUDE_CODE_CLIENT_NAME) return undefined;
    const support = cliSupport(client.version);
    if (support.supported || this.said.has(client.version)) return undefined;
    this.said.add(client.version);
    return support.message;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
