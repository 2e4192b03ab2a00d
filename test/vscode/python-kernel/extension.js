// Test-only notebook kernel (plain JavaScript: nothing to compile): a NotebookController for VS Code's
// built-in `jupyter-notebook` type that runs python cells in one persistent python3 process per notebook
// (session.js + kernel_driver.py), with outputs shaped like the Jupyter extension's. It stands in for
// Jupyter in the real-VS-Code tests, where the Jupyter extension cannot be installed. See README.md.
'use strict';

const vscode = require('vscode');
const { PythonSession } = require('./session');

const EXTENSION_ID = 'native-claude-test.native-claude-test-python-kernel';
const CONTROLLER_ID = 'native-claude-test-python';
const NOTEBOOK_TYPE = 'jupyter-notebook';
const LABEL = 'Test Python (python3)';
/** After an interrupt, how long the cell may take to stop before the process is killed. */
const INTERRUPT_GRACE_MS = Number(process.env.NC_TEST_KERNEL_INTERRUPT_GRACE_MS) || 5000;

const MIME_ORDER = ['image/png', 'image/jpeg', 'image/svg+xml', 'text/html', 'application/json', 'text/markdown', 'text/plain'];

/** NotebookCellOutputItems of a Jupyter-style mime bundle (images base64, json as objects), richest first. */
function itemsOf(data) {
  const mimes = Object.keys(data).sort((a, b) => rank(a) - rank(b));
  return mimes.map((mime) => {
    const value = data[mime];
    if (mime.startsWith('image/') && mime !== 'image/svg+xml') return new vscode.NotebookCellOutputItem(Buffer.from(value, 'base64'), mime);
    if (mime === 'application/json' || mime.endsWith('+json')) return vscode.NotebookCellOutputItem.json(value, mime);
    return vscode.NotebookCellOutputItem.text(String(value), mime);
  });
}
function rank(mime) {
  const i = MIME_ORDER.indexOf(mime);
  return i < 0 ? MIME_ORDER.length : i;
}

function errorOutput(name, message, traceback) {
  return new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name, message, stack: traceback.join('\n') })], {
    outputType: 'error',
    originalError: { output_type: 'error', ename: name, evalue: message, traceback },
  });
}

class TestPythonKernel {
  /** @param {vscode.ExtensionContext} context */
  constructor(context) {
    this.context = context;
    this.lines = [];
    this.channel = vscode.window.createOutputChannel('Test Python Kernel');
    /** notebook uri → PythonSession */
    this.sessions = new Map();
    /** notebook uri → the promise of the last queued batch (cells of one notebook run one after another) */
    this.queues = new Map();
    /** notebook uri → { execution, session } of the running cell */
    this.running = new Map();
    /** notebook uri → interrupt generation: an interrupt also drops the cells queued before it */
    this.generation = new Map();
    /** notebook uri → whether VS Code has this controller selected for it (onDidChangeSelectedNotebooks) */
    this.selected = new Map();
    this.controller = undefined;
    this.controllerSubs = [];
    context.subscriptions.push(
      this.channel,
      vscode.workspace.onDidOpenNotebookDocument((nb) => this.prefer(nb)),
      vscode.workspace.onDidCloseNotebookDocument((nb) => this.dropSession(nb.uri.toString(), 'the notebook was closed')),
      { dispose: () => this.disable() },
    );
  }

  log(line) {
    const l = `${new Date().toISOString()} ${line}`;
    this.lines.push(l);
    if (this.lines.length > 2000) this.lines.shift();
    this.channel.appendLine(l);
  }

  get enabled() {
    return this.controller !== undefined;
  }

  /** Creates the controller (no-op when it exists) and prefers it for the open notebooks of the type. */
  enable() {
    if (this.controller) return;
    const c = vscode.notebooks.createNotebookController(CONTROLLER_ID, NOTEBOOK_TYPE, LABEL, (cells, nb) => this.execute(cells, nb));
    c.supportedLanguages = ['python'];
    c.supportsExecutionOrder = true;
    c.description = 'test-only kernel (native-claude tests)';
    c.interruptHandler = (nb) => this.interrupt(nb.uri.toString(), 'interrupt');
    this.controllerSubs = [
      c.onDidChangeSelectedNotebooks(({ notebook, selected }) => {
        this.selected.set(notebook.uri.toString(), selected);
        this.log(`${selected ? 'selected' : 'deselected'} for ${notebook.uri.toString()}`);
      }),
    ];
    this.controller = c;
    for (const nb of vscode.workspace.notebookDocuments) this.prefer(nb);
    this.log('controller created');
  }

