import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findExecutable } from '../../src/util/findExecutable';

describe('findExecutable (the walkthrough\'s "is claude installed?")', () => {
  let dir: string;
  let bin: string;
  let other: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nc-find-'));
    bin = path.join(dir, 'bin');
    other = path.join(dir, 'other');
    fs.mkdirSync(bin);
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(other, 'claude'), 'not executable', { mode: 0o644 });
    fs.mkdirSync(path.join(other, 'folder-named-claude'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds a command on PATH, skipping entries that are not executable', () => {
    expect(findExecutable('claude', { PATH: `${other}:${bin}` }, 'linux')).toBe(path.join(bin, 'claude'));
  });

  it('ignores arguments after the command', () => {
    expect(findExecutable('claude --model opus', { PATH: bin }, 'linux')).toBe(path.join(bin, 'claude'));
  });

  it('takes a path as it is, with ~ as the home folder', () => {
    expect(findExecutable(path.join(bin, 'claude'), { PATH: '' }, 'linux')).toBe(path.join(bin, 'claude'));
    expect(findExecutable('~/bin/claude', { PATH: '' }, 'linux', dir)).toBe(path.join(bin, 'claude'));
  });

  it('is undefined when nothing is found: not on PATH, not executable, a folder, or empty', () => {
    expect(findExecutable('claude', { PATH: other }, 'linux')).toBeUndefined();
    expect(findExecutable('folder-named-claude', { PATH: other }, 'linux')).toBeUndefined();
    expect(findExecutable('claude', {}, 'linux')).toBeUndefined();
    expect(findExecutable('   ', { PATH: bin }, 'linux')).toBeUndefined();
  });
});
