import { checkPeerPid, findSocketInode, pidTrusted } from '../../../src/server/peerProcess';

// /proc/net/tcp rows as the kernel prints them: address words in host byte order, ports in hex.
const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const row = (local: string, remote: string, inode: string) =>
  `   0: ${local} ${remote} 01 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 20 4 30 10 -1`;

describe('findSocketInode', () => {
  const peer = { serverPort: 0x9c41, peerHost: '127.0.0.1', peerPort: 0xd2f0 };

  test("finds the peer's row (its port → the server's 127.0.0.1 port), not the server's own end", () => {
    const table = [HEADER, row('0100007F:9C41', '0100007F:D2F0', '111'), row('0100007F:D2F0', '0100007F:9C41', '222')].join('\n');
    expect(findSocketInode(table, peer, true)).toBe('222');
  });

  test('the address word is read in the byte order of the machine', () => {
    expect(findSocketInode([HEADER, row('7F000001:D2F0', '7F000001:9C41', '333')].join('\n'), peer, false)).toBe('333');
    expect(findSocketInode([HEADER, row('7F000001:D2F0', '7F000001:9C41', '333')].join('\n'), peer, true)).toBeUndefined();
  });

  test('the same ports to another address, or a row without an inode, do not count', () => {
    const table = [HEADER, row('0500000A:D2F0', '0900000A:9C41', '444'), row('0100007F:D2F0', '0100007F:9C41', '0')].join('\n');
    expect(findSocketInode(table, peer, true)).toBeUndefined();
  });

  test("the peer's address counts, not only its port: 127.0.0.2 with the same source port is another socket", () => {
    const table = [HEADER, row('0200007F:D2F0', '0100007F:9C41', '777'), row('0100007F:D2F0', '0100007F:9C41', '888')].join('\n');
    expect(findSocketInode(table, peer, true)).toBe('888');
    expect(findSocketInode(table, { ...peer, peerHost: '127.0.0.2' }, true)).toBe('777');
    expect(findSocketInode(table, { ...peer, peerHost: '::ffff:127.0.0.2' }, true)).toBe('777');
    expect(findSocketInode(table, { ...peer, peerHost: '127.0.0.3' }, true)).toBeUndefined();
  });

  test('tcp6: ::ffff:127.0.0.1', () => {
    const mapped = '0000000000000000FFFF00000100007F';
    expect(findSocketInode([HEADER, row(`${mapped}:D2F0`, `${mapped}:9C41`, '555')].join('\n'), peer, true)).toBe('555');
    expect(findSocketInode([HEADER, row(`${'0'.repeat(24)}01000000:D2F0`, `${'0'.repeat(24)}01000000:9C41`, '666')].join('\n'), peer, true)).toBeUndefined();
  });
});

describe('checkPeerPid', () => {
  const peer = { serverPort: 1, peerHost: '127.0.0.1', peerPort: 2 };
  test('a check that throws or overruns leaves the claim unverified', async () => {
    await expect(checkPeerPid(async () => Promise.reject(new Error('boom')), peer, 5)).resolves.toEqual({ result: 'unverified', reason: 'boom' });
    await expect(checkPeerPid(() => new Promise(() => undefined), peer, 5, 20)).resolves.toMatchObject({
      result: 'unverified',
      reason: expect.stringMatching(/longer than 20 ms/),
    });
  });

  test('only a verified (or, without /proc, unchecked) pid is trusted', () => {
    expect(['pending', 'verified', 'unverified', 'unchecked', undefined].map((c) => pidTrusted(c as never))).toEqual([false, true, false, true, false]);
  });
});
