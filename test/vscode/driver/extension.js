// Test-only driver extension (plain JavaScript: nothing to compile). It has no behaviour of its own; it
// exists so that VS Code's extension test runner has an extensionDevelopmentPath that is NOT the extension
// under test (which is installed from its packaged .vsix). Its exports give the inner suites an
// ExtensionContext, e.g. for environmentVariableCollection or globalState experiments.
'use strict';

/** @param {import('vscode').ExtensionContext} context */
function activate(context) {
  return {
    context,
    activatedAt: Date.now(),
    pid: process.pid,
  };
}

function deactivate() {}

module.exports = { activate, deactivate };
