import { capLogLine, cappedLogger, MAX_LOG_LINE_CHARS, memoryLogger, rateLimitedLog } from '../../../src/util/logger';

test('capLogLine cuts long lines and says how much was left out', () => {
  expect(capLogLine('short')).toBe('short');
  const long = 'x'.repeat(60_000);
  const capped = capLogLine(long);
  expect(capped.length).toBeLessThan(MAX_LOG_LINE_CHARS + 40);
  expect(capped).toMatch(/… \(59000 more characters\)$/);
});

test('cappedLogger caps every level', () => {
  const lines: string[] = [];
  const log = cappedLogger(memoryLogger(lines), 10);
  log.error('e'.repeat(20));
  log.warn('w'.repeat(20));
  log.info('i'.repeat(20));
  log.debug('d'.repeat(5));
  expect(lines).toEqual([
    'error eeeeeeeeee… (10 more characters)',
    'warn wwwwwwwwww… (10 more characters)',
    'info iiiiiiiiii… (10 more characters)',
    'debug ddddd',
  ]);
});

test('rateLimitedLog lets a burst through, then counts what it drops and reports it when lines flow again', () => {
  let now = 0;
  const written: string[] = [];
  const log = rateLimitedLog((m) => written.push(m), { burst: 3, perSecond: 1, now: () => now });
  for (let i = 0; i < 1000; i++) log(`odd message ${i}`);
  expect(written).toEqual(['odd message 0', 'odd message 1', 'odd message 2']);
  now += 1000;
  log('after a second');
  expect(written.slice(3)).toEqual(['(997 similar lines not logged: too many in a short time)', 'after a second']);
});
