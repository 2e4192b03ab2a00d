import { INVALID_REQUEST, MAX_JSON_DEPTH, MessageScreen, NOT_INITIALIZED, PARSE_ERROR, nestedDeeperThan } from '../../../src/server/messageGuard';
import * as sdkTypes from '@modelcontextprotocol/sdk/types.js';

const nest = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('nestedDeeperThan', () => {
  test('counts arrays and objects, stops at the bound without recursing further', () => {
    expect(nestedDeeperThan(JSON.parse(nest(3)), 3)).toBe(false);
    expect(nestedDeeperThan(JSON.parse(nest(4)), 3)).toBe(true);
    expect(nestedDeeperThan({ a: { b: [1, { c: 'x' }] } }, 4)).toBe(false);
    expect(nestedDeeperThan({ a: { b: [1, { c: {} }] } }, 4)).toBe(true);
    expect(nestedDeeperThan(JSON.parse(nest(200_000)), MAX_JSON_DEPTH)).toBe(true);
    expect(nestedDeeperThan('string', 0)).toBe(false);
  });
});

describe('MessageScreen', () => {
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });

  test('parse errors, batches and non-objects are answered with id null', () => {
    const screen = new MessageScreen(sdkTypes);
    expect(screen.screen('{oops')).toMatchObject({ kind: 'refuse', answer: { id: null, code: PARSE_ERROR } });
    expect(screen.screen('[]')).toMatchObject({ kind: 'refuse', answer: { id: null, code: INVALID_REQUEST } });
    expect(screen.screen('"x"')).toMatchObject({ kind: 'refuse', answer: { id: null, code: INVALID_REQUEST } });
  });

  test('a malformed request is answered with its own id; a malformed notification or response is not answered', () => {
    const screen = new MessageScreen(sdkTypes);
    screen.screen(init);
    expect(screen.screen('{"jsonrpc":"1.0","id":7,"method":"ping"}')).toMatchObject({ kind: 'refuse', answer: { id: 7, code: INVALID_REQUEST } });
    expect(screen.screen('{"jsonrpc":"2.0","id":1e308,"method":"ping"}')).toMatchObject({ kind: 'refuse', answer: { id: null } });
    expect(screen.screen(`{"jsonrpc":"2.0","id":"${'i'.repeat(300)}","method":"ping"}`)).toMatchObject({ kind: 'refuse', answer: { id: null } });
    expect(screen.screen('{"jsonrpc":"2.0","method":"x","params":5}')).toEqual({ kind: 'refuse', reason: expect.any(String) });
    expect(screen.screen('{"jsonrpc":"2.0","id":3,"result":5}')).toEqual({ kind: 'refuse', reason: expect.any(String) });
  });

  test('nesting beyond the bound is refused before schema checks; within it is accepted', () => {
    const screen = new MessageScreen(sdkTypes);
    screen.screen(init);
    expect(screen.screen(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":${nest(MAX_JSON_DEPTH)}}}`)).toMatchObject({
      kind: 'refuse',
      answer: { id: 1, code: INVALID_REQUEST },
    });
    expect(screen.screen(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"a":${nest(MAX_JSON_DEPTH - 3)}}}`)).toMatchObject({ kind: 'accept' });
    expect(screen.screen(`{"jsonrpc":"2.0","method":"n","params":{"a":${nest(10_000)}}}`)).toEqual({
      kind: 'refuse',
      reason: `nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  test('responses are accepted only for requests this server sent, once', () => {
    const screen = new MessageScreen(sdkTypes);
    screen.screen(init);
    expect(screen.screen('{"jsonrpc":"2.0","id":5,"result":{}}')).toMatchObject({ kind: 'refuse', reason: expect.stringMatching(/never sent/) });
    screen.noteSent({ jsonrpc: '2.0', id: 5, method: 'roots/list' });
    screen.noteSent({ jsonrpc: '2.0', method: 'notifications/x' } as never);
    expect(screen.screen('{"jsonrpc":"2.0","id":5,"result":{}}')).toMatchObject({ kind: 'accept' });
    expect(screen.screen('{"jsonrpc":"2.0","id":5,"result":{}}')).toMatchObject({ kind: 'refuse' });
  });

  test('before initialize only initialize and ping are served', () => {
    const screen = new MessageScreen(sdkTypes);
    expect(screen.screen('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toMatchObject({ kind: 'refuse', answer: { id: 1, code: NOT_INITIALIZED } });
    expect(screen.screen('{"jsonrpc":"2.0","method":"ide_connected","params":{"pid":1}}')).toEqual({
      kind: 'refuse',
      reason: expect.stringMatching(/before initialize/),
    });
    expect(screen.screen('{"jsonrpc":"2.0","id":2,"method":"ping"}')).toMatchObject({ kind: 'accept' });
    expect(screen.screen(init)).toMatchObject({ kind: 'accept' });
    expect(screen.screen('{"jsonrpc":"2.0","id":3,"method":"tools/list"}')).toMatchObject({ kind: 'accept' });
  });

  test('accepts and returns exactly what the SDK JSONRPCMessageSchema does, for every kind of message', () => {
    const corpus: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { a: 1 } } },
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 3 }, extra: true } },
      { jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 }, // strict: unknown top-level key
      { jsonrpc: '2.0', id: 1, method: 'ping', params: [] },
      { jsonrpc: '2.0', id: 1, method: 5 },
      { jsonrpc: '2.0', id: null, method: 'ping' },
      { jsonrpc: '2.0', id: true, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping', result: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'ide_connected', params: { pid: 1 } },
      { jsonrpc: '2.0', method: 'x', params: 5 },
      { jsonrpc: '2.0', method: 'x', extra: 1 },
      { jsonrpc: '2.0', method: null },
      { jsonrpc: '1.0', method: 'x' },
      { jsonrpc: '2.0', id: 7, result: {} },
      { jsonrpc: '2.0', id: 7, result: { content: [], _meta: {} } },
      { jsonrpc: '2.0', id: 7, result: 5 },
      { jsonrpc: '2.0', id: 7, result: {}, error: { code: 1, message: 'x' } },
      { jsonrpc: '2.0', id: 7, result: {}, extra: 1 },
      { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'x', data: [1] } },
      { jsonrpc: '2.0', id: 7, error: { code: 'x', message: 'x' } },
      { jsonrpc: '2.0', id: 7, error: { code: 1 } },
      { jsonrpc: '2.0', error: { code: 1, message: 'no id' } },
      { jsonrpc: '2.0', id: 7 },
      { jsonrpc: '2.0' },
      {},
      { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: '', method: '' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: { progressToken: 'p' }, name: 'x' } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: { progressToken: {} }, name: 'x' } },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: null } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { _meta: {}, progress: 1 } },
      { jsonrpc: '2.0', method: 'x', params: { _meta: 5 } },
      { jsonrpc: '2.0', method: 'x', params: { nested: { _meta: 5 } } },
    ];
    // Keys JSON.stringify cannot produce from an object literal.
    const texts = [
      '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}',
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"_meta":5}}}',
      '{"jsonrpc":"2.0","method":"x","params":{"__proto__":null}}',
    ];
    for (const text of [...corpus.map((m) => JSON.stringify(m)), ...texts]) {
      const message = JSON.parse(text) as unknown;
      const screen = new MessageScreen(sdkTypes);
      screen.screen(init);
      screen.noteSent({ jsonrpc: '2.0', id: 7, method: 'roots/list' });
      const verdict = screen.screen(text);
      const sdk = sdkTypes.JSONRPCMessageSchema.safeParse(message);
      // Beyond the schema, the screen takes a response only when it answers the request it sent (id 7).
      const m = message as Record<string, unknown>;
      const answersNothing = !('method' in m) && m.id !== 7;
      const expectAccepted = sdk.success && !answersNothing;
      expect({ text, accepted: verdict.kind === 'accept' }).toEqual({ text, accepted: expectAccepted });
      if (verdict.kind === 'accept' && sdk.success) expect(verdict.message).toEqual(sdk.data);
    }
  });

  test('a plain request or notification is not parsed against the envelope schemas; anything else with the one member that can take it', () => {
    const screen = new MessageScreen(sdkTypes);
    screen.screen(init);
    // zod runs every schema through its internals' run(); the union calls each member's in turn.
    const runOf = (schema: unknown) => jest.spyOn((schema as { _zod: { run: (...args: unknown[]) => unknown } })._zod, 'run');
    const union = runOf(sdkTypes.JSONRPCMessageSchema);
    const request = runOf(sdkTypes.JSONRPCRequestSchema);
    const notification = runOf(sdkTypes.JSONRPCNotificationSchema);
    const result = runOf(sdkTypes.JSONRPCResultResponseSchema);
    const error = runOf(sdkTypes.JSONRPCErrorResponseSchema);
    expect(screen.screen('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toMatchObject({ kind: 'accept' });
    expect(screen.screen('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}')).toMatchObject({ kind: 'accept' });
    expect([union, request, notification, result, error].map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0, 0]);
    // With _meta, or as a response, the SDK's schema decides: only the member that can take it runs.
    expect(screen.screen('{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{},"progressToken":1,"progress":1}}')).toMatchObject({
      kind: 'accept',
    });
    screen.noteSent({ jsonrpc: '2.0', id: 9, method: 'roots/list' });
    expect(screen.screen('{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"no"}}')).toMatchObject({ kind: 'accept' });
    expect([union, request, notification, result, error].map((spy) => spy.mock.calls.length)).toEqual([0, 0, 1, 0, 1]);
    jest.restoreAllMocks();
  });
});
