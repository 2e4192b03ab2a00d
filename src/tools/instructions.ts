// MCP server `instructions`: the CLI puts them in front of the model with the server's tools, so the
// model knows when VS Code's tools are the better choice. Short and specific: they cost context on every request.

/** The `/tools` route (tools seen as mcp__vscode__*). */
export const TOOLS_INSTRUCTIONS = [
  "These tools work in the user's VS Code window, on its workspace.",
  "- write_file / apply_diff: prefer them to Write/Edit when the user should review a change. It opens in VS Code's diff viewer; the user accepts, edits or rejects it. " +
    "The result gives the user's edits to your proposal, format-on-save changes, and new_diagnostics: problems the change introduced, in the file and in up to 10 files that use it (a note names any not checked).",
  "- get_diagnostics: the problems VS Code's language servers report for the files as they are on disk. Without a path it checks the files changed since your last call and up to 10 files that use them, and names any it could not check. " +
    'After changing code, use it instead of running a compiler, type checker or linter on those files; it is not a whole-project build.',
  '- execute_command: runs a command in a VS Code terminal the user can see; use it for builds, tests and long-running commands the user may want to watch.',
  '- read_file, list_files, search_files: the workspace on disk, .gitignore honoured.',
  "Code questions, answered by VS Code's language servers (position: path + line + the symbol's name; or the name alone); prefer them to grep:",
  '- find_definitions: where a name is defined or implemented.',
  '- find_references: the real uses of a symbol, without the comments, strings and same-named symbols grep finds.',
  '- describe_symbol: a type or signature (inferred too) without reading its file.',
  '- file_outline: what a file declares, with line ranges, before reading it.',
  '- find_symbols: a symbol by name when its file is unknown.',
  '- call_hierarchy: the callers or callees of a function, a few levels deep.',
  '- rename_symbol: renames a symbol in every file using it, one reviewed change; prefer it to editing each file.',
].join('\n');

/** The IDE route: of its tools the CLI shows the model only getDiagnostics and executeCode (docs/protocol.md#what-the-model-sees). */
export const IDE_INSTRUCTIONS = [
  "getDiagnostics returns the problems VS Code's language servers report (the Problems panel), as the files are on disk: with uri, that file is checked first; " +
    'without, the files changed since your last call and up to 10 files that use them, and a note names any it could not check. ' +
    'After changing code, use it instead of running a compiler, type checker or linter on those files; it is not a whole-project build.',
  'executeCode runs code in the kernel of the notebook (.ipynb) the user has open in VS Code, in a cell they see, after they allow it; variables persist between calls. ' +
    'When the user works in a notebook, use it to inspect their data and check results in their kernel.',
].join('\n');

/** `route`: the server's two routes (src/server/auth.ts `Route`), named here so tools never import the server. */
export function serverInstructions(route: 'ide' | 'tools'): string {
  return route === 'tools' ? TOOLS_INSTRUCTIONS : IDE_INSTRUCTIONS;
}
