// executeCode on the IDE route through the real SDK client and the real server, with a scripted
// notebook in place of VS Code's (test/support/fakeHosts.ts ScriptedNotebook): what is listed, the
// answers, the user's Run / Don't Run, cancellation. VS Code's own half runs in
// test/vscode/suites/notebook-execute.test.ts.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalMode } from '../../src/host/approvalMode';
import { ideTools } from '../../src/tools/registry';
import { KeyedLock } from '../../src/util/keyedLock';
import { ERROR_MIME, STDOUT_MIME } from '../../src/tools/notebookOutput';
import { DiskDocumentWriter, ScriptedNotebook, ScriptedReviewHost, StaticDiagnostics } from '../support/fakeHosts';
import { connectClient, startTestServer, waitFor } from '../support/serverFixture';

const bytes = (text: string) => new TextEncoder().encode(text);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const MODEL = { 'claudecode/toolUseId': 'toolu_nc_exec' };

describe('executeCode on the IDE route (real SDK client, scripted notebook)', () => {
  let mode: ApprovalMode;
  let notebook: ScriptedNotebook;
  let fixture: Awaited<ReturnType<typeof startTestServer>>;

  beforeEach(async () => {
    mode = 'write-only';
    notebook = new ScriptedNotebook((code) => {
      if (code === 'print(6 * 7)') return { outputs: [{ items: [{ mime: STDOUT_MIME, data: bytes('42\n') }] }] };
      if (code === '1/0')
        return {
          success: false,
          outputs: [
            {
              items: [
                {
                  mime: ERROR_MIME,
                  data: bytes(JSON.stringify({ name: 'ZeroDivisionError', message: 'division by zero', stack: '\u001b[31mTraceback\u001b[0m …' })),
                },
              ],
            },
          ],
        };
      if (code === 'plot()')
        return {
          outputs: [
            {
              items: [
                { mime: 'text/plain', data: bytes('<Figure>') },
                { mime: 'image/png', data: PNG },
              ],
            },
          ],
        };
      if (code === 'while True: pass') return { hang: true, outputs: [] };
      return { outputs: [] };
    });
    const hosts = {
      review: new ScriptedReviewHost(),
      diagnostics: new StaticDiagnostics(),
      workspace: { folders: () => [], ripgrepPath: () => undefined },
      documents: new DiskDocumentWriter(),
      approvalMode: () => mode,
      lock: new KeyedLock(),
      notebooks: notebook,
      codeApprover: notebook.approver,
    };
    fixture = await startTestServer({ tools: { ide: ideTools(hosts) } });
  });
  afterEach(() => fixture.server.stop());

  async function call(code: string, options: { signal?: AbortSignal; onprogress?: (p: { message?: string }) => void } = {}): Promise<CallToolResult> {
    const { client } = await connectClient(fixture.url);
    try {
      return (await client.callTool({ name: 'executeCode', arguments: { code }, _meta: MODEL }, undefined, options)) as CallToolResult;
    } finally {
      await client.close();
    }
  }
  const texts = (result: CallToolResult) => result.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);

  test('listed on the IDE route with the {code} schema, beside getDiagnostics; the instructions name it', async () => {
    const { client } = await connectClient(fixture.url);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['executeCode', 'getDiagnostics']);
    const tool = tools.find((t) => t.name === 'executeCode')!;
    expect(tool.inputSchema).toMatchObject({ type: 'object', properties: { code: { type: 'string' } }, required: ['code'] });
    expect(tool.description).toMatch(/kernel of the notebook the user has open/);
    expect(client.getInstructions()).toMatch(/executeCode/);
    await client.close();
  });

  test('printed text, then the sentence saying where it ran; the user was asked first with the code and the notebook', async () => {
    const result = await call('print(6 * 7)');
    expect(result.isError).toBeFalsy();
    expect(texts(result)).toEqual(['42\n', 'Ran in cell 4 of analysis.ipynb.']);
    expect(notebook.asked).toEqual([{ code: 'print(6 * 7)', notebook: 'analysis.ipynb' }]);
    expect(notebook.runs.map((r) => r.code)).toEqual(['print(6 * 7)']);
  });

  test('an exception: its name, message and traceback without escapes, and a sentence saying it raised', async () => {
    const result = await call('1/0');
    expect(texts(result)[0]).toBe('ZeroDivisionError: division by zero\nTraceback …');
    expect(texts(result)[1]).toBe('The code raised an error (above), in cell 4 of analysis.ipynb.');
  });

  test('a plot: an image item (base64 PNG), not its text/plain', async () => {
    const result = await call('plot()');
    expect(result.content[0]).toEqual({ type: 'image', data: Buffer.from(PNG).toString('base64'), mimeType: 'image/png' });
    expect(texts(result)).toEqual(['Ran in cell 4 of analysis.ipynb.']);
  });

  test("Don't Run: nothing runs, and the model is told to ask the user", async () => {
    notebook.answer = false;
    const result = await call('print(6 * 7)');
    expect(texts(result)).toEqual([
      'The user chose not to run this code in analysis.ipynb. Do not run it again as it is; ask the user how they want to proceed.',
    ]);
    expect(notebook.runs).toEqual([]);
  });

  test('approvalMode "never" runs without asking; "always" asks', async () => {
    mode = 'never';
    await call('print(6 * 7)');
    expect(notebook.asked).toEqual([]);
    mode = 'always';
    await call('print(6 * 7)');
    expect(notebook.asked).toHaveLength(1);
  });

  test('no notebook open: an error saying what to do; nothing asked', async () => {
    notebook.open = false;
    const result = await call('print(6 * 7)');
    expect(result.isError).toBe(true);
    expect(texts(result)).toEqual(['No notebook is open in VS Code.']);
    expect(notebook.asked).toEqual([]);
  });

  test("the model's cancellation (notifications/cancelled) interrupts the run", async () => {
    mode = 'never';
    const controller = new AbortController();
    const pending = call('while True: pass', { signal: controller.signal });
    await waitFor(() => notebook.runs.length === 1, 3000, 'the run');
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    // The server got notifications/cancelled and aborted the run's signal (the adapter interrupts the cell on it).
    await waitFor(() => notebook.runs[0].cancelled === true, 3000, 'the run to see the cancellation');
    expect(notebook.runs[0]).toEqual({ code: 'while True: pass', timeoutMs: 300_000, cancelled: true });
  });

  test('a cancellation while the user has not answered yet: nothing runs; progress says what it waits for', async () => {
    notebook.answer = undefined;
    const controller = new AbortController();
    const progress: string[] = [];
    const pending = call('print(6 * 7)', { signal: controller.signal, onprogress: (p) => p.message && progress.push(p.message) });
    await waitFor(() => notebook.asked.length === 1, 3000, 'the question');
    await waitFor(() => progress.length === 1, 3000, 'progress');
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    await new Promise((r) => setTimeout(r, 100));
    expect(notebook.runs).toEqual([]);
    expect(progress).toEqual(['Waiting for the user to allow running the code in analysis.ipynb']);
  });
});
