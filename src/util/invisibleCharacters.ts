/**
 * Characters that change how text reads without being seen: direction controls (embeddings, overrides,
 * isolates, marks: "Trojan Source", CVE-2021-42574) and zero-width ones. In code or a command shown for
 * approval they can make what the user reads differ from what runs; VS Code's editor marks them, its
 * dialogs and notifications do not.
 */
const INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** `text` with each such character written out as `⟦U+202E⟧`; `found` says whether there was any. */
export function revealInvisible(text: string): { text: string; found: boolean } {
  let found = false;
  const shown = text.replace(INVISIBLE, (c) => {
    found = true;
    return `⟦U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`;
  });
  return { text: shown, found };
}

/** The sentence an approval adds when it revealed such characters. */
export const INVISIBLE_NOTE = 'It contains invisible or direction-changing characters, shown as ⟦U+…⟧: what runs may not read as it looks.';
