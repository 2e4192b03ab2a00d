/** Writing through the editor, so format-on-save and the editor's own encoding handling apply. */
export interface DocumentWriter {
  /** Whether the user has unsaved edits to this file in an editor. */
  isDirty(absolutePath: string): boolean;
  /**
   * Replaces the file's text (creating it and its folders when new) and saves it through the editor.
   * Returns the text as saved, after format-on-save and other save participants ran. `absolutePath`
   * is the real path that was checked: a symbolic link found on it now is refused, not followed.
   * `encoding`: the one an existing file was read in for the proposal; the write is refused (nothing
   * written) when the editor would save it in another, or when the text holds characters the file's
   * encoding cannot (it would substitute them).
   */
  write(absolutePath: string, text: string, encoding?: string): Promise<{ savedText: string }>;
  /** Shows a change that was applied without review (approvalMode "never"). */
  showApplied?(absolutePath: string): Promise<void>;
}
