// call_hierarchy: who calls a function (incoming) or what it calls (outgoing), from VS Code's call
// hierarchy provider, to a bounded depth.

import { z } from 'zod';
import type { CallItem, CallStep, LanguageFeatures } from '../host/languageFeatures';
import type { WorkspaceHost } from '../host/workspace';
import {
  formatPlace,
  LANGUAGE_BUDGETS,
  type LanguageBudgets,
  type LanguageQuery,
  LanguageToolError,
  positionFields,
  runLanguageQuery,
  symbolLabel,
} from './languageQuery';
import { defineTool, type ToolDefinition } from './toolDefinition';

const CALL_DEPTH_MAX = 3;
/** Functions listed at most over all levels. */
const CALLS_SHOWN = 200;

const inputSchema = z
  .object({
    ...positionFields,
    direction: z.enum(['incoming', 'outgoing']).optional().describe('incoming: its callers (default); outgoing: what it calls.'),
    depth: z.number().int().min(1).max(CALL_DEPTH_MAX).optional().describe(`Levels, 1-${CALL_DEPTH_MAX} (default 1).`),
  })
  .strict();

const keyOf = (item: CallItem) => `${item.location.path ?? item.location.uri}:${item.location.range.start.line}:${item.location.range.start.character}`;

async function callTree(
  query: LanguageQuery,
  features: LanguageFeatures,
  root: CallItem,
  direction: 'incoming' | 'outgoing',
  depth: number,
  languageId: string,
): Promise<{ lines: string[]; total: number; notAnswered: number }> {
  const lines: string[] = [];
  let total = 0;
  let notAnswered = 0;
  const onPath = new Set<string>([keyOf(root)]);
  const visit = async (item: CallItem, level: number): Promise<void> => {
    // After one step went unanswered, no further step is asked: each would cost the whole bound again.
    if (notAnswered > 0) {
      lines.push(`${'  '.repeat(level - 1)}(not expanded: the provider stopped answering)`);
      notAnswered++;
      return;
    }
    let steps: CallStep[];
    try {
      steps = await query.ask(`${direction} calls`, () => (direction === 'incoming' ? features.incomingCalls(item) : features.outgoingCalls(item)), languageId);
    } catch (error) {
      if (!(error instanceof LanguageToolError) || level === 1) throw error;
      notAnswered++;
      lines.push(`${'  '.repeat(level - 1)}(not answered in time)`);
      return;
    }
    for (const step of steps) {
      total++;
      if (lines.length >= CALLS_SHOWN) continue;
      const place = formatPlace(await query.placeOf(step.item.location), step.item.location.range.start);
      // Call sites are in the caller's file (incoming: step.item's; outgoing: item's).
      const sites = step.callSites.map((r) => `${r.start.line + 1}:${r.start.character + 1}`);
      const inFile = direction === 'incoming' ? 'its' : `${item.name}'s`;
      const calls = sites.length
        ? ` — calls at ${sites.slice(0, 10).join(', ')}${sites.length > 10 ? `, and ${sites.length - 10} more` : ''} (in ${inFile} file)`
        : '';
      const key = keyOf(step.item);
      const cycle = onPath.has(key);
      lines.push(`${'  '.repeat(level - 1)}- ${step.item.name} (${step.item.kind.toLowerCase()}) ${place}${calls}${cycle ? ' (recursive: not expanded)' : ''}`);
      if (level < depth && !cycle) {
        onPath.add(key);
        await visit(step.item, level + 1);
        onPath.delete(key);
      }
    }
  };
  await visit(root, 1);
  return { lines, total, notAnswered };
}

export function callHierarchyTool(
  features: LanguageFeatures,
  host: WorkspaceHost,
  budgets: LanguageBudgets = LANGUAGE_BUDGETS,
): ToolDefinition<typeof inputSchema> {
  return defineTool({
    name: 'call_hierarchy',
    title: 'Call hierarchy',
    description:
      "A function's callers (incoming) or callees (outgoing), from VS Code's language server, to depth 1-3, with call sites. Position as in find_definitions.",
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: (args, context) =>
      runLanguageQuery(features, host, budgets, context, async (query) => {
        const at = await query.resolve(args);
        const direction = args.direction ?? 'incoming';
        const depth = args.depth ?? 1;
        const roots = await query.ask('call hierarchy', () => features.prepareCallHierarchy(at.target.realPath, at.position), at.opened.languageId);
        const what = symbolLabel(at);
        if (roots.length === 0) return `No function ${what}: VS Code's call hierarchy provider for ${at.opened.languageId} found none at that position.`;
        const out: string[] = [];
        for (const root of roots) {
          const { lines, total, notAnswered } = await callTree(query, features, root, direction, depth, at.opened.languageId);
          const heading = `${direction === 'incoming' ? 'Callers' : 'Calls'} of ${root.name} (${root.kind.toLowerCase()}, ${formatPlace(await query.placeOf(root.location), root.location.range.start)}), depth ${depth}`;
          out.push(`${heading}: ${total === 0 ? (direction === 'incoming' ? 'no callers found.' : 'no calls found.') : `${total} found`}`);
          out.push(...lines);
          const shown = lines.length - notAnswered;
          if (total > shown) out.push(`truncated: ${shown} of ${total} shown.`);
        }
        return out.join('\n');
      }),
  });
}
