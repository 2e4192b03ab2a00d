/** The logging surface the plain-Node code needs; VS Code's LogOutputChannel satisfies it. */
export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** For tests and benchmarks: drops everything, or collects lines when given an array. */
export function memoryLogger(lines?: string[]): Logger {
  const push = (level: string) => (message: string) => lines?.push(`${level} ${message}`);
  return { error: push('error'), warn: push('warn'), info: push('info'), debug: push('debug') };
}

/** Longest log line written; a peer controls much of what is logged about it (messages, headers). */
export const MAX_LOG_LINE_CHARS = 1000;

/** Cuts a line to `max` characters, saying how much was left out. */
export function capLogLine(message: string, max = MAX_LOG_LINE_CHARS): string {
  return message.length <= max ? message : `${message.slice(0, max)}… (${message.length - max} more characters)`;
}

/** Every line capped at {@link MAX_LOG_LINE_CHARS}. */
export function cappedLogger(inner: Logger, max = MAX_LOG_LINE_CHARS): Logger {
  return {
    error: (m) => inner.error(capLogLine(m, max)),
    warn: (m) => inner.warn(capLogLine(m, max)),
    info: (m) => inner.info(capLogLine(m, max)),
    debug: (m) => inner.debug(capLogLine(m, max)),
  };
}

/**
 * A token bucket for lines a peer can trigger at will (refused upgrades, odd messages): `burst` lines
 * at once, then `perSecond`; what is dropped is counted and reported once lines flow again.
 */
export function rateLimitedLog(
  write: (message: string) => void,
  options: { burst?: number; perSecond?: number; now?: () => number } = {},
): (message: string) => void {
  const burst = options.burst ?? 20;
  const perSecond = options.perSecond ?? 2;
  const now = options.now ?? Date.now;
  let tokens = burst;
  let last = now();
  let suppressed = 0;
  return (message: string) => {
    const t = now();
    tokens = Math.min(burst, tokens + ((t - last) / 1000) * perSecond);
    last = t;
    if (tokens < 1) {
      suppressed++;
      return;
    }
    tokens -= 1;
    if (suppressed > 0) {
      write(`(${suppressed} similar line${suppressed === 1 ? '' : 's'} not logged: too many in a short time)`);
      suppressed = 0;
    }
    write(message);
  };
}
