/**
 * Printed at the end of `npm run package`: every file in dist/native-claude.vsix with its unpacked size, and
 * the .vsix's own size against the 300 KiB budget. Exits 1 over budget or when a source map got in.
 */
import * as path from 'path';
import { formatKiB, MAX_VSIX_BYTES, readVsix } from './vsixContents';

const VSIX = path.resolve(__dirname, '..', 'dist', 'native-claude.vsix');

async function main(): Promise<void> {
  const { bytes, entries } = await readVsix(VSIX);
  console.log(`\n${path.relative(process.cwd(), VSIX)}: ${entries.length} files`);
  for (const e of entries) console.log(`  ${e.path.padEnd(48)} ${formatKiB(e.bytes).padStart(11)}`);
  console.log(`size: ${bytes} bytes (${formatKiB(bytes)}), budget ${formatKiB(MAX_VSIX_BYTES)}`);
  const maps = entries.filter((e) => e.path.endsWith('.map'));
  if (maps.length > 0) throw new Error(`source maps must stay out of the .vsix (see .vscodeignore): ${maps.map((e) => e.path).join(', ')}`);
  if (bytes > MAX_VSIX_BYTES) throw new Error(`the .vsix is ${formatKiB(bytes)}, over the ${formatKiB(MAX_VSIX_BYTES)} budget`);
}

main().catch((e: Error) => {
  console.error(`package: ${e.message}`);
  process.exit(1);
});
