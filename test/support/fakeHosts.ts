import { writeWithoutFollowing } from '../../src/workspace/noFollowWrite';
import type { DiagnosticItem, DiagnosticsSource, FileDiagnostics } from '../../src/host/diagnostics';
import type { DocumentWriter } from '../../src/host/documents';
import type { ReviewDecision, ReviewHost, ReviewRequest } from '../../src/host/review';
import { ReviewRegistry } from '../../src/review/reviewRegistry';
import { NodeTextCodec } from '../../src/workspace/encodings';

/** A review "UI" the test answers: each opened review waits until the test decides it. */
export class ScriptedReviewHost implements ReviewHost {
  readonly registry = new ReviewRegistry<ReviewRequest>();
  readonly opened: ReviewRequest[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1;

  async review(request: ReviewRequest): Promise<ReviewDecision> {
    const pending = this.registry.add(String(this.nextId++), request.title, request.connectionId, request);
    this.opened.push(request);
    this.waiters.splice(0).forEach((w) => w());
    return pending.decision;
  }

  async closeByTitle(title: string, connectionId?: number): Promise<boolean> {
    const matches = this.registry.byTitle(title, connectionId);
    matches.forEach((r) => this.registry.settle(r.id, { kind: 'withdrawn', reason: 'close-tab' }));
    return matches.length > 0;
  }

  async closeAll(connectionId?: number): Promise<number> {
    const all = connectionId === undefined ? this.registry.all() : this.registry.byConnection(connectionId);
    all.forEach((r) => this.registry.settle(r.id, { kind: 'withdrawn', reason: 'close-tab' }));
    return all.length;
  }

  withdrawForConnection(connectionId: number): void {
    this.registry.byConnection(connectionId).forEach((r) => this.registry.settle(r.id, { kind: 'withdrawn', reason: 'disconnected' }));
  }

  /** Waits until `count` reviews are pending. */
  async waitForPending(count = 1, timeoutMs = 3000): Promise<ReturnType<ReviewRegistry<ReviewRequest>['all']>> {
    const deadline = Date.now() + timeoutMs;
    while (this.registry.size < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} pending review(s), have ${this.registry.size}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 20);
      });
    }
    return this.registry.all();
  }

  /** Decides the oldest pending review. */
  async decide(decision: ReviewDecision | ((request: ReviewRequest) => ReviewDecision)): Promise<ReviewRequest> {
    const [first] = await this.waitForPending(1);
    this.registry.settle(first.id, typeof decision === 'function' ? decision(first.extra) : decision);
    return first.extra;
  }
}

/** Writes straight to disk; `format` stands in for format-on-save. */
/** Saves as the editor does: in the file's encoding (`codec`, UTF-8 unless a test sets one). */
export class DiskDocumentWriter implements DocumentWriter {
  constructor(private readonly codec = new NodeTextCodec()) {}

  dirty = new Set<string>();
  format?: (text: string) => string;
  written: string[] = [];

  isDirty(absolutePath: string): boolean {
    return this.dirty.has(absolutePath);
  }

  failWith?: string;

  async write(absolutePath: string, text: string, encoding?: string): Promise<{ savedText: string }> {
    if (this.failWith) throw new Error(this.failWith);
    const saved = this.format ? this.format(text) : text;
    const bytes = await this.codec.encode(saved, encoding ?? this.codec.newFileEncoding(absolutePath));
    await writeWithoutFollowing(absolutePath, bytes); // as VsCodeDocumentWriter: no link swapped in is followed
    this.written.push(absolutePath);
    return { savedText: saved };
  }
}

/** A Problems panel the test fills; `afterWrite` lets a test add problems when a file is saved. */
export class StaticDiagnostics implements DiagnosticsSource {
  readonly byFile = new Map<string, DiagnosticItem[]>();
  private readonly listeners = new Set<(paths: readonly string[]) => void>();

  /** Replaces a file's problems, as a language server report would, and tells the listeners. */
  set(file: string, items: DiagnosticItem[]): void {
    this.byFile.set(file, items);
    for (const listener of [...this.listeners]) listener([file]);
  }

  all(): FileDiagnostics[] {
    return [...this.byFile].filter(([, d]) => d.length).map(([file, diagnostics]) => ({ uri: `file://${file}`, diagnostics }));
  }

  forFile(absolutePath: string): DiagnosticItem[] {
    return this.byFile.get(absolutePath) ?? [];
  }

  onDidChange(listener: (paths: readonly string[]) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

export function diagnostic(message: string, line = 0, severity: DiagnosticItem['severity'] = 'Error'): DiagnosticItem {
  return { message, severity, range: { start: { line, character: 0 }, end: { line, character: 1 } }, source: 'test', code: '1' };
}
