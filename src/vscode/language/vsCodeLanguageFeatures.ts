// VS Code's language features (src/host/languageFeatures.ts) through its own provider commands
// (`vscode.executeDefinitionProvider` and the others): whatever language extensions the user has, with
// their settings, never a language server of ours. A file is loaded and waited for exactly as the
// diagnostics do it (CheckedDocuments: load, then a language server's first answer).

import * as vscode from 'vscode';
import type { CheckedDocuments, Position } from '../../host/diagnostics';
import type {
  CallItem,
  CallStep,
  FoundSymbol,
  LanguageFeatures,
  OpenDocumentLines,
  OpenedForLanguage,
  OutlineSymbol,
  SourceLocation,
  SourceRange,
} from '../../host/languageFeatures';
// rename_symbol's (a line of its own, so the six tools' imports above stay as they were).
import { RenameRefusedError, type RenameEdit } from '../../host/languageFeatures';

/** Languages nothing answers for in VS Code: a file of an unknown type opens as plain text. */
const NO_LANGUAGE_SUPPORT = new Set(['plaintext']);

function rangeOf(range: vscode.Range): SourceRange {
  return { start: { line: range.start.line, character: range.start.character }, end: { line: range.end.line, character: range.end.character } };
}

function locationOf(uri: vscode.Uri, range: vscode.Range): SourceLocation {
  return { uri: uri.toString(), path: uri.scheme === 'file' ? uri.fsPath : undefined, range: rangeOf(range) };
}

/** A definition provider answers with Locations or LocationLinks (the link's name range is where the symbol is). */
function fromLocationOrLink(l: vscode.Location | vscode.LocationLink): SourceLocation {
  return 'targetUri' in l ? locationOf(l.targetUri, l.targetSelectionRange ?? l.targetRange) : locationOf(l.uri, l.range);
}

function kindName(kind: vscode.SymbolKind): string {
  return vscode.SymbolKind[kind] ?? 'Symbol';
}

/** A hover part as markdown: a MarkedString with a language becomes a fenced block. */
function markdownOf(part: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof part === 'string') return part;
  if ('language' in part) return `\`\`\`${part.language}\n${part.value}\n\`\`\``;
  return part.value;
}

function outlineOf(symbol: vscode.DocumentSymbol | vscode.SymbolInformation): OutlineSymbol {
  if ('children' in symbol) {
    return {
      name: symbol.name,
      kind: kindName(symbol.kind),
      detail: symbol.detail || undefined,
      range: rangeOf(symbol.range),
      selectionRange: rangeOf(symbol.selectionRange),
      children: symbol.children.map(outlineOf),
    };
  }
  const range = rangeOf(symbol.location.range);
  return { name: symbol.name, kind: kindName(symbol.kind), detail: symbol.containerName || undefined, range, selectionRange: range, children: [] };
}

function callItemOf(item: vscode.CallHierarchyItem): CallItem {
  return { name: item.name, kind: kindName(item.kind), detail: item.detail, location: locationOf(item.uri, item.selectionRange), handle: item };
}

export class VsCodeLanguageFeatures implements LanguageFeatures {
  /** Files waited for without a position (their first word) in this window. */
  private readonly waitedFor = new Set<string>();

  constructor(private readonly documents: CheckedDocuments) {}

  private run<T>(command: string, ...args: unknown[]): Promise<T | undefined> {
    return Promise.resolve(vscode.commands.executeCommand<T | undefined>(command, ...args));
  }

  private static at(p: string, position: Position): [vscode.Uri, vscode.Position] {
    return [vscode.Uri.file(p), new vscode.Position(position.line, position.character)];
  }

