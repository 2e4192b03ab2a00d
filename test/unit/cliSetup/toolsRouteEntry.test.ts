import { describeEntry, isToolsRouteEntry, toolsRouteEntry } from '../../../src/cliSetup/toolsRouteEntry';

describe("telling VS Code's tools entry from a server of the user's own", () => {
  test('ours, by its shape: ws on 127.0.0.1 at /tools with the token variable in the IDE header', () => {
    expect(isToolsRouteEntry(toolsRouteEntry())).toBe(true);
    expect(
      isToolsRouteEntry({
        type: 'ws',
        url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools/',
        headers: { 'x-claude-code-ide-authorization': '${NATIVE_CLAUDE_TOKEN}' },
      }),
    ).toBe(true);
  });

  test.each([
    [{ type: 'stdio', command: 'vscode-mcp', env: { API_TOKEN: 'x' } }],
    [{ type: 'ws', url: 'ws://example.com:1/tools', headers: { 'X-Claude-Code-Ide-Authorization': '${NATIVE_CLAUDE_TOKEN}' } }],
    [{ type: 'ws', url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/other', headers: { 'X-Claude-Code-Ide-Authorization': '${NATIVE_CLAUDE_TOKEN}' } }],
    [{ type: 'ws', url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools', headers: { 'X-Claude-Code-Ide-Authorization': 'a-literal-token' } }],
    [{ type: 'ws', url: 'ws://127.0.0.1:${NATIVE_CLAUDE_PORT}/tools' }],
    [{ type: 'sse', url: 'http://127.0.0.1:1/tools' }],
    [null],
    ['vscode'],
    [[toolsRouteEntry()]],
  ])('not ours: %j', (entry) => {
    expect(isToolsRouteEntry(entry)).toBe(false);
  });

  test('described without args, env, headers, credentials or query', () => {
    expect(describeEntry({ type: 'stdio', command: 'npx', args: ['--token', 's3cret'], env: { API_TOKEN: 's3cret' } })).toBe('stdio: npx');
    expect(describeEntry({ command: 'my-server' })).toBe('stdio: my-server');
    expect(describeEntry({ type: 'http', url: 'https://user:s3cret@mcp.example.com/v1?key=s3cret', headers: { Authorization: 's3cret' } })).toBe(
      'http: https://mcp.example.com/v1',
    );
    expect(describeEntry('x')).toBe('not an object');
  });
});
