/** Harness self-test: everything here must pass (exit code 0). */
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { describe, it } from '../bdd';
import { driver, DRIVER_ID } from '../util';

describe('harness self-test (passing)', () => {
  it('runs in the server-side extension host of code-server', () => {
    assert.ok(vscode.env.remoteName, 'remoteName is set');
    assert.strictEqual(vscode.env.uiKind, vscode.UIKind.Web);
    assert.ok(vscode.version.startsWith('1.139.'), `VS Code ${vscode.version}`);
  });

  it('opened the requested folder', () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.strictEqual(folders.length, 1);
    assert.strictEqual(path.basename(folders[0].uri.fsPath), 'sample-workspace');
  });

  it('loads the driver extension from the development path', async () => {
    const api = await driver();
    assert.strictEqual(api.pid, process.pid);
    assert.ok(api.context.extensionPath.endsWith(path.join('test', 'vscode', 'driver')), api.context.extensionPath);
    assert.strictEqual(vscode.extensions.getExtension(DRIVER_ID)?.isActive, true);
  });

  it('sees the environment given to code-server', () => {
    assert.strictEqual(process.env.NC_SELFTEST_ENV, 'from-start-code-server');
  });

  it('sees an extension installed from a .vsix (when the harness installed one)', async () => {
    const id = process.env.NC_SELFTEST_VSIX_ID;
    if (!id) return;
    const ext = vscode.extensions.getExtension(id);
    assert.ok(ext, `${id} installed`);
    assert.ok(ext.extensionPath.includes(`${path.sep}extensions${path.sep}`), `installed under the extensions dir: ${ext.extensionPath}`);
    const api = (await ext.activate()) as { hello(): string };
    assert.strictEqual(api.hello(), 'hello from the packaged extension');
  });
});
