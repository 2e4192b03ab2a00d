import { displayPath, displayPathOf } from '../../../src/workspace/displayPaths';

// One form of a path for the model, whether the caller has a resolved workspace path (read_file,
// list_files, search_files) or an absolute file (get_diagnostics, the review's new-problem report).
describe('displayPaths', () => {
  it('a resolved path and the same absolute file read the same, with one folder and with several', () => {
    expect(displayPath('/w/app', 'src/a.ts', 1)).toBe('src/a.ts');
    expect(displayPathOf('/w/app/src/a.ts', ['/w/app'], 'linux')).toBe('src/a.ts');
    expect(displayPath('/w/app', 'src/a.ts', 2)).toBe('app/src/a.ts');
    expect(displayPathOf('/w/app/src/a.ts', ['/w/app', '/w/lib'], 'linux')).toBe('app/src/a.ts');
    expect(displayPath('/w/app', '', 2)).toBe('app');
    expect(displayPathOf('/w/app', ['/w/app', '/w/lib'], 'linux')).toBe('app');
  });

  it('takes the innermost folder, a display name when given, and leaves a path outside absolute', () => {
    expect(displayPathOf('/w/app/sub/x.ts', ['/w/app', '/w/app/sub'], 'linux')).toBe('sub/x.ts');
    expect(displayPathOf('/w/app/x.ts', [{ paths: ['/w/app'], name: 'Frontend' }, '/w/lib'], 'linux')).toBe('Frontend/x.ts');
    expect(displayPathOf('C:\\elsewhere\\x.ts', ['C:\\w'], 'win32')).toBe('C:/elsewhere/x.ts');
    expect(displayPath('C:\\w\\app', 'src\\a.ts', 1)).toBe('src/a.ts');
  });
});
