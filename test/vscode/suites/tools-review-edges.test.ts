/**
 * The review diff's edges (docs/vscode-traps.md, "Diff review"), over the real `/tools` and IDE (`/`)
 * routes, in real VS Code: notebooks (9), typing into a file while its openDiff review is open (5), content
 * never carried in a URI (8), and closeAllDiffTabs leaving the user's own diffs alone (11). The inner half
 * of test/real/vscode-tools.test.ts; test titles start with `[key]`, the name the outer test reads.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { after, describe, it } from '../bdd';
import { probe, sleep, waitFor } from '../util';
import { stateAfter } from '../../support/stateAfter';
import { ideRoute, openedReview, proposalTabs, record, tabOpen, toolsRunActive, toolsSuite, type ToolsConnection } from '../toolsClient';

/** What every open tab is, for the record when something unexpected opened. */
function tabKinds(): string[] {
  return vscode.window.tabGroups.all.flatMap((g) =>
    g.tabs.map((t) => {
      const input = t.input as { constructor?: { name?: string }; uri?: vscode.Uri; original?: vscode.Uri; modified?: vscode.Uri } | undefined;
      const uris = [input?.uri, input?.original, input?.modified].filter(Boolean).map((u) => u!.toString().slice(0, 120));
      return `${t.label} [${input?.constructor?.name ?? typeof input}] ${uris.join(' ↔ ')}`;
    }),
  );
}

/** Tabs showing our side of a review that are not a text diff (a notebook editor took over). */
function nonTextReviewTabs(): vscode.Tab[] {
  const ours = (uri: vscode.Uri) => uri.scheme.startsWith('native-claude');
  return vscode.window.tabGroups.all.flatMap((g) =>
    g.tabs.filter(
      (t) => (t.input instanceof vscode.TabInputNotebookDiff && ours(t.input.modified)) || (t.input instanceof vscode.TabInputNotebook && ours(t.input.uri)),
    ),
  );
}

/** Sets the user's `workbench.editorAssociations` (undefined removes it) and waits until it holds. */
async function setAssociations(value: Record<string, string> | undefined): Promise<void> {
  const config = () => vscode.workspace.getConfiguration('workbench');
  await config().update('editorAssociations', value, vscode.ConfigurationTarget.Global);
  await waitFor(
    'workbench.editorAssociations to change',
    () => JSON.stringify(config().inspect('editorAssociations')?.globalValue) === JSON.stringify(value),
    5_000,
  );
}

