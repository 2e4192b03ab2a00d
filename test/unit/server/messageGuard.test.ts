import { INVALID_REQUEST, MAX_JSON_DEPTH, MessageScreen, NOT_INITIALIZED, PARSE_ERROR, nestedDeeperThan } from '../../../src/server/messageGuard';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

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
  const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });

  test('parse errors, batches and non-objects are answered with id null', () => {
    const screen = new MessageScreen(JSONRPCMessageSchema);
    expect(screen.screen('{oops')).toMatchObject({ kind: 'refuse', answer: { id: null, code: PARSE_ERROR } });
    expect(screen.screen('[]')).toMatchObject({ kind: 'refuse', answer: { id: null, code: INVALID_REQUEST } });
    expect(screen.screen('"x"')).toMatchObject({ kind: 'refuse', answer: { id: null, code: INVALID_REQUEST } });
  });

  test('a malformed request is answered with its own id; a malformed notification or response is not answered', () => {
    const screen = new MessageScreen(JSONRPCMessageSchema);
    screen.screen(init);
    expect(screen.screen('{"jsonrpc":"1.0","id":7,"method":"ping"}')).toMatchObject({ kind: 'refuse', answer: { id: 7, code: INVALID_REQUEST } });
    expect(screen.screen('{"jsonrpc":"2.0","id":1e308,"method":"ping"}')).toMatchObject({ kind: 'refuse', answer: { id: null } });
    expect(screen.screen(`{"jsonrpc":"2.0","id":"${'i'.repeat(300)}","method":"ping"}`)).toMatchObject({ kind: 'refuse', answer: { id: null } });
    expect(screen.screen('{"jsonrpc":"2.0","method":"x","params":5}')).toEqual({ kind: 'refuse', reason: expect.any(String) });
    expect(screen.screen('{"jsonrpc":"2.0","id":3,"result":5}')).toEqual({ kind: 'refuse', reason: expect.any(String) });
  });

  test('nesting beyond the bound is refused before schema checks; within it is accepted', () => {
    const screen = new MessageScreen(JSONRPCMessageSchema);
    screen.screen(init);
    expect(screen.screen(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":${nest(MAX_JSON_DEPTH)}}}`)).toMatchObject({ kind: 'refuse', answer: { id: 1, code: INVALID_REQUEST } });
    expect(screen.screen(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"a":${nest(MAX_JSON_DEPTH - 3)}}}`)).toMatchObject({ kind: 'accept' });
    expect(screen.screen(`{"jsonrpc":"2.0","method":"n","params":{"a":${nest(10_000)}}}`)).toEqual({ kind: 'refuse', reason: `nested deeper than ${MAX_JSON_DEPTH} levels` });
  });

  test('responses are accepted only for requests this server sent, once', () => {
    const screen = new MessageScreen(JSONRPCMessageSchema);
    screen.screen(init);
    expect(screen.screen('{"jsonrpc":"2.0","id":5,"result":{}}')).toMatchObject({ kind: 'refuse', reason: expect.stringMatching(/never sent/) });
    screen.noteSent({ jsonrpc: '2.0', id: 5, method: 'roots/list' });
    screen.noteSent({ jsonrpc: '2.0', method: 'notifications/x' } as never);
    expect(screen.screen('{"jsonrpc":"2.0","id":5,"result":{}}')).toMatchObject({ kind: 'accept' });
    expect(screen.screen('{"jsonrpc":"2.0","id":5,"result":{}}')).toMatchObject({ kind: 'refuse' });
  });

  test('before initialize only initialize and ping are served', () => {
    const screen = new MessageScreen(JSONRPCMessageSchema);
    expect(screen.screen('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toMatchObject({ kind: 'refuse', answer: { id: 1, code: NOT_INITIALIZED } });
    expect(screen.screen('{"jsonrpc":"2.0","method":"ide_connected","params":{"pid":1}}')).toEqual({ kind: 'refuse', reason: expect.stringMatching(/before initialize/) });
    expect(screen.screen('{"jsonrpc":"2.0","id":2,"method":"ping"}')).toMatchObject({ kind: 'accept' });
    expect(screen.screen(init)).toMatchObject({ kind: 'accept' });
    expect(screen.screen('{"jsonrpc":"2.0","id":3,"method":"tools/list"}')).toMatchObject({ kind: 'accept' });
  });
});
