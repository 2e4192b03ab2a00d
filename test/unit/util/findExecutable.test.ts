import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findExecutable } from '../../../src/util/findExecutable';

describe('findExecutable ("is claude installed?" for the walkthrough, Check Setup and the rules offer)', () => {
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

  it('finds a command on PATH, skipping entries that are not executable', async () => {
    expect(await findExecutable('claude', { PATH: `${other}:${bin}` }, 'linux')).toBe(path.join(bin, 'claude'));
  });

  it('takes a path as it is', async () => {
    expect(await findExecutable(path.join(bin, 'claude'), { PATH: '' }, 'linux')).toBe(path.join(bin, 'claude'));
  });

  it('is undefined when nothing is found: not on PATH, not executable, a folder, or empty', async () => {
    expect(await findExecutable('claude', { PATH: other }, 'linux')).toBeUndefined();
    expect(await findExecutable('folder-named-claude', { PATH: other }, 'linux')).toBeUndefined();
    expect(await findExecutable('claude', {}, 'linux')).toBeUndefined();
    expect(await findExecutable('', { PATH: bin }, 'linux')).toBeUndefined();
  });
});
