// Text encodings in plain Node: the codec behind tests and fakes, and the checks that keep an edit
// from changing bytes it did not touch (a round trip through the file's own encoding).
//
// VS Code decodes every file in its encoding (src/vscode/workspace/vsCodeTextCodec.ts); this plain codec knows the
// ones Node can encode itself: UTF-8 (a BOM gives 'utf8bom'), UTF-16 with a BOM, and ISO-8859-1
// when the test's settings name it.

/** What encoding checks need of a codec (src/host/textCodec.ts is the whole seam). */
export interface Transcoder {
  decode(bytes: Uint8Array, encoding: string): Promise<string>;
  encode(text: string, encoding: string): Promise<Uint8Array>;
}

const NAMES: Record<string, string> = {
  utf8: 'UTF-8',
  utf8bom: 'UTF-8 with BOM',
  utf16le: 'UTF-16 LE',
  utf16be: 'UTF-16 BE',
  iso88591: 'ISO-8859-1 (Latin-1)',
  iso885915: 'ISO-8859-15 (Latin-9)',
  windows1252: 'Windows-1252',
  windows1250: 'Windows-1250',
  windows1251: 'Windows-1251',
  shiftjis: 'Shift JIS',
  eucjp: 'EUC-JP',
  euckr: 'EUC-KR',
  gbk: 'GBK',
  gb18030: 'GB 18030',
  big5hkscs: 'Big5-HKSCS',
  cp437: 'CP437',
  cp850: 'CP850',
  macroman: 'Mac Roman',
  koi8r: 'KOI8-R',
};

/** The name people know an encoding by, for messages ('iso88591' → 'ISO-8859-1 (Latin-1)'). */
export function encodingName(encoding: string): string {
  return NAMES[encoding] ?? encoding;
}

export function isUtf8(encoding: string): boolean {
  return encoding === 'utf8' || encoding === 'utf8bom';
}

/** The encoding a byte order mark at the start of `bytes` stands for, else undefined. */
export function encodingByBom(bytes: Uint8Array): 'utf8bom' | 'utf16le' | 'utf16be' | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf8bom';
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf16be';
  return undefined;
}

const utf8Decoder = new TextDecoder('utf-8'); // drops a leading BOM, as VS Code does

