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

/** One loopback connection as the server sees it: its own port and the peer's (ephemeral) port. */
export interface PeerAddress {
  serverPort: number;
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
    if (inode === undefined) return { result: 'unverified', reason: `no TCP socket from port ${peer.peerPort} to ${peer.serverPort} in ${procRoot}/net` };
    let fds: string[];
    try {
      fds = await readdir(`${procRoot}/${claimedPid}/fd`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return { result: 'unverified', reason: code === 'ENOENT' ? `no process ${claimedPid}` : `cannot read the descriptors of process ${claimedPid} (${code})` };
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
 * The inode of the row of a `/proc/net/tcp{,6}` table whose local port is the peer's and whose remote
 * end is 127.0.0.1 (or `::ffff:127.0.0.1`) on the server's port. Addresses are hex words in the
 * kernel's byte order, ports hex in network order; the inode is the 10th field.
 */
export function findSocketInode(table: string, peer: PeerAddress, littleEndian = endianness() === 'LE'): string | undefined {
  const local = `:${hexPort(peer.peerPort)}`;
  const remote = `:${hexPort(peer.serverPort)}`;
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || !fields[1].endsWith(local) || !fields[2].endsWith(remote)) continue;
    if (!isLoopbackV4(fields[2].slice(0, -5), littleEndian)) continue;
    if (fields[9] !== '0') return fields[9];
  }
  return undefined;
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0');
}

/** 127.0.0.1 as `/proc/net/tcp` prints it (one word), or as `tcp6` prints `::ffff:127.0.0.1` (four). */
function isLoopbackV4(hex: string, littleEndian: boolean): boolean {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => {
    const b = (word.match(/.{2}/g) ?? []).map((h) => parseInt(h, 16));
    return littleEndian ? b.reverse() : b;
  });
  const v4 = bytes.length === 4 ? bytes : bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff ? bytes.slice(12) : [];
  return v4.join('.') === '127.0.0.1';
}

/** Without `/proc` (macOS, the BSDs, Windows) nothing is checked: the claim is taken as sent (docs/security.md). */
const uncheckedPeerPid: PeerPidCheck = async () => ({ result: 'unchecked', reason: 'this platform has no /proc to check it against' });

export function peerPidCheckFor(platform: NodeJS.Platform = process.platform): PeerPidCheck {
  return platform === 'linux' ? procPeerPidCheck() : uncheckedPeerPid;
}

/** Runs a check with a time limit; a check that throws or overruns leaves the claim unverified. */
export async function checkPeerPid(check: PeerPidCheck, peer: PeerAddress, claimedPid: number, timeoutMs = PEER_CHECK_TIMEOUT_MS): Promise<PeerPidOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<PeerPidOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ result: 'unverified', reason: `the check took longer than ${timeoutMs} ms` }), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([check(peer, claimedPid).catch((error: Error) => ({ result: 'unverified' as const, reason: error.message })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