  async open(absolutePath: string, at?: Position): Promise<OpenedForLanguage | undefined> {
    // A tab where VS Code's TypeScript needs one to have the file (it answers only for files in tabs).
    if ((await this.documents.load(absolutePath, { show: true })) === 'skipped') return undefined;
    const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === absolutePath);
    if (!document) return undefined;
    if (NO_LANGUAGE_SUPPORT.has(document.languageId)) return { languageId: document.languageId, hasLanguageSupport: false };
    // At a name, a warm server answers at once; the file's first word may be a keyword or a doc comment,
    // which costs the wait's full second every time: asked once per file, and not at all for a file a
    // server already answered about at a name from its loaded project.
    if (at || !(this.waitedFor.has(absolutePath) || this.documents.answeredFromProject?.(absolutePath))) {
      await this.documents.checkerAnswered(absolutePath, at);
      if (!at) this.waitedFor.add(absolutePath);
    }
    return { languageId: document.languageId, hasLanguageSupport: true };
  }

  async definitions(absolutePath: string, position: Position, kind: 'definition' | 'implementation'): Promise<SourceLocation[]> {
    const command = kind === 'definition' ? 'vscode.executeDefinitionProvider' : 'vscode.executeImplementationProvider';
    const found = await this.run<Array<vscode.Location | vscode.LocationLink>>(command, ...VsCodeLanguageFeatures.at(absolutePath, position));
    return (found ?? []).map(fromLocationOrLink);
  }

  async references(absolutePath: string, position: Position): Promise<SourceLocation[]> {
    const found = await this.run<vscode.Location[]>('vscode.executeReferenceProvider', ...VsCodeLanguageFeatures.at(absolutePath, position));
    return (found ?? []).map((l) => locationOf(l.uri, l.range));
  }

  async hover(absolutePath: string, position: Position): Promise<string[]> {
    const hovers = await this.run<vscode.Hover[]>('vscode.executeHoverProvider', ...VsCodeLanguageFeatures.at(absolutePath, position));
    return (hovers ?? []).flatMap((h) => h.contents.map(markdownOf));
  }

  async outline(absolutePath: string): Promise<OutlineSymbol[]> {
    const symbols = await this.run<Array<vscode.DocumentSymbol | vscode.SymbolInformation>>(
      'vscode.executeDocumentSymbolProvider',
      vscode.Uri.file(absolutePath),
    );
    return (symbols ?? []).map(outlineOf);
  }

  async workspaceSymbols(query: string): Promise<FoundSymbol[]> {
    const symbols = await this.run<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query);
    return (symbols ?? []).map((s) => ({
      name: s.name,
      kind: kindName(s.kind),
      container: s.containerName || undefined,
      location: locationOf(s.location.uri, s.location.range),
    }));
  }

  async prepareCallHierarchy(absolutePath: string, position: Position): Promise<CallItem[]> {
    const items = await this.run<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', ...VsCodeLanguageFeatures.at(absolutePath, position));
    return (items ?? []).map(callItemOf);
  }

  async incomingCalls(item: CallItem): Promise<CallStep[]> {
    const calls = await this.run<vscode.CallHierarchyIncomingCall[]>('vscode.provideIncomingCalls', item.handle);
    return (calls ?? []).map((c) => ({ item: callItemOf(c.from), callSites: c.fromRanges.map(rangeOf) }));
  }

  async outgoingCalls(item: CallItem): Promise<CallStep[]> {
    const calls = await this.run<vscode.CallHierarchyOutgoingCall[]>('vscode.provideOutgoingCalls', item.handle);
    return (calls ?? []).map((c) => ({ item: callItemOf(c.to), callSites: c.fromRanges.map(rangeOf) }));
  }

  async rename(absolutePath: string, position: Position, newName: string): Promise<RenameEdit> {
    let edit: vscode.WorkspaceEdit | undefined;
    try {
      edit = await this.run<vscode.WorkspaceEdit>('vscode.executeDocumentRenameProvider', ...VsCodeLanguageFeatures.at(absolutePath, position), newName);
    } catch (error) {
      // The provider's reason ("You cannot rename this element."), or no provider for the language.
      throw new RenameRefusedError((error as Error).message);
    }
    // entries() lists the text edits only: a provider's file operations (create, rename, delete) are not
    // applied, and no file is created (the tool writes only files that exist).
    return {
      files: (edit?.entries() ?? []).map(([uri, edits]) => ({
        location: { uri: uri.toString(), path: uri.scheme === 'file' ? uri.fsPath : undefined },
        replacements: edits.map((e) => ({ range: rangeOf(e.range), newText: e.newText })),
      })),
    };
  }

  openDocumentLines(absolutePath: string): OpenDocumentLines | undefined {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === absolutePath);
    return document && { lineCount: document.lineCount, lineAt: (line) => document.lineAt(line).text, text: () => document.getText() };
  }

  release(): void {
    this.documents.releaseCheckTabs();
  }
}
