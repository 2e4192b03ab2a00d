/** Writing through the editor, so format-on-save and the editor's own encoding handling apply. */
export interface DocumentWriter {
  /** Whether the user has unsaved edits to this file in an editor. */
  isDirty(absolutePath: string): boolean;
  /**
   * The text of the file's editor buffer (no BOM) when it has unsaved edits, else undefined; also
   * undefined for a dirty buffer whose text cannot be merged (a notebook), which `isDirty` still reports.
   */
  unsavedText?(absolutePath: string): string | undefined;
  /**
   * claude accepted an openDiff merged with the user's unsaved edits and writes `text` itself: once the
   * file holds it, the buffer (still the user's `unsaved` text) takes it and ends clean, without a
   * "file changed on disk" conflict. A buffer edited again meanwhile is left alone (nothing lost).
   */
  adoptWritten?(absolutePath: string, text: string, unsaved: string): Promise<void>;
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
