import { describe, expect, test } from 'bun:test';
import { LIST_CHUNK } from '../../src/links/list-stream.ts';
import type { LinkChunkQuery, NewLink } from '../../src/store/store.ts';
import { withFaults } from '../support/faulty-store.ts';
import { TestApp } from '../support/test-app.ts';

/** Writes n links straight into the store (much faster than n requests), oldest first. */
async function seed(
  app: TestApp,
  n: number,
  options: { owner?: number | null; createdAt?: number } = {},
) {
  const base = Date.now();
  const links: NewLink[] = [];
  for (let i = 0; i < n; i++) {
    const code = `s${Math.random().toString(36).slice(2, 9)}${i}`;
    links.push({
      userId: options.owner ?? null,
      originalUrl: `https://example.com/${code}`,
      shortCode: code,
      source: null,
      createdAt: options.createdAt ?? base - n + i,
    });
  }
  // In batches, each well within the time a store gives one operation.
  for (let i = 0; i < n; i += LIST_CHUNK) {
    const made = await app.store.createLinks(links.slice(i, i + LIST_CHUNK));
    if (!made.every((link) => typeof link === 'object'))
      throw new Error('seed: a link was not made');
  }
}

/** Every page of ?limit=1000, concatenated: what the streamed list must equal. */
async function allPages(get: (query: string) => Promise<{ json: unknown[] }>) {
  const all: unknown[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = (await get(`?limit=1000&offset=${offset}`)).json;
    all.push(...page);
    if (page.length < 1000) return all;
  }
}

describe('GET /api/links streams the whole list', () => {
  test('a list of several chunks is the pages concatenated, byte for byte as one JSON array', async () => {
    const app = await TestApp.init('open');
    const client = app.anonymous();
    await seed(app, 2 * LIST_CHUNK + 345);
    const reply = await client.links();
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('x-total-count')).toBe(String(2 * LIST_CHUNK + 345));
    expect(reply.headers.get('link')).toBeNull();
    const pages = await allPages((q) => client.links(q));
    expect(pages).toHaveLength(2 * LIST_CHUNK + 345);
    expect(reply.text).toBe(JSON.stringify(pages));
  });

  test('exactly one chunk, and a whole number of chunks, end with a closing bracket', async () => {
    for (const n of [LIST_CHUNK, 2 * LIST_CHUNK]) {
      const app = await TestApp.init('open');
      await seed(app, n);
      const reply = await app.anonymous().links();
      expect(reply.json).toHaveLength(n);
      expect(reply.text).toBe(JSON.stringify(await allPages((q) => app.anonymous().links(q))));
    }
  });

  test('ties on created_at across chunk boundaries lose and repeat nothing', async () => {
    const app = await TestApp.init('open');
    await seed(app, 2 * LIST_CHUNK + 10, { createdAt: 1_700_000_000_000 });
    const ids = (await app.anonymous().links()).json.map((l: { id: number }) => l.id);
    expect(ids).toHaveLength(2 * LIST_CHUNK + 10);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
  });

  test("accounts mode streams only the caller's links, with user_id", async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    const bob = await app.user();
    await seed(app, LIST_CHUNK + 500, { owner: ann.user?.id });
    await seed(app, LIST_CHUNK + 7, { owner: bob.user?.id });
    const reply = await ann.links();
    expect(reply.headers.get('x-total-count')).toBe(String(LIST_CHUNK + 500));
    expect(reply.json).toHaveLength(LIST_CHUNK + 500);
    expect(reply.json.every((l: { user_id: number }) => l.user_id === ann.user?.id)).toBe(true);
    expect(reply.text).toBe(JSON.stringify(await allPages((q) => ann.links(q))));
  });

  test('offset alone starts the streamed list there', async () => {
    const app = await TestApp.init('open');
    await seed(app, LIST_CHUNK + 300);
    const whole = (await app.anonymous().links()).json;
    const reply = await app.anonymous().links('?offset=200');
    expect(reply.headers.get('x-total-count')).toBe(String(LIST_CHUNK + 300));
    expect(reply.json).toEqual(whole.slice(200));
  });

  test('clicks are counted in every chunk, the later ones too', async () => {
    const app = await TestApp.init('open');
    await seed(app, LIST_CHUNK + 5);
    const [oldest] = await app.query<{ id: number }>(
      'SELECT id FROM links ORDER BY created_at, id LIMIT 1',
    );
    const click = {
      source: null,
      querySource: null,
      referrer: null,
      userAgent: null,
      address: null,
      country: null,
      limited: false,
    };
    await app.store.recordClicks(
      [1, 2, 3].map((createdAt) => ({ ...click, linkId: oldest?.id as number, createdAt })),
    );
    const list = (await app.anonymous().links()).json;
    expect(list.at(-1)).toMatchObject({ id: oldest?.id, clicks: 3 });
  });

  test('links made while the list streams are newer and not in it; X-Total-Count agrees', async () => {
    const app = await TestApp.init('open');
    await seed(app, 2 * LIST_CHUNK);
    const response = await app.handleUnchecked(
      new Request('http://localhost/api/links'),
      'the test reads the stream a chunk at a time; the check would read it all first',
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    await app.anonymous().link('https://example.com/made-meanwhile');
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += new TextDecoder().decode(r.value);
    }
    const list = JSON.parse(text);
    expect(list).toHaveLength(Number(response.headers.get('x-total-count')));
    expect(list.map((l: { original_url: string }) => l.original_url)).not.toContain(
      'https://example.com/made-meanwhile',
    );
  });

  test('the next chunk is read only when the client has taken the last one', async () => {
    const reads: LinkChunkQuery[] = [];
    const real = (await TestApp.init('open')).store;
    const store = withFaults(real, {
      listLinksAfter: (query) => {
        reads.push(query);
        return real.listLinksAfter(query);
      },
    });
    const app = await TestApp.init('open', { store });
    await seed(app, 5 * LIST_CHUNK);
    const response = await app.handleUnchecked(
      new Request('http://localhost/api/links'),
      'the test reads the stream a chunk at a time; the check would read it all first',
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await Bun.sleep(20);
    // The first chunk came with the total; nothing more was read ahead of the client.
    expect(reads).toHaveLength(0);
    await reader.read();
    await reader.read();
    await Bun.sleep(20);
    expect(reads).toHaveLength(2);
    await reader.cancel();
  });
});
