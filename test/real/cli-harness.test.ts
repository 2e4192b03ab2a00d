// Proves the real-CLI harness itself works: the fake Messages API, the tmux-driven CLI, and the
// screen helpers. Every other `real` CLI test builds on these, so a break here should be loud.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultSettings, startClaude, type ClaudeCli } from './harness/claudeCli';
import { startFakeModel, type FakeModel, type MessagesRequest } from './harness/fakeModel';

jest.setTimeout(90_000);

describe('harness: fake model', () => {
  let model: FakeModel;
  beforeEach(async () => {
    model = await startFakeModel();
  });
  afterEach(async () => {
    await model.close();
  });

  const post = async (body: Partial<MessagesRequest>): Promise<string> => {
    const res = await fetch(`${model.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const mainTools = [{ name: 'Write', input_schema: { type: 'object' } }];

  it('streams scripted text and tool_use as Messages SSE, then "ok" when the queue is empty', async () => {
    model.respond({ text: 'first' }, { toolUse: { name: 'Write', input: { file_path: '/x', content: 'y' }, id: 'toolu_1' } });
    const first = await post({ stream: true, tools: mainTools });
    expect(first).toMatch(/^event: message_start\n/);
    expect(first).toContain('"text_delta","text":"first"');
    expect(first).toContain('"stop_reason":"end_turn"');
    expect(first.trimEnd()).toMatch(/event: message_stop\ndata: \{"type":"message_stop"\}$/);

    const second = await post({ stream: true, tools: mainTools });
    expect(second).toContain('"type":"tool_use","id":"toolu_1","name":"Write"');
    const json = [...second.matchAll(/"partial_json":("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]) as string).join('');
    expect(JSON.parse(json)).toEqual({ file_path: '/x', content: 'y' });
    expect(second).toContain('"stop_reason":"tool_use"');

    expect(await post({ stream: true, tools: mainTools })).toContain('"text":"ok"');
    expect(model.mainRequests).toHaveLength(3);
    expect(model.toolNames()).toEqual(['Write']);
  });

  it('answers side requests (title generation, non-streaming) without consuming the script', async () => {
    model.respond({ text: 'scripted' });
    // What the CLI sends to name a session: tool-free, streaming, JSON-schema output.
    const title = await post({
      stream: true,
      tools: [],
      output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } } } } },
    });
    expect(title).toContain(JSON.stringify(JSON.stringify({ title: 'Test session' })).slice(1, -1));
    const plain = JSON.parse(await post({})) as { content: { text: string }[] };
    expect(plain.content[0].text).toBe('ok');
    expect(model.pending()).toBe(1);
    expect(await post({ stream: true, tools: mainTools })).toContain('"text":"scripted"');
    expect(model.httpLog.map((r) => r.kind)).toEqual(['side', 'side', 'main']);
  });

  it('records other paths and answers them harmlessly', async () => {
    expect((await fetch(`${model.url}/api/hello`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${model.url}/nope`)).status).toBe(404);
    expect(model.httpLog.map((r) => `${r.kind} ${r.method} ${r.path}`)).toEqual(['other HEAD /api/hello', 'other GET /nope']);
  });
});

describe('harness: real claude CLI in tmux', () => {
  let model: FakeModel;
  let cli: ClaudeCli | undefined;
  let cwd: string;

  beforeEach(async () => {
    model = await startFakeModel();
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'native-claude-harness-cwd-'));
  });
  afterEach(async () => {
    await cli?.stop();
    cli = undefined;
    await model.close();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it('shows a scripted text reply and sends the prompt to the fake model', async () => {
    cli = await startClaude({ cwd, model });
    expect(cli.alive()).toBe(true);
    model.respond({ text: 'Scripted reply 7f3a' });
    await cli.submit('say the magic words');
    const screen = await cli.waitForScreen('● Scripted reply 7f3a', 30_000);
    // The echoed prompt: `❯ ` (2.x) or `> ` with a no-break space (1.0.x).
    expect(screen).toMatch(/[❯>][ \u00a0]say the magic words/);

    expect(model.mainRequests).toHaveLength(1);
    const request = model.mainRequests[0];
    expect(request.stream).toBe(true);
    expect(model.lastUserText()).toContain('say the magic words');
    expect(model.toolNames()).toEqual(expect.arrayContaining(['Write', 'Edit', 'Read', 'Bash']));
    expect(model.httpLog.every((r) => r.kind !== 'other')).toBe(true);
  });

  it('a scripted Write tool_use shows the permission prompt, and approving it writes the file', async () => {
    cli = await startClaude({ cwd, model });
    const target = path.join(cli.cwd, 'created-by-model.txt');
    model.respond({ toolUse: { name: 'Write', input: { file_path: target, content: 'hello from the fake model\n' } } }, { text: 'Wrote it 9c1e' });
    await cli.submit('create the file');

    const prompt = await cli.waitForScreen(/Do you want to create created-by-model\.txt\?/, 30_000);
    expect(prompt).toMatch(/❯ 1\. Yes/);
    expect(prompt).toContain('hello from the fake model');
    expect(fs.existsSync(target)).toBe(false);

    await cli.answer(/Do you want to create created-by-model\.txt\?/);
    await cli.waitForScreen('● Wrote it 9c1e', 30_000);
    expect(fs.readFileSync(target, 'utf8')).toBe('hello from the fake model\n');
    const toolUseId = model.sentToolUseIds[0];
    expect(model.toolResultText(toolUseId)).toMatch(/File created successfully/);
    expect(model.toolResult(toolUseId)?.is_error).not.toBe(true);
  });

  it('stop() ends the CLI and removes its temp HOME and config dir', async () => {
    cli = await startClaude({ cwd, model, settings: { permissions: { allow: ['Read'] } }, globalConfig: { diffTool: 'terminal' } });
    const settings = JSON.parse(fs.readFileSync(path.join(cli.configDir, 'settings.json'), 'utf8')) as unknown;
    expect(settings).toEqual({ ...defaultSettings(), permissions: { defaultMode: 'default', allow: ['Read'] } });
    const config = JSON.parse(fs.readFileSync(path.join(cli.configDir, '.claude.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ hasCompletedOnboarding: true, diffTool: 'terminal', projects: { [cli.cwd]: { hasTrustDialogAccepted: true } } });
    const { home, configDir } = cli;
    await cli.stop();
    expect(cli.alive()).toBe(false);
    expect(fs.existsSync(home)).toBe(false);
    expect(fs.existsSync(configDir)).toBe(false);
  });
});
