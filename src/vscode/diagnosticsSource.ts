// The Problems panel as a DiagnosticsSource (src/host/diagnostics.ts), for the model's
// get_diagnostics tool and the CLI's getDiagnostics call (ide-protocol.md §3.4).
//
// Only types are imported from 'vscode': the extension passes `vscode.languages` and
// `vscode.Uri.file`, so this file also runs under plain Node with fakes.

import type * as vscode from 'vscode';
import type { DiagnosticItem, DiagnosticsSource, FileDiagnostics, SeverityName } from '../host/diagnostics';

/** The part of `vscode.languages` used here. */
export interface DiagnosticsApi {
  getDiagnostics(resource: vscode.Uri): vscode.Diagnostic[];
  getDiagnostics(): [vscode.Uri, vscode.Diagnostic[]][];
  readonly onDidChangeDiagnostics: vscode.Event<vscode.DiagnosticChangeEvent>;
}

// vscode.DiagnosticSeverity: Error = 0, Warning = 1, Information = 2, Hint = 3.
const SEVERITY_NAMES = ['Error', 'Warning', 'Information', 'Hint'] as const satisfies Record<vscode.DiagnosticSeverity, SeverityName>;

export function severityName(severity: vscode.DiagnosticSeverity): SeverityName {
  return SEVERITY_NAMES[severity] ?? 'Information';
}

/** `code` is a string, a number, or `{ value, target }` (a link to the rule's docs): always a string here. */
export function codeString(code: vscode.Diagnostic['code']): string | undefined {
  if (code === undefined || code === null) return undefined;
  if (typeof code === 'object') return String(code.value);
  return String(code);
}

export function toDiagnosticItem(d: vscode.Diagnostic): DiagnosticItem {
  const item: DiagnosticItem = {
    message: d.message,
    severity: severityName(d.severity),
    // 0-based, as VS Code keeps them and the CLI expects them.
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
  };
  if (d.source) item.source = d.source;
  const code = codeString(d.code);
  if (code !== undefined) item.code = code;
  return item;
}

/** `file://` + the raw fsPath: the CLI compares it without percent-decoding (ide-protocol.md §3.4). */
export function diagnosticsUri(uri: vscode.Uri): string {
  return `file://${uri.fsPath}`;
}

export class VsCodeDiagnosticsSource implements DiagnosticsSource {
  constructor(
    private readonly languages: DiagnosticsApi,
    private readonly fileUri: (absolutePath: string) => vscode.Uri,
  ) {}

  all(): FileDiagnostics[] {
    const result: FileDiagnostics[] = [];
    for (const [uri, diagnostics] of this.languages.getDiagnostics()) {
      // Only files on this disk: untitled buffers, git and output URIs are not the CLI's files.
      if (uri.scheme !== 'file' || diagnostics.length === 0) continue;
      result.push({ uri: diagnosticsUri(uri), diagnostics: diagnostics.map(toDiagnosticItem) });
    }
    return result;
  }

  forFile(absolutePath: string): DiagnosticItem[] {
    return this.languages.getDiagnostics(this.fileUri(absolutePath)).map(toDiagnosticItem);
  }

  waitForChange(absolutePath: string, timeoutMs: number): Promise<boolean> {
    // Compared by uri.toString(): Uri objects for the same file are different objects (pitfall 7).
    const key = this.fileUri(absolutePath).toString();
    return new Promise<boolean>((resolve) => {
      const done = (changed: boolean): void => {
        clearTimeout(timer);
        subscription.dispose();
        resolve(changed);
      };
      const subscription = this.languages.onDidChangeDiagnostics((event) => {
        if (event.uris.some((uri) => uri.toString() === key)) done(true);
      });
      const timer = setTimeout(() => done(false), timeoutMs);
    });
  }
}
