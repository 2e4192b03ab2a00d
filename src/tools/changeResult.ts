import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChangeResult } from '../review/proposeChange';

/** write_file/apply_diff answers: JSON for the model; `{error, path}` is marked isError. */
export function changeResult(result: ChangeResult): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], ...('error' in result ? { isError: true } : {}) };
}
