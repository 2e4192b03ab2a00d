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
