/**
 * The inner half of bench/language.real.ts, in a fresh window on the bench's TypeScript project:
 *   1. the window's first question (`first`: find_definitions at a call site, or find_references at the
 *      declaration), TypeScript cold, timed as the model's call over the socket;
 *   2. with `samples` > 0, each language tool against the provider command(s) it calls, same query,
 *      interleaved (tool first, then command first, in turn), after three unmeasured rounds of every pair
 *      (all of them before any row is measured); and each tool's first call in the window (the first of
 *      those rounds). The tools are called from a child process, as claude calls them from its own
 *      (test/vscode/leanToolCaller.ts), and timed there; find_definitions also from this process, and with
 *      the SDK's Client. rename_symbol is timed up to its review's first file open (then rejected:
 *      nothing is written).
 * Times in ms, written to the spec's results file; the outer bench prints the rows. Runs only with
 * $NC_LANGUAGE_BENCH.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as path from 'path';
import * as vscode from 'vscode';
import { describe, it } from '../bdd';
import { leanCaller, outOfProcessCaller } from '../leanToolCaller';
import { proposalTabs, tools, workspaceRoot } from '../toolsClient';
import { waitFor } from '../util';

/** A symbol's place: `line` 1-based (as the model gives it), `character` 0-based (as VS Code's commands take it). */
interface Place {
  path: string;
  line: number;
  symbol: string;
  character: number;
}

interface Spec {
  results: string;
  /** The window's first question: a tool, or VS Code's own definition command (`raw_definitions`). */
  first: 'find_definitions' | 'find_references' | 'raw_definitions';
  samples: number;
  /** `double`'s declaration, and a call of it in another file. */
  declaration: Place;
  callSite: Place;
  outlineOf: string;
  symbolQuery: string;
  /** When set: a CPU profile of the extension host over `samples` calls of `profileTool` is written here. */
  profile?: string;
  profileTool?: 'find_references' | 'find_definitions';
}

