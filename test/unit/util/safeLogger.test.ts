import { safeLogger } from '../../../src/util/safeLogger';

test("safeLogger passes lines through and swallows a disposed channel's error", () => {
  const lines: string[] = [];
  let disposed = false;
  const channel = {
    error: (m: string) => lines.push(m),
    warn: (m: string) => lines.push(m),
    info: (m: string) => {
      if (disposed) throw new Error('Channel has been closed');
      lines.push(m);
    },
    debug: (m: string) => lines.push(m),
  };
  const log = safeLogger(channel);
  log.info('one');
  disposed = true;
  expect(() => log.info('two')).not.toThrow();
  expect(lines).toEqual(['one']);
});

test('safeLogger caps long lines', () => {
  const lines: string[] = [];
  const log = safeLogger({ error: (m) => lines.push(m), warn: (m) => lines.push(m), info: (m) => lines.push(m), debug: (m) => lines.push(m) });
  log.warn('y'.repeat(60_000));
  expect(lines[0].length).toBeLessThan(1100);
  expect(lines[0]).toMatch(/more characters\)$/);
});
