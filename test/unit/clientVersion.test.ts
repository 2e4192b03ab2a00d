import { CompatibilityNotices, clientFromInitialize, clientFromUserAgent, cliSupport, describeClient } from '../../src/server/clientVersion';
import { SUPPORTED_CLI_RANGE } from '../../src/util/cliVersion';

describe('clientVersion', () => {
  test('reads the User-Agent every line sends on the upgrade', () => {
    // As measured: 1.0.x/2.0.x send the bare form, 2.1.x adds " (cli)".
    expect(clientFromUserAgent('claude-code/1.0.128')).toEqual({ name: 'claude-code', version: '1.0.128' });
    expect(clientFromUserAgent('claude-code/2.1.328 (cli)')).toEqual({ name: 'claude-code', version: '2.1.328' });
    expect(clientFromUserAgent(undefined)).toBeUndefined();
    expect(clientFromUserAgent('Mozilla')).toBeUndefined();
  });

  test('reads clientInfo and the requested protocol from initialize params (frames of 1.0.128 and 2.1.328)', () => {
    expect(
      clientFromInitialize({ protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'claude-code', version: '1.0.128' } }),
    ).toEqual({ name: 'claude-code', version: '1.0.128', protocolVersion: '2025-06-18' });
    expect(
      clientFromInitialize({
        protocolVersion: '2025-11-25',
        capabilities: { roots: { listChanged: true }, elicitation: {} },
        clientInfo: { name: 'claude-code', title: 'Claude Code', version: '2.1.328', description: "Anthropic's agentic coding tool" },
      }),
    ).toEqual({ name: 'claude-code', title: 'Claude Code', version: '2.1.328', protocolVersion: '2025-11-25' });
    expect(clientFromInitialize({ clientInfo: { name: 'x' } })).toBeUndefined();
    expect(clientFromInitialize(null)).toBeUndefined();
    expect(clientFromInitialize({ clientInfo: { name: 'n'.repeat(5000), version: '1.0.0' } })?.name).toHaveLength(100);
    expect(describeClient({ name: 'claude-code', version: '2.0.77', protocolVersion: '2025-11-25' })).toBe('claude-code 2.0.77 (MCP 2025-11-25)');
  });

  test('every measured line is supported; outside the range the message says what breaks and what to do', () => {
    for (const v of SUPPORTED_CLI_RANGE.measured) expect(cliSupport(v)).toEqual({ supported: true });
    expect(cliSupport('2.1.999')).toEqual({ supported: true });
    expect(cliSupport('not-a-version')).toEqual({ supported: true });

    const old = cliSupport('1.0.60');
    expect(old).toMatchObject({ supported: false, reason: 'too-old' });
    if (!old.supported) {
      expect(old.message).toContain('Claude Code 1.0.60 is older than the oldest version Native Claude supports (1.0.128)');
      expect(old.message).toMatch(/claude update/);
    }
    const next = cliSupport('3.0.0');
    expect(next).toMatchObject({ supported: false, reason: 'too-new' });
    if (!next.supported) expect(next.message).toMatch(/Update the Native Claude extension/);
  });

  test('warns once per version, and never about other MCP clients', () => {
    const notices = new CompatibilityNotices();
    expect(notices.noticeFor({ name: 'claude-code', version: '1.0.100' })).toMatch(/1\.0\.100 is older/);
    expect(notices.noticeFor({ name: 'claude-code', version: '1.0.100' })).toBeUndefined();
    expect(notices.noticeFor({ name: 'claude-code', version: '0.2.9' })).toMatch(/0\.2\.9 is older/);
    expect(notices.noticeFor({ name: 'claude-code', version: '2.1.328' })).toBeUndefined();
    expect(notices.noticeFor({ name: 'other-client', version: '0.0.1' })).toBeUndefined();
  });
});
