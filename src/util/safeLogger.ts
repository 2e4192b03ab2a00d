import type { Logger } from './logger';

/**
 * A logger that never throws: VS Code disposes an extension's output channel as the window closes,
 * and a late log line must not abort the shutdown it reports on (server stop, lock-file removal).
 */
export function safeLogger(inner: Logger): Logger {
  const guard = (write: (message: string) => void) => (message: string) => {
    try {
      write(message);
    } catch {
      // The channel is gone; the process is going away too.
    }
  };
  return {
    error: guard((m) => inner.error(m)),
    warn: guard((m) => inner.warn(m)),
    info: guard((m) => inner.info(m)),
    debug: guard((m) => inner.debug(m)),
  };
}
