import { capLogLine, type Logger } from './logger';

/**
 * A logger that never throws and never writes a line longer than MAX_LOG_LINE_CHARS: VS Code
 * disposes an extension's output channel as the window closes, and a late log line must not abort
 * the shutdown it reports on (server stop, lock-file removal); and much of what the server logs
 * (tool arguments, peer messages) is chosen by a peer.
 */
export function safeLogger(inner: Logger): Logger {
  const guard = (write: (message: string) => void) => (message: string) => {
    try {
      write(capLogLine(message));
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
