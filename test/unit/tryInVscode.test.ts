/**
 * `bash test/setup/try-in-vscode.sh` (README's first command) opens its sample workspace outside any git
 * work tree: inside the repository VS Code's first words to a newcomer were "A git repository was found
 * in the parent folders…". Runs the script's real workspace step (`--workspace-only`), nothing else.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'test', 'setup', 'try-in-vscode.sh');
const SAMPLE = path.join(ROOT, 'test', 'fixtures', 'sample-workspace');

function prepare(env: Record<string, string>, ...args: string[]): string {
  const { TRY_WORKSPACE: _, ...base } = process.env;
  const r = spawnSync('bash', [SCRIPT, '--workspace-only', ...args], { env: { ...base, ...env }, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`try-in-vscode.sh --workspace-only exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  expect(r.stderr).toContain(`sample workspace: ${r.stdout.trim()}`);
  return r.stdout.trim();
}

const inGitTree = (dir: string) => spawnSync('git', ['-C', dir, 'rev-parse', '--is-inside-work-tree'], { encoding: 'utf8' }).status === 0;
const files = (dir: string) => (fs.readdirSync(dir, { recursive: true }) as string[]).sort();

describe('try-in-vscode.sh sample workspace', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nc-try-ws-')));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is a copy of the sample in the cache dir, outside the repository and any git tree, kept between runs', () => {
    expect(inGitTree(ROOT)).toBe(true); // the repository is one: the check below can fail
    const cache = path.join(tmp, 'cache');
    const ws = prepare({ HOME: tmp, NATIVE_CLAUDE_CACHE: cache });
    expect(ws).toBe(path.join(cache, 'try-workspace'));
    expect(path.relative(ROOT, ws).startsWith('..')).toBe(true);
    expect(inGitTree(ws)).toBe(false);
    expect(files(ws)).toEqual(files(SAMPLE));
    // Your experiments stay; --fresh starts over.
    fs.writeFileSync(path.join(ws, 'mine.txt'), 'x');
    expect(prepare({ HOME: tmp, NATIVE_CLAUDE_CACHE: cache })).toBe(ws);
    expect(fs.existsSync(path.join(ws, 'mine.txt'))).toBe(true);
    expect(prepare({ HOME: tmp, NATIVE_CLAUDE_CACHE: cache }, '--fresh')).toBe(ws);
    expect(fs.existsSync(path.join(ws, 'mine.txt'))).toBe(false);
  });

  it('defaults to ~/.cache/native-claude/try-workspace', () => {
    const { NATIVE_CLAUDE_CACHE: _, ...rest } = process.env;
    const r = spawnSync('bash', [SCRIPT, '--workspace-only'], { env: { ...rest, HOME: tmp }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(path.join(tmp, '.cache', 'native-claude', 'try-workspace'));
  });

  it('uses a new temp dir when the cache dir itself is inside a git work tree (e.g. a HOME kept in git)', () => {
    execFileSync('git', ['init', '-q', tmp]);
    const cache = path.join(tmp, 'cache');
    const ws = prepare({ HOME: tmp, NATIVE_CLAUDE_CACHE: cache, TMPDIR: os.tmpdir() });
    try {
      expect(inGitTree(cache)).toBe(true);
      expect(inGitTree(ws)).toBe(false);
      expect(files(ws)).toEqual(files(SAMPLE));
    } finally {
      fs.rmSync(path.dirname(ws), { recursive: true, force: true });
    }
  });
});