/** UTF-8 bytes as text (a BOM dropped, invalid bytes as U+FFFD), without asking the editor. */
export function decodeUtf8(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

/**
 * Encodings Node can do alone. `encodingOf` stands for the editor's settings (`files.encoding`):
 * the encoding of a file without a BOM; UTF-8 unless a test says otherwise.
 */
export class NodeTextCodec {
  constructor(private readonly encodingOf: (absolutePath: string) => string = () => 'utf8') {}

  quickEncoding(absolutePath: string, head: Uint8Array): string {
    return encodingByBom(head) ?? this.encodingOf(absolutePath);
  }

  async readText(bytes: Uint8Array, absolutePath: string): Promise<string> {
    return (await this.readForEdit(bytes, absolutePath)).text;
  }

  async readForEdit(bytes: Uint8Array, absolutePath: string): Promise<{ text: string; encoding: string }> {
    const encoding = this.quickEncoding(absolutePath, bytes);
    return { text: await this.decode(bytes, encoding), encoding };
  }

  newFileEncoding(absolutePath: string): string {
    return this.encodingOf(absolutePath);
  }

  async decode(bytes: Uint8Array, encoding: string): Promise<string> {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    switch (encoding) {
      case 'utf8':
      case 'utf8bom':
        return decodeUtf8(bytes);
      case 'utf16le':
        return buffer.subarray(encodingByBom(bytes) === 'utf16le' ? 2 : 0).toString('utf16le');
      case 'utf16be':
        return Buffer.from(buffer.subarray(encodingByBom(bytes) === 'utf16be' ? 2 : 0))
          .swap16()
          .toString('utf16le');
      case 'iso88591':
        return buffer.toString('latin1');
      default:
        throw new Error(`The plain codec cannot decode ${encoding}`);
    }
  }

  async encode(text: string, encoding: string): Promise<Uint8Array> {
    switch (encoding) {
      case 'utf8':
        return Buffer.from(text, 'utf8');
      case 'utf8bom':
        return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
      case 'utf16le':
        return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      case 'utf16be':
        return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
      case 'iso88591':
        return Buffer.from(text, 'latin1'); // keeps only the low byte of other characters: a round trip shows it
      default:
        throw new Error(`The plain codec cannot encode ${encoding}`);
    }
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The characters of `text` that do not survive `encoding` (each once, in order), or [] when it all does. */
export async function unencodableCharacters(codec: Transcoder, text: string, encoding: string): Promise<string[]> {
  if (isUtf8(encoding) || encoding === 'utf16le' || encoding === 'utf16be') {
    // Unicode encodings hold every character; only a lone surrogate cannot be written.
    return [...new Set(text.match(LONE_SURROGATE) ?? [])];
  }
  if ((await codec.decode(await codec.encode(text, encoding), encoding)) === text) return [];
  // Which ones: every distinct non-ASCII character once, one per line, in a single round trip.
  const distinct = [...new Set(Array.from(text).filter((c) => c.codePointAt(0)! > 0x7f))];
  const back = (await codec.decode(await codec.encode(distinct.join('\n'), encoding), encoding)).split('\n');
  const bad = back.length === distinct.length ? distinct.filter((c, i) => back[i] !== c) : [];
  return bad.length ? bad : distinct; // substitution changed the lines: name them all rather than none
}

/** Whether `text`, decoded from `bytes`, encodes back to exactly those bytes. */
export async function decodedLosslessly(codec: Transcoder, bytes: Uint8Array, text: string, encoding: string): Promise<boolean> {
  // UTF-8 without a replacement character cannot have lost anything (a cheap check for big files).
  if (isUtf8(encoding) && !text.includes('\uFFFD') && (encoding === 'utf8bom') === (encodingByBom(bytes) === 'utf8bom')) return true;
  return Buffer.from(await codec.encode(text, encoding)).equals(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** "€" (U+20AC, line 3), … for a message; at most `max` of them. */
export function describeCharacters(text: string, characters: string[], max = 5): string {
  const shown = characters.slice(0, max).map((c) => {
    const at = text.indexOf(c);
    const line = at === -1 ? undefined : text.slice(0, at).split('\n').length;
    const code = [...c].map((p) => `U+${p.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');
    return `"${c}" (${code}${line ? `, line ${line}` : ''})`;
  });
  return shown.join(', ') + (characters.length > max ? ` and ${characters.length - max} more` : '');
}

/** The error for text its file's encoding cannot hold: which characters, and what to do. */
export function unencodableMessage(shown: string, text: string, characters: string[], encoding: string): string {
  return (
    `${shown} is saved in ${encodingName(encoding)}, which cannot hold ${describeCharacters(text, characters)}. ` +
    `Writing them would replace them with other characters, so nothing was written and the file is as it was. ` +
    `Write them another way the file's language allows (an escape sequence such as \\u20AC, or an HTML entity such as &euro;), ` +
    `or ask the user to convert the file to UTF-8 first (VS Code: "Save with Encoding").`
  );
}

/** The error for a file its encoding does not decode exactly (an edit would rewrite bytes it did not touch). */
export function notLosslessMessage(shown: string, encoding: string): string {
  return (
    `${shown} is not valid ${encodingName(encoding)}, the encoding VS Code reads it in: some of its bytes decode to ` +
    `replacement characters, so saving any change would rewrite bytes the change does not touch. Nothing was changed. ` +
    `If the file is in another encoding (Latin-1, Windows-1252, Shift JIS…), ask the user to set "files.encoding" for it ` +
    `(or turn on "files.autoGuessEncoding") in VS Code's settings and retry; if it is binary, edit it with a shell command.`
  );
}
