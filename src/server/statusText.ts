import type { BridgeStatus } from './ideBridge';

/** The words the status bar and the status command use; plain so it is testable. */
export function describeStatus(status: BridgeStatus, sessionPlaces: readonly string[] = []): { short: string; long: string } {
  if (!status.running) {
    return { short: 'Claude: off', long: 'Claude Code IDE server is stopped. Click to start it.' };
  }
  const sessions = status.sessionCount === 1 ? '1 session' : `${status.sessionCount} sessions`;
  const short = status.sessionCount > 0 ? `Claude: ${sessions}` : `Claude :${status.port}`;
  const extra = status.connections - status.sessionCount;
  const long = [
    `Claude Code IDE server on 127.0.0.1:${status.port}`,
    status.sessionCount > 0 ? `${sessions} connected` : 'No claude session connected. Run `claude` in an integrated terminal.',
    ...sessionPlaces.map((place) => `  · claude in ${place}`),
    extra > 0 ? `${extra} other connection${extra === 1 ? '' : 's'} (tools)` : undefined,
    status.lockFilePath ? `Lock file: ${status.lockFilePath}` : undefined,
  ]
    .filter(Boolean)
    .join('\n');
  return { short, long };
}
