// Where VS Code keeps its ripgrep (docs/vscode-traps.md, trap 18). It moved in VS Code 1.122 from
// `@vscode/ripgrep/bin/rg` to `@vscode/ripgrep-universal/bin/<platform>-<arch>/rg`; a lookup that
// knows only one of them fails on the other half of the installed base (Roo Code's fails on 1.139).
// Packaged desktop builds keep native binaries in `node_modules.asar.unpacked`.
//
// No `vscode` import: the caller passes `vscode.env.appRoot`, so this runs (and is tested) in Node.

import { statSync } from 'fs';
import * as path from 'path';

/** Every place VS Code has shipped rg, newest layout first. Pure: no file system access. */
export function ripgrepCandidates(appRoot: string, platform: NodeJS.Platform = process.platform, arch: string = process.arch): string[] {
  const api = platform === 'win32' ? path.win32 : path.posix;
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates: string[] = [];
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    candidates.push(api.join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe));
  }
  for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
    candidates.push(api.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe));
  }
  return candidates;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first candidate that exists, or undefined. `exists` is injectable for tests. */
export function findRipgrep(
  appRoot: string,
  options: { platform?: NodeJS.Platform; arch?: string; exists?: (candidate: string) => boolean } = {},
): string | undefined {
  const exists = options.exists ?? isFile;
  return ripgrepCandidates(appRoot, options.platform, options.arch).find((candidate) => exists(candidate));
}
