import { findRipgrep, ripgrepCandidates } from '../../../src/vscode/workspace/ripgrep';
import { createWorkspaceHost } from '../../../src/vscode/workspace/workspaceHost';

describe('tools: ripgrep lookup (trap 18)', () => {
  test('lists the 1.122+ universal layout first, then the old one, each also under node_modules.asar.unpacked', () => {
    expect(ripgrepCandidates('/opt/vscode/resources/app', 'linux', 'x64')).toEqual([
      '/opt/vscode/resources/app/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg',
      '/opt/vscode/resources/app/node_modules.asar.unpacked/@vscode/ripgrep-universal/bin/linux-x64/rg',
      '/opt/vscode/resources/app/node_modules/@vscode/ripgrep/bin/rg',
      '/opt/vscode/resources/app/node_modules.asar.unpacked/@vscode/ripgrep/bin/rg',
    ]);
  });

  test('uses rg.exe and Windows separators on win32, and the platform-arch folder name the package uses', () => {
    const candidates = ripgrepCandidates('C:\\Program Files\\Microsoft VS Code\\resources\\app', 'win32', 'arm64');
    expect(candidates[0]).toBe('C:\\Program Files\\Microsoft VS Code\\resources\\app\\node_modules\\@vscode\\ripgrep-universal\\bin\\win32-arm64\\rg.exe');
    expect(candidates[2]).toBe('C:\\Program Files\\Microsoft VS Code\\resources\\app\\node_modules\\@vscode\\ripgrep\\bin\\rg.exe');
    expect(ripgrepCandidates('/Applications/Code.app/Contents/Resources/app', 'darwin', 'arm64')[0]).toContain('/bin/darwin-arm64/rg');
  });

  test('finds the new layout when both exist, and falls back to the old and the asar-unpacked ones', () => {
    const appRoot = '/app';
    const universal = '/app/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg';
    const oldUnpacked = '/app/node_modules.asar.unpacked/@vscode/ripgrep/bin/rg';
    const existing = new Set([universal, oldUnpacked]);
    expect(findRipgrep(appRoot, { platform: 'linux', arch: 'x64', exists: (p) => existing.has(p) })).toBe(universal);
    existing.delete(universal);
    expect(findRipgrep(appRoot, { platform: 'linux', arch: 'x64', exists: (p) => existing.has(p) })).toBe(oldUnpacked);
    existing.clear();
    expect(findRipgrep(appRoot, { platform: 'linux', arch: 'x64', exists: (p) => existing.has(p) })).toBeUndefined();
  });

  test('the workspace host keeps a found rg and retries a miss', () => {
    let calls = 0;
    let found: string | undefined;
    const host = createWorkspaceHost({
      folders: () => ['/w'],
      appRoot: '/app',
      findRipgrep: () => {
        calls++;
        return found;
      },
    });
    expect(host.ripgrepPath()).toBeUndefined();
    found = '/app/rg';
    expect(host.ripgrepPath()).toBe('/app/rg');
    found = undefined;
    expect(host.ripgrepPath()).toBe('/app/rg');
    expect(calls).toBe(2);
    expect(host.folders()).toEqual(['/w']);
  });
});
