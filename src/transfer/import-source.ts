// What `kurz import` reads, readable twice: once to find the domains its links are on,
// once to import them. A file is opened again; stdin, which can be read only once, is
// kept as it is read the first time, in a temporary file only its owner may read (an
// export holds password hashes), removed when the import ends.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bytes read so far, for the progress bar. */
export interface ReadCount {
  bytes: number;
}

export interface ImportSource {
  /** The text as UTF-8 (a leading BOM dropped), counting the bytes in `count` as they are read. */
  text(count: ReadCount): AsyncGenerator<string>;
  /** Its size in bytes; undefined while unknown (stdin before it was read through). */
  size(): number | undefined;
  /** Removes what it kept. */
  close(): void;
}

/** A file, whose size is known. */
export function fileSource(path: string, size: number): ImportSource {
  return {
    text: (count) => decoded(Bun.file(path).stream(), count),
    size: () => size,
    close() {},
  };
}

/** stdin: kept in a temporary file as it is read, which later readings read. */
export function stdinSource(stdin: () => ReadableStream<Uint8Array>): ImportSource {
  let kept: { dir: string; file: string; complete: boolean } | undefined;
  return {
    text(count) {
      if (kept === undefined) {
        const dir = mkdtempSync(join(tmpdir(), 'kurz-import-'));
        kept = { dir, file: join(dir, 'stdin'), complete: false };
        return decoded(keeping(stdin(), kept), count);
      }
      // Only a reading that went to the end is read again (the domains' read goes to it).
      if (!kept.complete) throw new Error('stdin was not read through before being read again');
      return decoded(Bun.file(kept.file).stream(), count);
    },
    size: () => (kept?.complete ? statSync(kept.file).size : undefined),
    close() {
      if (kept !== undefined) rmSync(kept.dir, { recursive: true, force: true });
    },
  };
}

/** The stream's chunks as they come, written to `kept.file` too (in a folder of mode 700). */
async function* keeping(
  stream: ReadableStream<Uint8Array>,
  kept: { file: string; complete: boolean },
): AsyncGenerator<Uint8Array> {
  const writer = Bun.file(kept.file).writer();
  try {
    for await (const chunk of stream) {
      writer.write(chunk);
      await writer.flush();
      yield chunk;
    }
    kept.complete = true;
  } finally {
    await writer.end();
  }
}

/** The bytes as UTF-8 text (a leading BOM dropped), counting them as they are read. */
async function* decoded(
  stream: AsyncIterable<Uint8Array>,
  count: ReadCount,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    count.bytes += chunk.byteLength;
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}
