/**
 * package-lock.json is complete, so `npm ci` installs from it on any machine (issue 25). npm ci refuses a
 * lock that lacks any package some locked package declares, even an optional one for another platform
 * ("Missing: @unrs/resolver-binding-darwin-arm64@1.13.0 from lock file": jest 30's resolver has 21
 * platform builds and a registry that serves only some of them writes a lock without the rest).
 * .ci/run runs `npm ci` itself on every run; this test names the gap without a network.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  os?: string[];
  cpu?: string[];
  link?: boolean;
}

const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { lockfileVersion: number; packages: Record<string, LockEntry> };
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

/** Where Node (and npm) finds `name` from the package at `from`: the nearest node_modules up the tree. */
function resolveInLock(from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (candidate in lock.packages) return candidate;
    if (dir === '') return undefined;
    const up = dir.lastIndexOf('/node_modules/');
    dir = up < 0 ? '' : dir.slice(0, up);
  }
}

/** Every package some locked package needs or may use (optional ones included) that the lock lacks. */
function missingFromLock(): string[] {
  const missing: string[] = [];
  for (const [at, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue;
    const wanted = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...(at === '' ? entry.devDependencies : {}),
      ...Object.fromEntries(Object.entries(entry.peerDependencies ?? {}).filter(([name]) => !entry.peerDependenciesMeta?.[name]?.optional)),
    };
    for (const [name, range] of Object.entries(wanted)) {
      if (!resolveInLock(at, name)) missing.push(`${name}@${range} (wanted by ${at || 'package.json'})`);
    }
  }
  return missing;
}

describe('package-lock.json', () => {
  it("is a lockfile v3 whose root lists exactly package.json's dependencies", () => {
    expect(lock.lockfileVersion).toBe(3);
    expect(lock.packages[''].dependencies ?? {}).toEqual(pkg.dependencies ?? {});
    expect(lock.packages[''].devDependencies ?? {}).toEqual(pkg.devDependencies ?? {});
  });

  it('holds every package a locked package declares, each platform build included, so `npm ci` accepts it', () => {
    expect(missingFromLock()).toEqual([]);
    // The check sees platform builds: the lock has some (vsce-sign's, fsevents) for other systems.
    const foreign = Object.entries(lock.packages).filter(([, e]) => e.os && !e.os.includes('linux'));
    expect(foreign.length).toBeGreaterThan(0);
  });
});
