// A whole list of links as one JSON array, streamed chunk by chunk: a list of a million
// links is never held in memory, and a client that stops reading stops the reading.

/** Links read per chunk: one short query of a few milliseconds, ~150 KB of JSON. */
export const LIST_CHUNK = 250;

export interface ListStreamSource<T> {
  /** The first chunk, already read (with the total, in one transaction). */
  first: T[];
  /**
   * Reads the next chunk (at most LIST_CHUNK links), after the last one read: asked
   * for only after a full chunk.
   */
  next(): Promise<T[]>;
  toJson(link: T): unknown;
}

/**
 * The bytes of `JSON.stringify(links.map(toJson))` for the first chunk and every chunk
 * after it. Pull-based: Bun asks for more only when the socket has taken what it had,
 * and only then is the next chunk read, so a client that never reads holds one chunk
 * (plus the socket's buffers) whatever the list's length. Each read first yields to the
 * event loop, so other requests are answered between chunks.
 */
export function linkArrayStream<T>({ first, next, toJson }: ListStreamSource<T>) {
  const encoder = new TextEncoder();
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (done) {
          controller.close();
          return;
        }
        let links = first;
        if (started) {
          await new Promise((resolve) => setImmediate(resolve));
          links = await next();
        }
        const opening = started ? ',' : '[';
        started = true;
        done = links.length < LIST_CHUNK;
        // One stringify of the chunk's array, its brackets dropped: no string per link.
        const items = links.length === 0 ? '' : JSON.stringify(links.map(toJson)).slice(1, -1);
        // A chunk that turns out empty adds nothing but the closing bracket.
        const text = items === '' ? (opening === '[' ? '[]' : ']') : opening + items;
        controller.enqueue(encoder.encode(done && items !== '' ? `${text}]` : text));
        if (done) controller.close();
      },
    },
    // Pull only when the queue is empty, so no chunk is read ahead of the client.
    { highWaterMark: 0 },
  );
}
