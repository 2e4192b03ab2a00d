// Hardening — an approval must show all of what it approves. executeCode asks in a notification for
// short code, but VS Code cuts a notification's message past 1,000 characters: 600 characters of code
// with many `](` (each gets an invisible word joiner so it never forms a link) in a notebook with an
// 87-character name made a 1,021-character message whose last line (`!rm -rf ~/projects`) was not shown.
// Now the message as shown must fit, else the code goes to the modal dialog, whole. The real approver
// (src/vscode/terminals/commandApprover.ts) against a stand-in of the `vscode` module that records what is shown.

jest.mock('vscode', () => jest.requireActual('./support/vscodeStandIn').vscodeStandIn(), { virtual: true });

import { notebookCodeApprover } from '../../src/vscode/terminals/commandApprover';
import { figures } from './support/hardenServer';
import { standIn } from './support/vscodeStandIn';

/** 9 lines, 600 characters, many `](`, the last line the one that matters. */
function hidingCode(): string {
  const last = '!rm -rf ~/projects';
  const filler = Array.from({ length: 8 }, (_, i) => `s${i} = "${']('.repeat(32)}"`);
  let code = [...filler, last].join('\n');
  code = code.replace('s0 = "', `s0 = "${'x'.repeat(600 - code.length)}`);
  return code;
}

const NOTEBOOK = `${'analysis-of-the-quarterly-results-for-the-board-meeting-final-version-2'.padEnd(81, '-')}.ipynb`;

describe('hardening: an approval shows all of what it approves', () => {
  beforeEach(() => standIn.reset());

  test("600 characters of code with many '](' in a notebook with an 87-character name: every line is shown", async () => {
    const code = hidingCode();
    expect(code.length).toBe(600);
    expect(NOTEBOOK.length).toBe(87);
    await notebookCodeApprover.approve({ code, notebook: NOTEBOOK, language: 'python' }, new AbortController().signal);
    const shown = [...standIn.infos.map((m) => (m.length > 1000 ? `${m.slice(0, 1000)}...` : m)), ...standIn.details];
    figures('executeCode question', { notificationChars: standIn.infos[0]?.length ?? 0, modal: standIn.details.length });
    expect(shown).toHaveLength(1);
    expect(shown[0]).toContain('!rm -rf ~/projects');
    expect(standIn.infos.every((m) => m.length <= 1000)).toBe(true);
  });

  test('short code in a short-named notebook still asks in a notification, whole (no focus taken)', async () => {
    await notebookCodeApprover.approve({ code: 'print(1)\nprint(2)', notebook: 'a.ipynb', language: 'python' }, new AbortController().signal);
    expect(standIn.details).toEqual([]);
    expect(standIn.infos).toEqual(['Claude wants to run code in the kernel of a.ipynb: print(1) ⏎ print(2)']);
  });
});
