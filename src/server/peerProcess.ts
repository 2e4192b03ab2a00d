import { readdir, readFile, readlink } from 'node:fs/promises';
import { endianness } from 'node:os';

/**
 * What is known about the pid a session announced in `ide_connected`:
 * - `pending`: the check runs (a few ms after the announcement);
 * - `verified`: the process with that pid holds the client end of this connection's socket;
 * - `unverified`: it does not, or that could not be shown (gone, another user's, timed out);
 * - `unchecked`: this platform has no way to check (no `/proc`), so the claim is taken as sent.
 */
export type PidCheck = 'pending' | 'verified' | 'unverified' | 'unchecked';

/** Whether a session's pid may place it in a terminal (route selections to it, name its reviews by it). */
export function pidTrusted(check: PidCheck | undefined): boolean {
  return check === 'verified' || check === 'unchecked';
}

/**
 * One loopback connection as the server sees it: its own port, and the peer's address and (ephemeral)
 * port. Both of the peer's count: any local process can connect from another loopback address
 * (127.0.0.2…) with the same source port as a claude's connection.
 */
export interface PeerAddress {
  serverPort: number;
  /** `socket.remoteAddress`: `127.0.0.N` (or `::ffff:127.0.0.N`). */
  peerHost: string;
  peerPort: number;
}

export interface PeerPidOutcome {
  result: Exclude<PidCheck, 'pending'>;
  /** Why, for the log (never shown to the peer). */
  reason?: string;
}

/** Decides whether `claimedPid` holds the peer end of the connection `peer`. */
export type PeerPidCheck = (peer: PeerAddress, claimedPid: number) => Promise<PeerPidOutcome>;

/** A check never takes longer than this; past it the claim is unverified. */
const PEER_CHECK_TIMEOUT_MS = 2000;
/** A process with more descriptors than this is not searched further (the claude CLI holds a few dozen). */
const MAX_FDS_SEARCHED = 16384;

/**
 * Linux: the peer's socket inode from `/proc/net/tcp` (and `tcp6`): the row whose local end is the
 * peer's port and whose remote end is this server's 127.0.0.1 port. Then `/proc/<claimedPid>/fd`
 * must hold a `socket:[inode]` link to it. Checking the claimed process's own descriptors answers
 * "is it one of the socket's owners" without scanning every process; a process can only hold that
 * socket by having opened it or received it from the process that did (fork, descriptor passing),
 * so a script cannot make another user's or another claude's process own its connection.
 */
function procPeerPidCheck(procRoot = '/proc'): PeerPidCheck {
  return async (peer, claimedPid) => {
    const inode = await peerSocketInode(peer, procRoot);
    if (inode === undefined)
      return { result: 'unverified', reason: `no TCP socket from ${peer.peerHost}:${peer.peerPort} to ${peer.serverPort} in ${procRoot}/net` };
    let fds: string[];
    try {
      fds = await readdir(`${procRoot}/${claimedPid}/fd`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        result: 'unverified',
        reason: code === 'ENOENT' ? `no process ${claimedPid}` : `cannot read the descriptors of process ${claimedPid} (${code})`,
      };
    }
    const wanted = `socket:[${inode}]`;
    for (const fd of fds.slice(0, MAX_FDS_SEARCHED)) {
      const target = await readlink(`${procRoot}/${claimedPid}/fd/${fd}`).catch(() => undefined);
      if (target === wanted) return { result: 'verified' };
    }
    return { result: 'unverified', reason: `process ${claimedPid} does not hold the connection's socket` };
  };
}

/** The inode of the peer's end of the connection, or undefined when no such row exists. */
async function peerSocketInode(peer: PeerAddress, procRoot: string): Promise<string | undefined> {
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`${procRoot}/net/${table}`, 'utf8').catch(() => '');
    const inode = findSocketInode(text, peer);
    if (inode !== undefined) return inode;
  }
  return undefined;
}

/**
 * The inode of the row of a `/proc/net/tcp{,6}` table whose local end is the peer's address and port and
 * whose remote end is 127.0.0.1 (or `::ffff:127.0.0.1`) on the server's port. Addresses are hex words in
 * the kernel's byte order, ports hex in network order; the inode is the 10th field.
 */
export function findSocketInode(table: string, peer: PeerAddress, littleEndian = endianness() === 'LE'): string | undefined {
  const local = `:${hexPort(peer.peerPort)}`;
  const remote = `:${hexPort(peer.serverPort)}`;
  const peerHost = peer.peerHost.replace(/^::ffff:/i, '');
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || !fields[1].endsWith(local) || !fields[2].endsWith(remote)) continue;
    if (ipv4Of(fields[2].slice(0, -5), littleEndian) !== '127.0.0.1') continue;
    if (ipv4Of(fields[1].slice(0, -5), littleEndian) !== peerHost) continue;
    if (fields[9] !== '0') return fields[9];
  }
  return undefined;
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0');
}

/** An IPv4 address as `/proc/net/tcp` prints it (one word), or as `tcp6` prints `::ffff:a.b.c.d` (four); undefined for another IPv6 address. */
function ipv4Of(hex: string, littleEndian: boolean): string | undefined {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => {
    const b = (word.match(/.{2}/g) ?? []).map((h) => parseInt(h, 16));
    return littleEndian ? b.reverse() : b;
  });
  const v4 =
    bytes.length === 4
      ? bytes
      : bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff
        ? bytes.slice(12)
        : undefined;
  return v4?.join('.');
}

/** Without `/proc` (macOS, the BSDs, Windows) nothing is checked: the claim is taken as sent (docs/security.md). */
const uncheckedPeerPid: PeerPidCheck = async () => ({ result: 'unchecked', reason: 'this platform has no /proc to check it against' });

export function peerPidCheckFor(platform: NodeJS.Platform = process.platform): PeerPidCheck {
  return platform === 'linux' ? procPeerPidCheck() : uncheckedPeerPid;
}

/**
 * Runs a check with a time limit; a check that throws or overruns leaves the claim unverified. `finished`
 * settles when the check's own work ends, which may be after the outcome (a time-out does not stop a
 * scan of /proc already under way): a caller allowing one check at a time waits for it.
 */
export function startPeerPidCheck(
  check: PeerPidCheck,
  peer: PeerAddress,
  claimedPid: number,
  timeoutMs = PEER_CHECK_TIMEOUT_MS,
): { outcome: Promise<PeerPidOutcome>; finished: Promise<void> } {
  const work = check(peer, claimedPid).catch((error: Error) => ({ result: 'unverified' as const, reason: error.message }));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<PeerPidOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ result: 'unverified', reason: `the check took longer than ${timeoutMs} ms` }), timeoutMs);
    timer.unref();
  });
  const outcome = Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  return { outcome, finished: work.then(() => undefined) };
}

/** {@link startPeerPidCheck}'s outcome alone. */
export function checkPeerPid(check: PeerPidCheck, peer: PeerAddress, claimedPid: number, timeoutMs = PEER_CHECK_TIMEOUT_MS): Promise<PeerPidOutcome> {
  return startPeerPidCheck(check, peer, claimedPid, timeoutMs).outcome;
}
