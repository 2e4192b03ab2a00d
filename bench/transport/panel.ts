import { StaticDiagnostics, diagnostic } from '../../test/support/fakeHosts';
import { SMALL_FILE, bulkPanel } from './shared';

/** The Problems panel the floor and the real server answer from: one small file, ~1 MB in total. */
export function benchPanel(): StaticDiagnostics {
  const source = new StaticDiagnostics();
  source.set(SMALL_FILE, [diagnostic("Cannot find name 'x'.", 3)]);
  for (const [file, items] of bulkPanel()) source.set(file, items);
  return source;
}
