// Asking VS Code's language servers whether they have a file in hand, and starting TypeScript's
// before claude's first edit (docs/diagnostics.md: "Cold language servers").

import { promises as fs } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CheckedDocuments } from '../../host/diagnostics';
import { STILL_LOADING_ANSWER } from './diagnosticsSource';
import type { Logger } from '../../util/logger';

/**
 * VS Code's TypeScript answers a hover from its syntax server while the project loads, marked
 * "(loading...)" (in English; the mark is translated in other display languages, which then count as answers).
 */
const STILL_LOADING = /^\s*```[\w-]*\s*\(loading\.\.\.\)/;

function saysStillLoading(hover: vscode.Hover): boolean {
  const [first] = hover.contents;
  const text = typeof first === 'string' ? first : first?.value;
  return text !== undefined && STILL_LOADING.test(text);
}

/**
 * A hover at `position`, once the extensions that activate for the document's language have
 * activated (VS Code starts them when the document opens, but does not wait for them). TypeScript's
 * answer needs the file's project loaded and its type checker built, which is what its first check
 * waits for. Resolves with the number of answers (0: no server, or one still registering), or
 * STILL_LOADING_ANSWER when the only answers say the server is still loading the project.
 */
export async function askLanguageServers(document: vscode.TextDocument, position: vscode.Position): Promise<number> {
  const event = `onLanguage:${document.languageId}`;
  const activating = vscode.extensions.all.filter(
    (e) => !e.isActive && ((e.packageJSON as { activationEvents?: string[] }).activationEvents ?? []).includes(event),
  );
  await Promise.all(activating.map((e) => Promise.resolve(e.activate()).catch(() => undefined)));
  const hovers = await vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', document.uri, position);
  const answers = hovers ?? [];
  return answers.length > 0 && answers.every(saysStillLoading) ? STILL_LOADING_ANSWER : answers.length;
}

/** Where TypeScript/JavaScript sources are looked for; the first found starts the server. */
const SOURCES = '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}';
const NOT_SOURCES = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**,**/build/**}';

/**
 * TypeScript's first check of a project in a fresh window takes seconds (docs/diagnostics.md), longer
 * than claude waits for its getDiagnostics call after a write (2 s): a file claude writes first would get
 * no problems reported. So TypeScript is started ahead of claude's first edit, as it would be had the
 * user opened a file: one source is loaded (no tab) and TypeScript is asked about it. Triggers: the
 * window opens on a folder with a tsconfig.json or jsconfig.json at its root; a terminal starts claude;
 * claude connects. Runs once per window; never throws. Returns the trigger.
 */
export function typeScriptWarmUp(documents: CheckedDocuments, log: Logger): (reason: string) => void {
  let started = false;
  return (reason) => {
    if (started) return;
    started = true;
    void (async () => {
      const began = Date.now();
      const [source] = await vscode.workspace.findFiles(SOURCES, NOT_SOURCES, 1);
      if (!source || source.scheme !== 'file') return;
      if ((await documents.load(source.fsPath, { show: false })) === 'skipped') return;
      await documents.checkerAnswered(source.fsPath);
      log.info(
        `TypeScript answered about ${vscode.workspace.asRelativePath(source, false)} ${Date.now() - began} ms after it was started (${reason}), ahead of claude's first edit`,
      );
    })().catch((error: unknown) => log.warn(`starting TypeScript ahead of claude's edits failed: ${error instanceof Error ? error.message : String(error)}`));
  };
}

/** Whether a workspace folder is a TypeScript/JavaScript project: a tsconfig.json or jsconfig.json at its root. */
export async function isTypeScriptProject(folder: string): Promise<boolean> {
  const found = await Promise.all(
    ['tsconfig.json', 'jsconfig.json'].map((f) =>
      fs.stat(path.join(folder, f)).then(
        (s) => s.isFile(),
        () => false,
      ),
    ),
  );
  return found.includes(true);
}
