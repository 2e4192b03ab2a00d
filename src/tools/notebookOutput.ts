// A notebook cell's outputs as MCP content for the model (executeCode): streams, text results and
// errors as text, images as image content, within stated bounds. Pure: the VS Code adapter hands the
// outputs over as MIME items and bytes (src/host/notebookKernel.ts).

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CellOutput, CellOutputItem } from '../host/notebookKernel';
import { capOutput } from '../util/headTailText';

type Content = CallToolResult['content'][number];

/** The bounds of one answer (stated in the tool's description). */
export interface OutputBounds {
  /** Characters of text in all, over every output; longer text keeps its start and end. */
  readonly maxTextChars: number;
  /** Images per answer; later ones are named in a note. */
  readonly maxImages: number;
  /** Bytes of one image (decoded); a larger one is named in a note. */
  readonly maxImageBytes: number;
}

export const OUTPUT_BOUNDS: OutputBounds = Object.freeze({ maxTextChars: 20_000, maxImages: 4, maxImageBytes: 1024 * 1024 });

export const STDOUT_MIME = 'application/vnd.code.notebook.stdout';
export const STDERR_MIME = 'application/vnd.code.notebook.stderr';
export const ERROR_MIME = 'application/vnd.code.notebook.error';

/** The image types the Messages API takes; other image types (SVG) go as their text. */
const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** Text representations, the most useful to the model first (a DataFrame's text/plain before its HTML). */
const TEXT_MIMES = ['text/plain', 'text/markdown', 'application/json', 'text/latex', 'text/html', 'image/svg+xml'];

// CSI (colours, cursor), OSC (titles, links) and the two-character escapes: what a kernel's traceback
// or a coloured log carries. Text only: no screen to render (cursor movement is not emulated).

const ANSI_PATTERN = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

/** Removes terminal escape sequences (an IPython traceback's colours). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}

const decoder = new TextDecoder('utf-8');
function textOf(item: CellOutputItem): string {
  return decoder.decode(item.data);
}

/** VS Code's error output: `{name, message, stack}` (Jupyter puts the traceback in `stack`). */
export function formatError(item: CellOutputItem): string {
  let parsed: { name?: unknown; message?: unknown; stack?: unknown };
  try {
    parsed = JSON.parse(textOf(item)) as typeof parsed;
  } catch {
    return stripAnsi(textOf(item));
  }
  const name = typeof parsed.name === 'string' && parsed.name ? parsed.name : 'Error';
  const message = typeof parsed.message === 'string' ? stripAnsi(parsed.message) : '';
  const stack = typeof parsed.stack === 'string' ? stripAnsi(parsed.stack).replace(/\s+$/, '') : '';
  const head = message ? `${stripAnsi(name)}: ${message}` : stripAnsi(name);
  return stack ? `${head}\n${stack}` : head;
}

/** One piece of the answer before bounds: text (already cleaned) or an image. */
type Piece = { kind: 'text'; text: string } | { kind: 'image'; mime: string; data: Uint8Array };

/**
 * One output as the model should get it: an error or a stream as text (a stream's items joined), else
 * the first image type, else the first text type, else a note naming what it was.
 */
function pieceOf(output: CellOutput): Piece | undefined {
  const items = output.items;
  const error = items.find((i) => i.mime === ERROR_MIME);
  if (error) return { kind: 'text', text: formatError(error) };
  const stream = items.filter((i) => i.mime === STDOUT_MIME || i.mime === STDERR_MIME);
  if (stream.length) return { kind: 'text', text: stripAnsi(stream.map(textOf).join('')) };
  for (const mime of IMAGE_MIMES) {
    const image = items.find((i) => i.mime === mime);
    if (image) return { kind: 'image', mime, data: image.data };
  }
  for (const mime of TEXT_MIMES) {
    const text = items.find((i) => i.mime === mime);
    if (text) return { kind: 'text', text: mime === 'text/plain' ? stripAnsi(textOf(text)) : `(${mime})\n${textOf(text)}` };
  }
  if (!items.length) return undefined;
  return { kind: 'text', text: `[an output of type ${items.map((i) => i.mime).join(', ')} that cannot be shown as text or an image]` };
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * The outputs as MCP content, in their order: consecutive text joined into one text item, images as
 * `{type: "image", data: <base64>, mimeType}`. Text over `maxTextChars` in all keeps each run's start
 * and end (cut in proportion to its length, with a marker saying how much was left out); an image over
 * `maxImageBytes`, or past `maxImages`, becomes a note in the text. Empty outputs give no content.
 */
export function outputsToContent(outputs: readonly CellOutput[], bounds: OutputBounds = OUTPUT_BOUNDS): Content[] {
  const runs: Array<{ kind: 'text'; text: string } | { kind: 'image'; mime: string; data: Uint8Array }> = [];
  let images = 0;
  const addText = (text: string) => {
    const last = runs[runs.length - 1];
    if (last?.kind === 'text') last.text += last.text.endsWith('\n') || last.text === '' ? text : `\n${text}`;
    else runs.push({ kind: 'text', text });
  };
  for (const output of outputs) {
    const piece = pieceOf(output);
    if (!piece) continue;
    if (piece.kind === 'text') {
      if (piece.text !== '') addText(piece.text);
    } else if (piece.data.length > bounds.maxImageBytes) {
      addText(
        `[an ${piece.mime} image of ${formatBytes(piece.data.length)} left out: over the ${formatBytes(bounds.maxImageBytes)} bound for one image. Save it to a file or make it smaller (e.g. a lower dpi).]`,
      );
    } else if (images >= bounds.maxImages) {
      addText(`[an ${piece.mime} image left out: only ${bounds.maxImages} images are sent per call]`);
    } else {
      images++;
      runs.push(piece);
    }
  }
  const shares = textShares(
    runs.map((r) => (r.kind === 'text' ? r.text.length : 0)),
    bounds.maxTextChars,
  );
  return runs.map((run, i): Content => {
    if (run.kind === 'image')
      return { type: 'image', data: Buffer.from(run.data.buffer, run.data.byteOffset, run.data.byteLength).toString('base64'), mimeType: run.mime };
    return { type: 'text', text: capOutput(run.text, shares[i]) };
  });
}

/**
 * How many characters each text run may keep so that all of them together stay within `max`: runs
 * shorter than an equal share of what is left keep all of their text, the longer ones split the rest
 * equally (a floor per run, as before, let five runs pass the bound by up to 800 characters).
 */
function textShares(lengths: readonly number[], max: number): number[] {
  if (lengths.reduce((a, b) => a + b, 0) <= max) return [...lengths];
  const shares = new Array<number>(lengths.length).fill(0);
  const order = lengths
    .map((_, i) => i)
    .filter((i) => lengths[i] > 0)
    .sort((a, b) => lengths[a] - lengths[b]);
  let left = max;
  order.forEach((index, k) => {
    shares[index] = Math.min(lengths[index], Math.floor(left / (order.length - k)));
    left -= shares[index];
  });
  return shares;
}
