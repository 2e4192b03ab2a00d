/**
 * package.json as the Marketplace and VS Code read it (issue 12): metadata, no placeholder (issue 25),
 * Restricted Mode, settings that explain themselves, the walkthrough's steps completing on context keys
 * the extension really sets, and `.claude/settings.json` validated by the published schema rather than
 * one of ours.
 */
import * as fs from 'fs';
import * as path from 'path';
import { findPlaceholders } from '../../scripts/vsixContents';
import { COMMANDS, INTERNAL_COMMANDS } from '../../src/host/commandIds';

const ROOT = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, any>;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const b = fs.readFileSync(file);
  expect(b.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(b.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('package.json', () => {
  it('has the Marketplace metadata: icon 128×128 PNG, banner, categories, keywords, license', () => {
    expect(pngSize(path.join(ROOT, pkg.icon))).toEqual({ width: 128, height: 128 });
    expect(pkg.galleryBanner).toEqual({ color: expect.stringMatching(/^#[0-9A-Fa-f]{6}$/), theme: expect.stringMatching(/^(dark|light)$/) });
    expect(pkg.categories).toEqual(expect.arrayContaining(['AI']));
    expect(pkg.keywords.length).toBeGreaterThanOrEqual(5);
    expect(pkg.keywords.length).toBeLessThanOrEqual(30); // the Marketplace's limit
    expect(pkg.license).toBe('MIT');
    expect(fs.existsSync(path.join(ROOT, 'LICENSE'))).toBe(true);
  });

  // Issue 25: it said https://github.com/REPLACE-WITH-OWNER/... The project has no public address yet,
  // so none is named; once one is, repository, bugs and homepage name the same one.
  it('holds no placeholder, and names a repository, bug tracker and homepage only all together and consistently', () => {
    const text = fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8');
    expect([...findPlaceholders(text), ...(/REPLACE/.test(text) ? ['REPLACE'] : [])]).toEqual([]);
    const named = ['repository', 'bugs', 'homepage'].filter((k) => k in pkg);
    expect([[], ['repository', 'bugs', 'homepage']]).toContainEqual(named);
    if (named.length === 0) return;
    const repo: string = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository.url;
    const base = repo.replace(/\.git$/, '');
    expect(repo).toMatch(/^https:\/\/(github\.com|gitlab\.com)\/[\w.-]+\/[\w.-]+\.git$/);
    expect(pkg.bugs.url).toBe(`${base}/issues`);
    expect(pkg.homepage).toBe(`${base}#readme`);
  });

  it("the placeholder check finds what the manifest used to carry, and passes over apply_diff's REPLACE blocks", () => {
    expect(findPlaceholders('"url": "https://github.com/REPLACE-WITH-OWNER/native-claude.git"')).toHaveLength(1);
    for (const t of ['https://example.com/x', 'TODO: write', 'FIXME', 'https://github.com/<owner>/native-claude', 'your-org/native-claude'])
      expect([t, findPlaceholders(t).length]).toEqual([t, 1]);
    expect(findPlaceholders('`<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks; replace terminals that lack it')).toEqual([]);
  });

  it('runs where the files and terminals are, and says what works in Restricted Mode and virtual workspaces', () => {
    expect(pkg.extensionKind).toEqual(['workspace']);
    const trust = pkg.capabilities.untrustedWorkspaces;
    expect(trust.supported).toBe('limited');
    expect(trust.description).toMatch(/Restricted Mode/);
    // Settings that would let a folder choose what runs, or turn the review off, are ignored when untrusted.
    expect(trust.restrictedConfigurations).toEqual(expect.arrayContaining(['nativeClaude.claudeCommand', 'nativeClaude.approvalMode']));
    for (const key of trust.restrictedConfigurations) expect(pkg.contributes.configuration.properties[key]).toBeDefined();
    expect(pkg.capabilities.virtualWorkspaces).toEqual({ supported: false, description: expect.any(String) });
  });

  it('every setting has a markdownDescription, a fitting scope, and enumDescriptions for each enum value', () => {
    const properties = pkg.contributes.configuration.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties).length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const [key, p] of Object.entries(properties)) {
      if (typeof p.markdownDescription !== 'string' || p.markdownDescription.length < 20) problems.push(`${key}: no markdownDescription`);
      if (!['window', 'resource', 'machine-overridable', 'language-overridable', 'application', 'machine'].includes(p.scope as string))
        problems.push(`${key}: no scope`);
      if (Array.isArray(p.enum) && (!Array.isArray(p.enumDescriptions) || p.enumDescriptions.length !== p.enum.length))
        problems.push(`${key}: enumDescriptions do not match enum`);
    }
    expect(problems).toEqual([]);
  });

  it('the README has a row for every setting', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const key of Object.keys(pkg.contributes.configuration.properties)) expect(readme).toMatch(new RegExp(`^\\| \`${key.replace('.', '\\.')}\` \\|`, 'm'));
  });

  it('validates .claude/settings.json with the Claude Code settings schema published on SchemaStore', () => {
    expect(pkg.contributes.jsonValidation).toEqual([
      {
        fileMatch: expect.arrayContaining(['**/.claude/settings.json', '**/.claude/settings.local.json']),
        url: 'https://json.schemastore.org/claude-code-settings.json',
      },
    ]);
  });

  it('the walkthrough: five steps, each with a page that exists and completion events the extension can fire', () => {
    const [walkthrough, ...others] = pkg.contributes.walkthroughs;
    expect(others).toEqual([]);
    expect(walkthrough.steps.map((s: { id: string }) => s.id)).toEqual(['findClaude', 'runClaude', 'seeConnection', 'tryReview', 'enableTools']);
    const contextSource = fs.readFileSync(path.join(ROOT, 'src', 'vscode', 'setup', 'walkthroughContext.ts'), 'utf8');
    const setKeys = [...contextSource.matchAll(/'(nativeClaude\.\w+)'/g)].map((m) => m[1]);
    const commands = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const step of walkthrough.steps) {
      expect(fs.existsSync(path.join(ROOT, step.media.markdown))).toBe(true);
      expect(step.completionEvents.length).toBeGreaterThan(0);
      for (const event of step.completionEvents as string[]) {
        const [kind, target] = event.split(/:(.*)/);
        if (kind === 'onContext') expect(setKeys).toContain(target);
        // nativeClaude.checkSetup is the health page (issue 11), contributed by its own change; any other command must exist.
        else if (kind === 'onCommand' && target !== 'nativeClaude.checkSetup') expect(commands.has(target)).toBe(true);
        else expect(['onCommand', 'onContext']).toContain(kind);
      }
      for (const [, command] of (step.description as string).matchAll(/\(command:([\w.]+)\)/g)) {
        if (command.startsWith('nativeClaude.')) expect(commands.has(command)).toBe(true);
      }
    }
  });

  it('every command id is in src/host/commandIds.ts: those package.json contributes, and the internal ones', () => {
    const contributed: string[] = pkg.contributes.commands.map((c: { command: string }) => c.command);
    const ids: string[] = Object.values(COMMANDS);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...contributed].sort()).toEqual(ids.filter((id) => !(INTERNAL_COMMANDS as readonly string[]).includes(id)).sort());
  });

  it('commands are registered only through src/vscode/commandTable.ts, and no other file spells a command id', () => {
    const src = path.join(ROOT, 'src');
    const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const ids = new Set<string>(Object.values(COMMANDS));
    const wrong: string[] = [];
    for (const f of files) {
      if (f === path.join('host', 'commandIds.ts')) continue;
      const text = fs.readFileSync(path.join(src, f), 'utf8');
      if (f !== path.join('vscode', 'commandTable.ts') && /commands\.registerCommand\(/.test(text)) wrong.push(`${f} registers a command itself`);
      for (const [, literal] of text.matchAll(/['"](nativeClaude\.[\w.]+)['"]/g)) if (ids.has(literal)) wrong.push(`${f} spells ${literal}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the version is the newest released entry of CHANGELOG.md (Keep a Changelog)', () => {
    const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(/keepachangelog\.com/);
    const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => m[1]);
    expect(released[0]).toBe(pkg.version);
    // Keep a Changelog links each version to its diff; that waits for a public repository (issue 25).
    expect(findPlaceholders(changelog)).toEqual([]);
  });
});
