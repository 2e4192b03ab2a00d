import * as path from 'node:path';
import { readForeignFile } from '../otherPrograms/foreignFile';

type Json = Record<string, unknown>;

/** One JSON file of the CLI's, as read for the health page (never written here). */
export interface JsonFileFacts {
  file: string;
  exists: boolean;
  content?: Json;
  /** Not valid JSON / not an object: what the CLI would also choke on. */
  problem?: string;
}

export async function readJsonFile(file: string): Promise<JsonFileFacts> {
  let text: string;
  try {
    // The reader of other programs' files: a pipe or device in its place is refused, never read; a BOM is skipped as claude does.
    const read = await readForeignFile(file);
    if (!read) return { file, exists: false };
    text = read.text;
  } catch (error) {
    return { file, exists: true, problem: (error as Error).message };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { file, exists: true, problem: 'does not hold a JSON object' };
    return { file, exists: true, content: parsed as Json };
  } catch (error) {
    return { file, exists: true, problem: `not valid JSON (${(error as Error).message})` };
  }
}

export type SettingsScope = 'user' | 'project' | 'local';

/**
 * The settings files the CLI merges for a session in `folder` (managed policy aside):
 * `<config dir>/settings.json`, `<folder>/.claude/settings.json`, `<folder>/.claude/settings.local.json`.
 */
export function settingsFiles(configDir: string, folders: readonly string[]): Array<{ scope: SettingsScope; file: string }> {
  return [
    { scope: 'user', file: path.join(configDir, 'settings.json') },
    ...folders.flatMap((folder) => [
      { scope: 'project' as const, file: path.join(folder, '.claude', 'settings.json') },
      { scope: 'local' as const, file: path.join(folder, '.claude', 'settings.local.json') },
    ]),
  ];
}

/** Modes in which the CLI edits without asking, so no review diff ever opens (docs/protocol.md#opendiff). */
export const MODES_WITHOUT_REVIEW = ['acceptEdits', 'bypassPermissions', 'auto'] as const;