const SPEC_PATH = process.env.NC_LANGUAGE_BENCH;
const spec: Spec | undefined = SPEC_PATH ? (JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8')) as Spec) : undefined;
const WARMUP = 3;

/** A tool's answer from the child's caller, with the time the child measured for the call. */
class TimedInChild {
  constructor(
    readonly ms: number,
    readonly text: string,
  ) {}
}

describe('language bench: the tools against the provider commands they call', function () {
  this.timeout(1_200_000);

  it('measures the first question and each tool', async function () {
    if (!spec) this.skip();
    const s = spec;
    const results: Record<string, unknown> = { state: 'running' };
    const save = () => fs.writeFileSync(s.results, JSON.stringify(results, null, 2));
    const closers: Array<() => void> = [];
    try {
      const t = await tools();
      const { authToken } = JSON.parse(fs.readFileSync(t.lockPath, 'utf8')) as { authToken: string };
      // The measured rows' calls: JSON-RPC and JSON.parse only, from a child process (claude is another
      // process: its client's work is not the extension host's), timed there. One row calls from this
      // process, one with the SDK's Client (zod on every message, ~0.2 ms a call), neither targeted.
      const lean = await leanCaller(t.port, authToken);
      const child = await outOfProcessCaller(t.port, authToken);
      closers.push(
        () => lean.close(),
        () => child.close(),
      );
      const ws = workspaceRoot();
      const uri = (p: Place | string) => vscode.Uri.file(path.join(ws, typeof p === 'string' ? p : p.path));
      const pos = (p: Place) => new vscode.Position(p.line - 1, p.character);
      const args = (p: Place) => ({ path: p.path, line: p.line, symbol: p.symbol });
      // `via`: the SDK's Client (the window's first question, and the row that shows its cost), or this
      // process's lean caller; by default the child's, whose answer carries the time it measured.
      const tool = async (name: string, toolArgs: Record<string, unknown>, via: 'child' | 'here' | 'sdk' = 'child') => {
        const timedThere = via === 'child' ? await child.call(name, toolArgs) : undefined;
        const answer = timedThere?.answer ?? (via === 'sdk' ? await t.call(name, toolArgs) : await lean(name, toolArgs));
        assert.strictEqual(answer.isError, false, `${name}: ${answer.text}`);
        return timedThere ? new TimedInChild(timedThere.ms, answer.text) : answer.text;
      };
      const textOf = (answer: string | TimedInChild) => (typeof answer === 'string' ? answer : answer.text);

      // 1. The window's first question.
      const started = performance.now();
      if (s.first === 'raw_definitions') {
        // VS Code itself, no tool: the file opened in a tab (TypeScript answers for files in tabs), then
        // the definition command asked every 50 ms until it lands in the declaration's file (while the
        // project loads, TypeScript's syntax server answers with the import line).
        const doc = await vscode.workspace.openTextDocument(uri(s.callSite));
        await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
        let found: Array<vscode.Location | vscode.LocationLink> = [];
        const target = uri(s.declaration).fsPath;
        const lands = () => found.some((l) => ('targetUri' in l ? l.targetUri : l.uri).fsPath === target);
        for (let asked = 0; !lands(); asked++) {
          assert.ok(performance.now() - started < 60_000, 'the definition command did not land in the declaration within 60 s');
          if (asked > 0) await new Promise((r) => setTimeout(r, 50));
          found =
            (await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink>>(
              'vscode.executeDefinitionProvider',
              uri(s.callSite),
              pos(s.callSite),
            )) ?? [];
        }
        results.first = { tool: s.first, ms: performance.now() - started, answer: JSON.stringify(found.length) };
      } else {
        const firstAnswer = textOf(await tool(s.first, args(s.first === 'find_definitions' ? s.callSite : s.declaration), 'sdk'));
        results.first = { tool: s.first, ms: performance.now() - started, answer: firstAnswer.slice(0, 400) };
      }
      save();

      // 2. Each tool against the command(s) it calls.
      const nonEmpty = async <T>(what: string, answer: Thenable<T[] | undefined>) => {
        const found = (await answer) ?? [];
        assert.ok(found.length > 0, `${what} answered nothing`);
        return found;
      };
      // `after`: the tool's call finished off, unmeasured, with what `tool` returned.
      const pairs: Array<{
        name: string;
        tool: () => Promise<unknown>;
        command: string;
        raw: () => Promise<unknown>;
        after?: (toolDid: unknown) => Promise<void>;
      }> = [
        {
          name: 'find_references',
          tool: () => tool('find_references', args(s.declaration)),
          command: 'executeReferenceProvider',
          raw: () =>
            nonEmpty(
              'references',
              vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri(s.declaration), pos(s.declaration)),
            ),
        },
        {
          name: 'find_references',
          tool: () => tool('find_references', args(s.declaration)),
          command: 'executeReferenceProvider + executeDefinitionProvider (both commands it calls, at once)',
          raw: () =>
            Promise.all([
              nonEmpty(
                'references',
                vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri(s.declaration), pos(s.declaration)),
              ),
              nonEmpty(
                'definitions',
                vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', uri(s.declaration), pos(s.declaration)),
              ),
            ]),
        },
        {
          name: 'find_definitions',
          tool: () => tool('find_definitions', args(s.callSite)),
          command: 'executeDefinitionProvider',
          raw: () =>
            nonEmpty('definitions', vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', uri(s.callSite), pos(s.callSite))),
        },
        {
          name: 'find_definitions',
          tool: () => tool('find_definitions', args(s.callSite), 'here'),
          command: "executeDefinitionProvider (the tool called from the extension host's own thread)",
          raw: () =>
            nonEmpty('definitions', vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', uri(s.callSite), pos(s.callSite))),
        },
        {
          name: 'find_definitions',
          tool: () => tool('find_definitions', args(s.callSite), 'sdk'),
          command: "executeDefinitionProvider (the tool called with the SDK's Client, from the extension host's thread)",
          raw: () =>
            nonEmpty('definitions', vscode.commands.executeCommand<vscode.Location[]>('vscode.executeDefinitionProvider', uri(s.callSite), pos(s.callSite))),
        },
        {
          name: 'describe_symbol',
          tool: () => tool('describe_symbol', args(s.callSite)),
          command: 'executeHoverProvider',
          raw: () => nonEmpty('hover', vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri(s.callSite), pos(s.callSite))),
        },
        {
          name: 'file_outline',
          tool: () => tool('file_outline', { path: s.outlineOf }),
          command: 'executeDocumentSymbolProvider',
          raw: () => nonEmpty('outline', vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', uri(s.outlineOf))),
        },
        {
          name: 'find_symbols',
          tool: () => tool('find_symbols', { query: s.symbolQuery }),
          command: 'executeWorkspaceSymbolProvider',
          raw: () =>
            nonEmpty('workspace symbols', vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', s.symbolQuery)),
        },
        {
          name: 'call_hierarchy',
          tool: () => tool('call_hierarchy', args(s.declaration)),
          command: 'prepareCallHierarchy + provideIncomingCalls',
          raw: async () => {
            const [item] = await nonEmpty(
              'call hierarchy',
              vscode.commands.executeCommand<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', uri(s.declaration), pos(s.declaration)),
            );
            return nonEmpty('incoming calls', vscode.commands.executeCommand<vscode.CallHierarchyIncomingCall[]>('vscode.provideIncomingCalls', item));
          },
        },
        {
          // Up to the review's first file open (the tab there): the call's answer waits for the user,
          // so the review is then rejected (nothing written) and the answer awaited, unmeasured.
          name: 'rename_symbol',
          tool: async () => {
            const opened = new Promise<vscode.Uri>((resolve) => {
              const listener = vscode.window.tabGroups.onDidChangeTabs(() => {
                const review = proposalTabs()[0];
                if (!review) return;
                listener.dispose();
                resolve(review.input.modified);
              });
            });
            const answered = lean('rename_symbol', { ...args(s.declaration), new_name: 'twice' });
            const review = await Promise.race([opened, answered.then((a) => assert.fail(`rename_symbol answered before a review opened: ${a.text}`))]);
            return { review, answered };
          },
          command: 'executeDocumentRenameProvider',
          raw: async () => {
            const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit>(
              'vscode.executeDocumentRenameProvider',
              uri(s.declaration),
              pos(s.declaration),
              'twice',
            );
            assert.ok(edit && edit.size > 1, 'the rename provider answered no edit');
          },
          after: async (opened: unknown) => {
            const { review, answered } = opened as { review: vscode.Uri; answered: Promise<{ isError: boolean; text: string }> };
            await vscode.commands.executeCommand('nativeClaude.rejectReview', review);
            const answer = await answered;
            assert.match(answer.text, /"status": "rejected"/, answer.text);
            await waitFor('the review closed', () => proposalTabs().length === 0, 10_000);
          },
        },
      ];
      let toolDid: unknown;
      const timed = async (fn: () => Promise<unknown>) => {
        const at = performance.now();
        toolDid = await fn();
        const here = performance.now() - at;
        return toolDid instanceof TimedInChild ? toolDid.ms : here;
      };
      const rows: Array<{ tool: string; command: string; toolMs: number[]; commandMs: number[]; firstToolMs?: number }> = [];
      results.rows = rows;
      // Each pair's unmeasured rounds first, all of them before any row is measured: the window's first
      // seconds (other extensions starting, code not yet optimised) then slow no row more than another.
      const firstToolMs = new Map<string, number>();
      for (const pair of s.samples > 0 ? pairs : []) {
        for (let i = 0; i < WARMUP; i++) {
          const toolMs = await timed(pair.tool);
          await pair.after?.(toolDid);
          await timed(pair.raw);
          // The tool's first call in the window (file_outline's: of a file the tools before asked about at a name).
          if (!firstToolMs.has(pair.name)) firstToolMs.set(pair.name, toolMs);
        }
      }
      for (const pair of s.samples > 0 ? pairs : []) {
        const row = { tool: pair.name, command: pair.command, toolMs: [] as number[], commandMs: [] as number[], firstToolMs: firstToolMs.get(pair.name) };
        for (let i = 0; i < s.samples; i++) {
          // In turn which goes first: neither always finds the other's work just done.
          let toolMs: number;
          let commandMs: number;
          if (i % 2 === 0) {
            toolMs = await timed(pair.tool);
            await pair.after?.(toolDid);
            commandMs = await timed(pair.raw);
          } else {
            commandMs = await timed(pair.raw);
            toolMs = await timed(pair.tool);
            await pair.after?.(toolDid);
          }
          row.toolMs.push(toolMs);
          row.commandMs.push(commandMs);
        }
        rows.push(row);
        save();
      }
      if (s.samples > 0) {
        // What every call pays whatever the tool does, in this window: the round trip of a call refused at
        // its arguments (no file, no command: transport, the SDK, the child's socket), and one realpath
        // (the boundary check's file-system lookup) from this thread.
        const roundTripMs: number[] = [];
        const realpathMs: number[] = [];
        const declaration = uri(s.declaration).fsPath;
        for (let i = 0; i < s.samples; i++) {
          const refused = await child.call('find_definitions', {});
          assert.strictEqual(refused.answer.isError, true, refused.answer.text);
          roundTripMs.push(refused.ms);
          const at = performance.now();
          await fs.promises.realpath(declaration);
          realpathMs.push(performance.now() - at);
        }
        results.parts = { roundTripMs, realpathMs };
        save();
      }
      if (s.profile && s.samples > 0) {
        // In this process (the extension host: the server and VS Code's command plumbing; the calls come from the child).
        const session = new inspector.Session();
        session.connect();
        const post = (method: string, params?: object) =>
          new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', { interval: 100 });
        await post('Profiler.start');
        const profiled = s.profileTool ?? 'find_references';
        for (let i = 0; i < s.samples; i++) await tool(profiled, args(profiled === 'find_definitions' ? s.callSite : s.declaration));
        const { profile } = (await post('Profiler.stop')) as { profile: unknown };
        fs.writeFileSync(s.profile, JSON.stringify(profile));
        session.disconnect();
      }
      results.answers = s.samples > 0 ? { find_references: textOf(await tool('find_references', args(s.declaration))).split('\n')[0] } : undefined;
      results.state = 'passed';
      save();
    } catch (error) {
      results.state = 'failed';
      results.error = String((error as Error).stack ?? error);
      save();
      throw error;
    } finally {
      for (const close of closers) close();
    }
  });
});
