import { spawn, type ChildProcess } from 'node:child_process';
import { AUTH_HEADER } from '../../src/server/auth';
import { TEST_TOKEN } from './serverFixture';

/**
 * Runs `script` (`node -e`) as a separate process, a client of its own of the server at `url`: its argv is
 * `url`, the auth header, the test token, then `more`. Each line it prints goes to `onLine`, also after the
 * promise settled; the promise fails if the process cannot start or exits before `onLine` resolved it.
 */
export function spawnScriptClient<T>(
  what: string,
  script: string,
  url: string,
  more: string[],
  onLine: (line: string, child: ChildProcess, resolve: (value: T) => void, reject: (error: Error) => void) => void,
): Promise<T> {
  const child = spawn(process.execPath, ['-e', script, url, AUTH_HEADER, TEST_TOKEN, ...more], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${what} exited early (${code})`)));
    let buffered = '';
    child.stdout.on('data', (data: Buffer) => {
      buffered += String(data);
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) onLine(line, child, resolve, reject);
    });
  });
}

/** Kills the process unless it has already exited. */
export const stopChild = (child: ChildProcess) => void (child.exitCode === null && child.kill());
