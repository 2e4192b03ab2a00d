import * as fs from 'fs';
import * as path from 'path';

// settings.ts reads through `vscode` only when a getter is called; its table of defaults is plain data.
jest.mock('vscode', () => ({}), { virtual: true });
import { MAX_MESSAGE_BYTES_RANGE, SETTING_DEFAULTS, SETTINGS_SECTION } from '../../../src/vscode/settings';

describe('the settings table (src/vscode/settings.ts)', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
  const properties: Record<string, { default?: unknown }> = manifest.contributes.configuration.properties;

  it('has every setting package.json contributes, and no other', () => {
    const contributed = Object.keys(properties)
      .filter((k) => k.startsWith(`${SETTINGS_SECTION}.`))
      .map((k) => k.slice(SETTINGS_SECTION.length + 1));
    expect(Object.keys(SETTING_DEFAULTS).sort()).toEqual(contributed.sort());
    expect(Object.keys(properties).length).toBe(contributed.length);
  });

  it.each(Object.keys(properties))('%s: the default is the one package.json declares', (key) => {
    expect(SETTING_DEFAULTS[key.slice(SETTINGS_SECTION.length + 1) as keyof typeof SETTING_DEFAULTS]).toEqual(properties[key].default);
  });

  it("maxMessageBytes' range is the one package.json declares", () => {
    const declared = properties[`${SETTINGS_SECTION}.maxMessageBytes`] as { minimum?: number; maximum?: number };
    expect({ min: declared.minimum, max: declared.maximum }).toEqual(MAX_MESSAGE_BYTES_RANGE);
  });

  it('is the only reader: no other file under src/ asks VS Code for a nativeClaude setting', () => {
    const src = path.join(__dirname, '../../../src');
    const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const readers = files.filter((f) => /getConfiguration\(\s*['"`]nativeClaude/.test(fs.readFileSync(path.join(src, f), 'utf8')));
    expect(readers).toEqual([]);
    expect(fs.readFileSync(path.join(src, 'vscode/settings.ts'), 'utf8')).toContain('getConfiguration(SETTINGS_SECTION)');
  });
});
