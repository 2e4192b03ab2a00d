/**
 * How the editor turns a file's bytes into text and back: its encoding as VS Code decodes it
 * (`files.encoding`, per-language settings, `files.autoGuessEncoding`, byte order marks). Encoding
 * names are VS Code's (`TextDocument.encoding`): 'utf8', 'utf8bom', 'utf16le', 'iso88591', 'shiftjis'…
 * Decoded text never starts with a byte order mark; encoding 'utf8bom', 'utf16le' or 'utf16be' adds one.
 */
export interface TextCodec {
  /**
   * The encoding the file is read with when the settings and its first bytes decide it alone, or
   * undefined when only its whole content (auto guessing) or its language can tell.
   */
  quickEncoding(absolutePath: string, head: Uint8Array): string | undefined;
  /** The file's text as the editor shows it (for reading). Throws when the editor takes it for binary. */
  readText(bytes: Uint8Array, absolutePath: string): Promise<string>;
  /** The file's text and the encoding the editor saves it in (for editing it). */
  readForEdit(bytes: Uint8Array, absolutePath: string): Promise<{ text: string; encoding: string }>;
  /** The encoding a new file at this path is written in. */
  newFileEncoding(absolutePath: string): string;
  decode(bytes: Uint8Array, encoding: string): Promise<string>;
  /** May substitute characters the encoding cannot hold: check with a round trip (workspace/encodingCheck). */
  encode(text: string, encoding: string): Promise<Uint8Array>;
}
