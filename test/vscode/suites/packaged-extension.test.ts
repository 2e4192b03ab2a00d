/**
 * The extension under test is the packaged .vsix installed into code-server, not the dev folder: this
 * suite checks that, and that it activates and contributes its commands.
 * Outer side: runSuiteInVsCode({ suite: INNER_SUITES.product, files: ['packaged-extension'], ... }) on a
 * server started with vsixPaths: [await ensureVsix()].
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { describe, it } from '../bdd';
import { EXTENSION_ID, installedExtension } from '../util';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

describe('packaged extension', () => {
  it('is installed from the .vsix, not loaded from the repository', async () => {
    const ext = await installedExtension(EXTENSION_ID);
    const real = fs.realpathSync(ext.extensionPath);
    assert.ok(!real.startsWith(REPO_ROOT + path.sep), `loaded from ${real}`);
    assert.match(path.basename(real), /^native-claude\.native-claude-\d+\.\d+\.\d+/);
    assert.ok(fs.existsSync(path.join(real, 'dist', 'extension.js')), 'the bundle is in the package');
    assert.ok(!fs.existsSync(path.join(real, 'src')), 'sources are not in the package');
  });

  it('activates and contributes its commands', async () => {
    const ext = await installedExtension(EXTENSION_ID);
    assert.strictEqual(ext.isActive, true);
    const commands = await vscode.commands.getCommands(true);
    const declared = (ext.packageJSON.contributes?.commands ?? []) as Array<{ command: string }>;
    assert.ok(declared.length > 0);
    for (const { command } of declared) assert.ok(commands.includes(command), `${command} is registered`);
  });
});
