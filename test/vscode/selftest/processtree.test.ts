/**
 * Investigation (docs/notes/vscode-process-tree.md): the extension host's pid/ppid, the process tree down
 * to an integrated terminal's shell, environmentVariableCollection in new terminals, and how long shell
 * integration takes. Writes its findings as JSON to $NC_SELFTEST_OUT.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { execFileSync } from 'child_process';
import { after, describe, it } from '../bdd';
import { driver, nextEvent, waitFor } from '../util';

interface Proc {
  pid: number;
  ppid: number;
  uid: number;
  comm: string;
  args: string;
}

function proc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return { pid, ppid, uid, comm, args: args.length > 300 ? `${args.slice(0, 300)}…` : args };
  } catch {
    return undefined;
  }
}

function ancestors(pid: number): Proc[] {
  const out: Proc[] = [];
  for (let p = proc(pid); p; p = p.ppid > 0 ? proc(p.ppid) : undefined) out.push(p);
  return out;
}

const findings: Record<string, unknown> = {};
const out = process.env.NC_SELFTEST_OUT;

describe('process tree investigation', function () {
  this.timeout(60_000);

  after(() => {
    if (out) fs.writeFileSync(out, JSON.stringify(findings, null, 2));
  });

  it('records the extension host process', () => {
    findings.extensionHost = { pid: process.pid, ppid: process.ppid, execPath: process.execPath, argv: process.argv, chain: ancestors(process.pid) };
    findings.remoteName = vscode.env.remoteName;
    findings.appRoot = vscode.env.appRoot;
    findings.extHostEnv = {
      NC_SELFTEST_ENV: process.env.NC_SELFTEST_ENV,
      VSCODE_PID: process.env.VSCODE_PID,
      VSCODE_IPC_HOOK_CLI: process.env.VSCODE_IPC_HOOK_CLI,
      VSCODE_HANDLES_UNCAUGHT_ERRORS: process.env.VSCODE_HANDLES_UNCAUGHT_ERRORS,
    };
  });

  it('a new terminal: shell integration timing, env collection, ancestors of its shell', async () => {
    const api = await driver();
    api.context.environmentVariableCollection.replace('NC_ENVCOLL_VAR', 'replaced-by-driver');
    const cwd = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const marker = path.join(process.env.NC_SELFTEST_TMP ?? '/tmp', `nc-envcoll-${process.pid}.txt`);
    fs.rmSync(marker, { force: true });

    const t0 = Date.now();
    const terminal = vscode.window.createTerminal({ name: 'nc-probe', cwd, shellPath: '/bin/bash' });
    const openedAt = await nextEvent(vscode.window.onDidOpenTerminal, 'terminal open', 10_000, (t) => t === terminal)
      .then(() => Date.now())
      .catch(() => undefined);
    const shellPid = await terminal.processId;
    const pidAt = Date.now();
    const si = terminal.shellIntegration
      ? terminal.shellIntegration
      : (await nextEvent(vscode.window.onDidChangeTerminalShellIntegration, 'shell integration', 20_000, (e) => e.terminal === terminal)).shellIntegration;
    const siAt = Date.now();
    findings.terminalTiming = { processIdMs: pidAt - t0, openEventMs: openedAt ? openedAt - t0 : undefined, shellIntegrationMs: siAt - t0 };

    // env collection, and the shell's view of its ancestors, via sendText
    terminal.sendText(`echo "$NC_ENVCOLL_VAR|$NC_SELFTEST_ENV|$$|$PPID|$VSCODE_PID|$TERM_PROGRAM" > ${marker}`);
    const line = await waitFor('marker file', () => (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim() : ''), 10_000);
    const [envcoll, serverEnv, shellSelf, shellParent, vscodePid, termProgram] = line.split('|');
    findings.shellSaw = {
      NC_ENVCOLL_VAR: envcoll,
      NC_SELFTEST_ENV: serverEnv,
      pid: shellSelf,
      ppid: shellParent,
      VSCODE_PID: vscodePid,
      TERM_PROGRAM: termProgram,
    };

    // a child of the shell (stands in for `claude`): its ancestor chain
    const exec = si.executeCommand('sleep 3 & echo child=$!; wait');
    const stream = exec.read();
    let text = '';
    for await (const chunk of stream) {
      text += chunk;
      if (/child=\d+/.test(text)) break;
    }
    const childPid = Number(/child=(\d+)/.exec(text)?.[1]);
    const chain = ancestors(childPid);
    findings.psForest = execFileSync('ps', ['-eo', 'pid,ppid,pgid,sid,user,comm,args', '--forest', '--cols', '400'], { encoding: 'utf8' });
    findings.terminalChild = { shellPid, childPid, chain };
    const chainPids = chain.map((p) => p.pid);
    findings.ancestry = {
      extensionHostIsAncestor: chainPids.includes(process.pid),
      extensionHostParentIsAncestor: chainPids.includes(process.ppid),
      sameUid: chain.every((p) => p.uid === process.getuid!()),
    };
    // a second terminal, with the pty host already running
    const t1 = Date.now();
    const second = vscode.window.createTerminal({ name: 'nc-probe-2', cwd, shellPath: '/bin/bash' });
    if (!second.shellIntegration) {
      await nextEvent(vscode.window.onDidChangeTerminalShellIntegration, 'shell integration (2nd)', 20_000, (e) => e.terminal === second);
    }
    (findings.terminalTiming as Record<string, number>).secondShellIntegrationMs = Date.now() - t1;
    second.dispose();
    terminal.dispose();
    fs.rmSync(marker, { force: true });
    assert.strictEqual(envcoll, 'replaced-by-driver');
    assert.strictEqual(String(shellPid), shellSelf);
  });
});