  /** Disposes the controller and ends every python process: no kernel of ours exists any more. */
  disable() {
    if (!this.controller) return;
    for (const key of [...this.sessions.keys()]) this.dropSession(key, 'the controller was disposed');
    for (const d of this.controllerSubs) d.dispose();
    this.controller.dispose();
    this.controller = undefined;
    this.selected.clear();
    this.log('controller disposed');
  }

  prefer(nb) {
    if (this.controller && nb.notebookType === NOTEBOOK_TYPE) this.controller.updateNotebookAffinity(nb, vscode.NotebookControllerAffinity.Preferred);
  }

  sessionFor(notebook) {
    const key = notebook.uri.toString();
    let s = this.sessions.get(key);
    if (!s || !s.alive) {
      const folder = vscode.workspace.getWorkspaceFolder(notebook.uri);
      const cwd = notebook.uri.scheme === 'file' ? require('path').dirname(notebook.uri.fsPath) : folder?.uri.fsPath;
      s = new PythonSession({ cwd, log: (l) => this.log(`[${key}] ${l}`) });
      this.log(`started python pid ${s.pid} for ${key}`);
      this.sessions.set(key, s);
    }
    return s;
  }

  dropSession(key, why) {
    const s = this.sessions.get(key);
    if (!s) return;
    this.log(`killing python ${s.pid} of ${key}: ${why}`);
    this.sessions.delete(key);
    s.kill();
  }

  /** interruptHandler and execution tokens: SIGINT to the running cell, drop the queued ones; kill if it will not stop. */
  interrupt(key, why) {
    this.generation.set(key, (this.generation.get(key) || 0) + 1);
    const run = this.running.get(key);
    if (!run) return;
    this.log(`${why}: interrupting ${key}`);
    run.interrupted = true;
    run.session.interrupt();
    clearTimeout(run.killTimer);
    run.killTimer = setTimeout(() => {
      if (this.running.get(key) === run) {
        run.killedAfterInterrupt = true;
        this.dropSession(key, `the cell did not stop within ${INTERRUPT_GRACE_MS} ms of the interrupt`);
      }
    }, INTERRUPT_GRACE_MS);
  }

  execute(cells, notebook) {
    const key = notebook.uri.toString();
    const gen = this.generation.get(key) || 0;
    const executions = [];
    for (const cell of cells) {
      try {
        executions.push(this.controller.createNotebookCellExecution(cell));
      } catch (e) {
        this.log(`cannot create an execution for cell ${cell.index}: ${e.message}`);
      }
    }
    const prev = this.queues.get(key) || Promise.resolve();
    const batch = prev.then(() => this.runBatch(notebook, executions, gen));
    this.queues.set(key, batch.catch(() => undefined));
    return batch;
  }

  async runBatch(notebook, executions, gen) {
    const key = notebook.uri.toString();
    let stop = false;
    for (const execution of executions) {
      const cancelled = execution.token.isCancellationRequested || (this.generation.get(key) || 0) !== gen;
      if (stop || cancelled || notebook.isClosed) {
        // Not run: like Jupyter after an error or an interrupt, the rest of the queue is dropped.
        safe(() => execution.end(undefined), (e) => this.log(`end of a dropped cell: ${e.message}`));
        continue;
      }
      const ok = await this.runCell(notebook, execution);
      if (!ok) stop = true;
    }
  }

