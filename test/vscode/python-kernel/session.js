// One persistent python3 process running kernel_driver.py, and the protocol with it (no `vscode` here, so
// it can be tried with plain node). Requests go out on the child's fd 3, messages come back on its fd 4;
// what the child writes to its raw fds 1/2 is read until the sync marker the driver writes before "done".
'use strict';

const { spawn } = require('child_process');
const path = require('path');
const { StringDecoder } = require('string_decoder');

const DRIVER = path.join(__dirname, 'kernel_driver.py');
const SYNC_RE = /\x00nc-test-kernel-sync:(\d+)\x00/;

/** Splits a byte stream into lines, calling onLine for each complete one. */
function lineReader(stream, onLine) {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  stream.on('data', (chunk) => {
    const parts = (partial + decoder.write(chunk)).split('\n');
    partial = parts.pop();
    for (const p of parts) if (p) onLine(p);
  });
}

class PythonSession {
  /**
   * @param {{ python?: string, cwd?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} opts
   */
  constructor(opts = {}) {
    this.python = opts.python || process.env.NC_TEST_KERNEL_PYTHON || 'python3';
    this.log = opts.log || (() => undefined);
    this.nextId = 1;
    /** Execution count shown as In[n]; restarts with each process, as Jupyter's does. */
    this.count = 0;
    this.current = undefined;
    this.exited = undefined;
    this.child = spawn(this.python, ['-u', DRIVER], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    });
    this.pid = this.child.pid;
    this.ready = new Promise((resolve, reject) => {
      this._readyResolve = resolve;
      this._readyReject = reject;
    });
    this.child.on('error', (e) => this._onExit(undefined, undefined, e));
    this.child.on('exit', (code, signal) => this._onExit(code, signal));
    for (const [fd, name] of [[1, 'stdout'], [2, 'stderr']]) {
      const decoder = new StringDecoder('utf8');
      this.child.stdio[fd].on('data', (chunk) => this._onRaw(name, decoder.write(chunk)));
    }
    lineReader(this.child.stdio[4], (line) => this._onMessage(line));
    // The protocol socket towards the child: a write after it died must not throw in the host.
    this.child.stdio[3].on('error', (e) => this.log(`request pipe: ${e.message}`));
  }

  get alive() {
    return this.exited === undefined;
  }

  /**
   * Runs `code`; `onOutput(msg)` gets {type: 'stream', name, text} | {type: 'display'|'result', data} |
   * {type: 'error', ename, evalue, traceback} in order. Resolves {ok, count} when the cell is done, or
   * {ok: false, died: {code, signal}} when the process exits first.
   */
  run(code, onOutput) {
    if (this.current) throw new Error('the python process is already running a cell');
    if (!this.alive) return Promise.resolve({ ok: false, count: this.count, died: this.exited });
    const id = this.nextId++;
    const count = ++this.count;
    return new Promise((resolve) => {
      this.current = { id, count, onOutput, resolve, done: undefined, synced: { stdout: false, stderr: false } };
      this.child.stdio[3].write(JSON.stringify({ id, code, count }) + '\n');
    });
  }

  /** SIGINT: KeyboardInterrupt in the running cell (ignored by the driver between cells). */
  interrupt() {
    if (this.alive && this.current) {
      this.log(`SIGINT to python ${this.pid}`);
      this.child.kill('SIGINT');
    }
  }

  kill() {
    if (this.alive) this.child.kill('SIGKILL');
  }

  _onMessage(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.log(`not a protocol line: ${line.slice(0, 200)}`);
      return;
    }
    if (msg.type === 'ready') {
      this.log(`python ${msg.python} ready (pid ${msg.pid})`);
      this._readyResolve(msg);
      return;
    }
    const cur = this.current;
    if (!cur || msg.id !== cur.id) return;
    if (msg.type === 'done') {
      cur.done = msg;
      // Raw fd output written before "done" may still be in the pipes: wait for both sync markers.
      cur.syncTimer = setTimeout(() => this._finish(), 2000);
      this._maybeFinish();
    } else {
      cur.onOutput(msg);
    }
  }

  _onRaw(name, text) {
    const cur = this.current;
    let rest = text;
    if (cur) {
      const m = SYNC_RE.exec(rest);
      if (m && Number(m[1]) === cur.id) {
        const before = rest.slice(0, m.index);
        if (before) cur.onOutput({ type: 'stream', name, text: before });
        cur.synced[name] = true;
        rest = rest.slice(m.index + m[0].length);
        this._maybeFinish();
        if (rest) this.log(`after the cell, ${name}: ${rest.slice(0, 200)}`);
        return;
      }
      if (rest) cur.onOutput({ type: 'stream', name, text: rest.replace(SYNC_RE, '') });
      return;
    }
    rest = rest.replace(SYNC_RE, '');
    if (rest) this.log(`between cells, ${name}: ${rest.slice(0, 200)}`);
  }

  _maybeFinish() {
    const cur = this.current;
    if (cur && cur.done && cur.synced.stdout && cur.synced.stderr) this._finish();
  }

  _finish() {
    const cur = this.current;
    if (!cur) return;
    clearTimeout(cur.syncTimer);
    this.current = undefined;
    cur.resolve({ ok: cur.done ? cur.done.ok : false, count: cur.count });
  }

  _onExit(code, signal, error) {
    if (this.exited) return;
    this.exited = { code: code ?? null, signal: signal ?? null, error: error ? error.message : undefined };
    this.log(`python ${this.pid} exited (${error ? error.message : code ?? signal})`);
    this._readyReject(new Error(`python exited before it was ready: ${JSON.stringify(this.exited)}`));
    this.ready.catch(() => undefined);
    const cur = this.current;
    if (cur) {
      clearTimeout(cur.syncTimer);
      this.current = undefined;
      cur.resolve({ ok: false, count: cur.count, died: this.exited });
    }
  }
}

module.exports = { PythonSession, DRIVER };
