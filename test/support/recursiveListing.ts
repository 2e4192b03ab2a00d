import { LIST_LIMIT, RecursiveListingBuilder, type Listing } from '../../src/tools/listFiles';

/** The listing list_files gives for these paths, fed to its builder as rg's output in one chunk. */
export function buildRecursiveListing(files: Iterable<string>, limit = LIST_LIMIT): Listing {
  const builder = new RecursiveListingBuilder(limit);
  builder.addChunk(Buffer.from([...new Set(files)].map((file) => `${file}\n`).join('')));
  return builder.finish();
}