const NOTEBOOK = (source: string) =>
  `${JSON.stringify({ cells: [{ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: [source] }], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;

describe("review diff edges: notebooks, unsaved edits, URIs, the user's own diffs", function () {
  this.timeout(60_000);
  let t: ToolsConnection;
  let ide: ToolsConnection;
  let ws: string;
  const abs = (rel: string) => path.join(ws, rel);

  toolsSuite(async (conn, root) => {
    t = conn;
    ws = root;
    ide = await ideRoute();
  });

  after(async () => {
    if (!toolsRunActive()) return;
    await vscode.window.tabGroups.close([...proposalTabs().map((p) => p.tab), ...nonTextReviewTabs()]).then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('[notebook-write] write_file of an .ipynb opens a text diff of its JSON (not a notebook diff); accept writes it', async () => {
    const rel = 'nb.ipynb';
    fs.writeFileSync(abs(rel), NOTEBOOK('print(1)'));
    const proposal = NOTEBOOK('print(2)');
    const call = t.call('write_file', { path: rel, content: proposal });
    const state = await stateAfter(call, 8_000);
    record('notebook-write', { stateAfter8s: state === 'pending' ? 'pending' : (state.value.json ?? state.value.text), tabs: tabKinds() });
    assert.strictEqual(state, 'pending', 'the review ended by itself');
    assert.deepStrictEqual(
      nonTextReviewTabs().map((x) => x.label),
      [],
      'a notebook editor took over the review',
    );
    const review = await openedReview(rel);
    assert.strictEqual(review.document.getText(), proposal);
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const answer = await call;
    record('notebook-write', { answer: answer.json ?? answer.text });
    assert.strictEqual(answer.json?.status, 'accepted', answer.text);
    assert.match(fs.readFileSync(abs(rel), 'utf8'), /print\(2\)/);
    assert.strictEqual(tabOpen(review.input.modified), false);
    assert.strictEqual(t.api.pendingReviews(), 0);
  });

  it('[notebook-opendiff] openDiff of an .ipynb (the IDE route) is a text diff; closing its tab answers DIFF_REJECTED', async () => {
    const file = abs('nb2.ipynb');
    fs.writeFileSync(file, NOTEBOOK('a = 1'));
    const call = ide.call('openDiff', {
      old_file_path: file,
      new_file_path: file,
      new_file_contents: NOTEBOOK('a = 2'),
      tab_name: '✻ [Claude Code] nb2.ipynb (abc123) ⧉',
    });
    const state = await stateAfter(call, 8_000);
    record('notebook-opendiff', { stateAfter8s: state === 'pending' ? 'pending' : state.value.text, tabs: tabKinds() });
    assert.strictEqual(state, 'pending', 'the review ended by itself');
    assert.deepStrictEqual(
      nonTextReviewTabs().map((x) => x.label),
      [],
      'a notebook editor took over the review',
    );
    const review = await openedReview('nb2.ipynb');
    assert.strictEqual(review.tab.label, '✻ [Claude Code] nb2.ipynb (abc123) ⧉');
    await vscode.window.tabGroups.close(review.tab);
    const answer = await call;
    assert.strictEqual(answer.text, 'DIFF_REJECTED');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), NOTEBOOK('a = 1'));
    assert.strictEqual(ide.api.pendingReviews(), 0);
  });

  it('[custom-editor] with Markdown files associated to the preview (a custom editor), a .md review is still a text diff', async () => {
    const rel = 'notes.md';
    fs.writeFileSync(abs(rel), '# Notes\n\none\n');
    await setAssociations({ '*.md': 'vscode.markdown.preview.editor' });
    try {
      const call = t.call('write_file', { path: rel, content: '# Notes\n\ntwo\n' });
      const state = await stateAfter(call, 8_000);
      record('custom-editor', { stateAfter8s: state === 'pending' ? 'pending' : (state.value.json ?? state.value.text), tabs: tabKinds() });
      assert.strictEqual(state, 'pending', 'the review ended by itself');
      const review = await openedReview(rel);
      assert.strictEqual(review.document.getText(), '# Notes\n\ntwo\n');
      await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
      const answer = await call;
      assert.strictEqual(answer.json?.status, 'accepted', answer.text);
      assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), '# Notes\n\ntwo\n');
    } finally {
      await setAssociations(undefined);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await sleep(200);
    }
  });

  it('[notebook-dirty] write_file of a notebook with unsaved edits in the notebook editor is refused', async () => {
    const rel = 'nb3.ipynb';
    fs.writeFileSync(abs(rel), NOTEBOOK('x = 1'));
    const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.file(abs(rel)));
    await vscode.window.showNotebookDocument(notebook, { preview: false });
    const cell = notebook.cellAt(0).document;
    const edit = new vscode.WorkspaceEdit();
    edit.insert(cell.uri, new vscode.Position(0, 0), '# unsaved\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitFor('the notebook to be dirty', () => notebook.isDirty, 5_000);
    const answer = await t.call('write_file', { path: rel, content: NOTEBOOK('x = 2') });
    record('notebook-dirty', { answer: answer.text, tabs: tabKinds() });
    try {
      assert.strictEqual(answer.isError, true, answer.text);
      assert.match(answer.text, /unsaved changes/);
      assert.strictEqual(proposalTabs().length, 0, 'no review was opened');
      assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), NOTEBOOK('x = 1'));
      assert.strictEqual(notebook.isDirty, true);
    } finally {
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await sleep(200);
    }
  });

  it('[opendiff-dirty-during] the user types into the real file while its openDiff review is open, accepts, and the CLI writes: the typing stays in the buffer', async () => {
    const file = abs('during-cli.txt');
    fs.writeFileSync(file, 'one\n');
    const document = (await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false })).document;
    await sleep(200);
    const call = ide.call('openDiff', {
      old_file_path: file,
      new_file_path: file,
      new_file_contents: 'two\n',
      tab_name: '✻ [Claude Code] during-cli.txt (bbb222) ⧉',
    });
    const review = await openedReview('during-cli.txt');
    const typed = new vscode.WorkspaceEdit();
    typed.insert(document.uri, new vscode.Position(0, 0), 'typed by the user\n');
    assert.ok(await vscode.workspace.applyEdit(typed));
    await vscode.commands.executeCommand('nativeClaude.acceptReview', review.input.modified);
    const answer = await call;
    // What the CLI does after FILE_SAVED: it writes the accepted text to disk.
    fs.writeFileSync(file, 'two\n');
    await sleep(1500);
    const after = { answer: answer.text, buffer: document.getText(), dirty: document.isDirty, onDisk: fs.readFileSync(file, 'utf8') };
    record('opendiff-dirty-during', after);
    try {
      assert.strictEqual(answer.text, 'FILE_SAVED\ntwo\n');
      assert.strictEqual(after.buffer, 'typed by the user\none\n', 'the unsaved typing was replaced');
      assert.strictEqual(after.dirty, true);
    } finally {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await sleep(200);
    }
  });

  it('[notification-link] a file name shaped like a command link, in the notification that names it: shown as text, never a link', async () => {
    // A notification renders `[label](command:…)` as a link that runs the command on a click; claude (or a
    // prompt injected into it) picks file names. The command here only opens an untitled editor.
    const rel = 'notice[Review](command:workbench.action.files.newUntitledFile).txt';
    fs.writeFileSync(abs(rel), 'one\n');
    await vscode.commands.executeCommand('notifications.clearAll');
    const call = t.call('write_file', { path: rel, content: 'two\n' });
    const review = await openedReview('notice[Review](command:workbench.action.files.newUntitledFile).txt');
    await vscode.window.tabGroups.close(review.tab);
    const answer = await call;
    assert.strictEqual(answer.json?.status, 'rejected', answer.text);
    // The notification center lists it whether or not its toast is still up.
    await vscode.commands.executeCommand('notifications.showList');
    const seen = await probe<{ messages: string[]; links: { text: string; href: string | null }[] }>('notificationLinks', {
      containing: 'its review tab was closed',
    });
    await vscode.commands.executeCommand('notifications.hideList');
    record('notification-link', seen);
    assert.ok(
      seen.messages.some((m) => m.replaceAll('\u2060', '').includes(rel)),
      `the notification names the file as it is: ${JSON.stringify(seen.messages)}`,
    );
    assert.deepStrictEqual(seen.links, [], 'the file name became a link');
    assert.strictEqual(fs.readFileSync(abs(rel), 'utf8'), 'one\n');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it("[uri-no-content] a 1 MB proposal: the diff's URIs are short, without query or fragment, and carry none of the content", async () => {
    const rel = 'big.txt';
    fs.writeFileSync(abs(rel), 'small\n');
    const marker = 'CONTENT-MARKER-7f3a';
    const line = `${marker} ${'x'.repeat(90)}\n`;
    const content = line.repeat(Math.ceil(1_000_000 / line.length));
    const call = t.call('write_file', { path: rel, content });
    const review = await openedReview(rel);
    const uris = [review.input.original, review.input.modified];
    const seen = [
      ...uris,
      ...vscode.workspace.textDocuments.map((d) => d.uri),
      ...vscode.window.tabGroups.all.flatMap((g) =>
        g.tabs.flatMap((tab) => {
          const input = tab.input as { uri?: vscode.Uri; original?: vscode.Uri; modified?: vscode.Uri };
          return [input?.uri, input?.original, input?.modified].filter((u): u is vscode.Uri => !!u);
        }),
      ),
    ];
    record('uri-no-content', { uris: uris.map((u) => u.toString()), longest: Math.max(...seen.map((u) => u.toString().length)) });
    try {
      for (const uri of uris) {
        assert.strictEqual(uri.query, '', `query of ${uri.toString()}`);
        assert.strictEqual(uri.fragment, '', `fragment of ${uri.toString()}`);
        assert.match(uri.path, /^\/[0-9a-f]{12}\/big\.txt$/);
      }
      for (const uri of seen)
        assert.ok(!uri.toString().includes(marker) && uri.toString().length < 500, `a URI carries content: ${uri.toString().slice(0, 200)}`);
      assert.strictEqual(review.document.getText().length, content.length);
    } finally {
      await vscode.commands.executeCommand('nativeClaude.rejectReview', review.input.modified);
      await call;
    }
  });

  it("[user-diff-survives] closeAllDiffTabs closes this extension's review only: the user's own diffs stay open", async () => {
    fs.writeFileSync(abs('left.txt'), 'left\n');
    fs.writeFileSync(abs('right.txt'), 'right\n');
    fs.writeFileSync(abs('target.txt'), 'target\n');
    // The user's own diffs: two files, and one like the git extension's (a read-only scheme on the left,
    // the working file on the right) of the very file the review is for.
    const headScheme = vscode.workspace.registerTextDocumentContentProvider('nc-test-head', { provideTextDocumentContent: () => 'from HEAD\n' });
    await vscode.commands.executeCommand('vscode.diff', vscode.Uri.file(abs('left.txt')), vscode.Uri.file(abs('right.txt')), 'my own diff', { preview: false });
    await vscode.commands.executeCommand(
      'vscode.diff',
      vscode.Uri.from({ scheme: 'nc-test-head', path: abs('target.txt') }),
      vscode.Uri.file(abs('target.txt')),
      'target.txt (Working Tree)',
      { preview: false },
    );
    const userDiffs = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && !tab.input.modified.scheme.startsWith('native-claude'))
        .map((tab) => tab.label)
        .sort();
    await waitFor("the user's two diffs", () => userDiffs().length === 2, 10_000);
    const call = ide.call('openDiff', {
      old_file_path: abs('target.txt'),
      new_file_path: abs('target.txt'),
      new_file_contents: 'changed\n',
      tab_name: '✻ [Claude Code] target.txt (aaa111) ⧉',
    });
    const review = await openedReview('target.txt');
    const closed = await ide.call('closeAllDiffTabs', {});
    const answer = await call;
    await sleep(300);
    record('user-diff-survives', { closed: closed.text, answer: answer.text, userDiffs: userDiffs(), tabs: tabKinds() });
    try {
      assert.strictEqual(closed.text, 'CLOSED_1_DIFF_TABS');
      assert.strictEqual(answer.text, 'TAB_CLOSED');
      assert.strictEqual(tabOpen(review.input.modified), false, 'the review tab is still open');
      assert.deepStrictEqual(userDiffs(), ['my own diff', 'target.txt (Working Tree)']);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      headScheme.dispose();
      await sleep(200);
    }
  });
});