  async runCell(notebook, execution) {
    const key = notebook.uri.toString();
    const cell = execution.cell;
    execution.start(Date.now());
    await execution.clearOutput();
    const session = this.sessionFor(notebook);
    const run = { execution, session, interrupted: false, killedAfterInterrupt: false, killTimer: undefined };
    this.running.set(key, run);
    const tokenSub = execution.token.onCancellationRequested(() => this.interrupt(key, 'cancellation token'));
    let chain = Promise.resolve();
    let lastStream; // { name, output }: consecutive text of one stream goes into one output, as Jupyter's does
    const onOutput = (msg) => {
      chain = chain.then(async () => {
        if (msg.type === 'stream') {
          const item = msg.name === 'stderr' ? vscode.NotebookCellOutputItem.stderr(msg.text) : vscode.NotebookCellOutputItem.stdout(msg.text);
          if (lastStream && lastStream.name === msg.name) {
            await execution.appendOutputItems([item], lastStream.output);
          } else {
            const output = new vscode.NotebookCellOutput([item], { outputType: 'stream' });
            lastStream = { name: msg.name, output };
            await execution.appendOutput(output);
          }
          return;
        }
        lastStream = undefined;
        if (msg.type === 'error') {
          await execution.appendOutput(errorOutput(msg.ename, msg.evalue, msg.traceback));
        } else if (msg.type === 'display' || msg.type === 'result') {
          const metadata = msg.type === 'result' ? { outputType: 'execute_result', executionCount: execution.executionOrder } : { outputType: 'display_data' };
          await execution.appendOutput(new vscode.NotebookCellOutput(itemsOf(msg.data), metadata));
        }
      }).catch((e) => this.log(`output of cell ${cell.index}: ${e.message}`));
    };
    let result;
    try {
      await session.ready;
      execution.executionOrder = session.count + 1;
      result = await session.run(cell.document.getText(), onOutput);
    } catch (e) {
      result = { ok: false, died: session.exited, startError: e.message };
    } finally {
      tokenSub.dispose();
      clearTimeout(run.killTimer);
      if (this.running.get(key) === run) this.running.delete(key);
    }
    await chain;
    if (result.died) {
      if (this.sessions.get(key) === session) this.sessions.delete(key);
      const how = result.died.error || (result.died.signal ? `signal ${result.died.signal}` : `exit code ${result.died.code}`);
      const message = result.startError
        ? `The test kernel could not start python (${session.python}): ${how}.`
        : run.killedAfterInterrupt
          ? `The cell did not stop within ${INTERRUPT_GRACE_MS} ms of the interrupt: the python process (pid ${session.pid}) was killed; the next run starts a fresh one.`
          : `The kernel died while the cell was running: the python process (pid ${session.pid}) ended with ${how}; the next run starts a fresh one.`;
      await safeAsync(() => execution.appendOutput(errorOutput('KernelDied', message, [message])), (e) => this.log(`kernel-died output: ${e.message}`));
    }
    safe(() => execution.end(result.ok, Date.now()), (e) => this.log(`end of cell ${cell.index}: ${e.message}`));
    return result.ok;
  }

  /** The public face for tests (the extension's exports). */
  api() {
    return {
      extensionId: EXTENSION_ID,
      controllerId: CONTROLLER_ID,
      notebookType: NOTEBOOK_TYPE,
      label: LABEL,
      isEnabled: () => this.enabled,
      enable: () => this.enable(),
      disable: () => this.disable(),
      /** Selects this kernel for a notebook editor (default: the active one) without a picker. */
      select: (notebookEditor) =>
        vscode.commands.executeCommand('notebook.selectKernel', {
          notebookEditor: notebookEditor || vscode.window.activeNotebookEditor,
          id: CONTROLLER_ID,
          extension: EXTENSION_ID,
        }),
      /** Interrupts the notebook's running cell as the interruptHandler does (also when no editor shows it). */
      interrupt: (uri) => this.interrupt(uri.toString(), 'api'),
      /** Whether VS Code has this controller selected for `uri` (undefined: never told). */
      isSelected: (uri) => this.selected.get(uri.toString()),
      /** The python process of a notebook: { pid, alive } or undefined. */
      process: (uri) => {
        const s = this.sessions.get(uri.toString());
        return s ? { pid: s.pid, alive: s.alive } : undefined;
      },
      log: () => this.lines.slice(),
    };
  }
}

function safe(fn, onError) {
  try {
    fn();
  } catch (e) {
    onError(e);
  }
}
async function safeAsync(fn, onError) {
  try {
    await fn();
  } catch (e) {
    onError(e);
  }
}

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  const kernel = new TestPythonKernel(context);
  if (process.env.NC_TEST_KERNEL_CONTROLLER !== 'off') kernel.enable();
  return kernel.api();
}

function deactivate() {}

module.exports = { activate, deactivate };
