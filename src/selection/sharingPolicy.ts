import * as path from 'node:path';
import picomatch from 'picomatch';

/** Files whose selections and at-mentions are never sent unless the user changes `nativeClaude.excludeFromSharing`. */
export const DEFAULT_EXCLUDE_PATTERNS: readonly string[] = ['.env*', '*.pem', '*.key', '**/secrets/**'];

export interface SharingSettings {
  /** `nativeClaude.shareSelection`: false stops every `selection_changed` (at-mentions are explicit and still go). */
  shareSelection: boolean;
  /** `nativeClaude.excludeFromSharing`: globs; without a `/` they match the file name anywhere. */
  exclude: readonly string[];
}

/**
 * What may leave the editor for claude. Patterns are matched, with forward slashes, against the path
 * relative to each workspace folder that contains the file and against the absolute path, so
 * `**∕secrets/**` catches `secrets/` at any depth and `*.pem` any `.pem` file (gitignore-like).
 */
export class SharingPolicy {
  private readonly matchesName: (name: string) => boolean;
  private readonly matchesPath: (relativePath: string) => boolean;

  constructor(
    readonly settings: SharingSettings,
    private readonly folders: () => readonly string[] = () => [],
  ) {
    const patterns = settings.exclude.filter((p) => typeof p === 'string' && p.trim() !== '');
    const options = { dot: true, nocase: process.platform === 'win32' };
    const compile = (list: string[]) => (list.length === 0 ? () => false : picomatch(list, options));
    // picomatch's own `basename` option also changes how patterns with a slash match, so split them here.
    this.matchesName = compile(patterns.filter((p) => !p.includes('/')));
    this.matchesPath = compile(patterns.filter((p) => p.includes('/')));
  }

  get sharesSelection(): boolean {
    return this.settings.shareSelection;
  }

  /** The pattern list names this file: nothing about it is sent. */
  isExcluded(filePath: string): boolean {
    const absolute = path.resolve(filePath);
    if (this.matchesName(path.basename(absolute))) return true;
    // The absolute path without its root, so `**/secrets/**` also covers files outside the folders.
    const candidates = [toPosix(absolute).replace(/^([A-Za-z]:)?\/+/, '')];
    for (const folder of this.folders()) {
      const relative = path.relative(path.resolve(folder), absolute);
      if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) candidates.push(toPosix(relative));
    }
    return candidates.some((c) => this.matchesPath(c));
  }

  /** Whether this file's selection may be sent now. */
  mayShareSelectionOf(filePath: string): boolean {
    return this.sharesSelection && !this.isExcluded(filePath);
  }
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
