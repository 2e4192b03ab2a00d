/**
 * Files whose proposals were just accepted. The CLI writes them itself and asks for all diagnostics
 * as it builds the next model request, usually before a language server has re-checked the file;
 * getDiagnostics waits briefly for those files (well inside the CLI's 2 s budget, docs/protocol.md#getdiagnostics).
 */
export class RecentEdits {
  private readonly accepted = new Map<string, number>();

  constructor(
    private readonly windowMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  mark(filePath: string): void {
    this.accepted.set(filePath, this.now());
  }

  /** Paths accepted within the window; each is returned once. */
  take(): string[] {
    const cutoff = this.now() - this.windowMs;
    const paths = [...this.accepted].filter(([, at]) => at >= cutoff).map(([p]) => p);
    this.accepted.clear();
    return paths;
  }
}
