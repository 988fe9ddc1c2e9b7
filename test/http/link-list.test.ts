// GET /api/links's filters (q, domain, tag), orders (sort, order) and full view, in both
// modes: alone and together, with their totals, pages and next links, their rules, and
// the plain list left exactly as it was.

import { describe, expect, test } from 'bun:test';
import { LIST_CHUNK } from '../../src/links/list-stream.ts';
import { COUNTED_AHEAD } from '../../src/store/link-search.ts';
import type { NewLink } from '../../src/store/store.ts';
import { BASE_URL, type Client, storeMovedByHand, TestApp } from '../support/test-app.ts';

const SORT_MSG = 'sort must be created, clicks or code, and order asc or desc';
const Q_MSG = 'q must be 1 to 200 characters';
const TAG_MSG = 'tag must be 1 to 32 letters, digits, hyphens or underscores';
const VIEW_MSG = 'view must be full';
const DOMAIN_MSG = "domain must name one of this service's short domains (its host or base URL)";

// biome-ignore lint/suspicious/noExplicitAny: tests read the list's JSON as it comes
type Json = any;

const codesOf = (reply: { json: Json[] }) => reply.json.map((l: Json) => l.short_code);

/**
 * Six links of the caller (and, in accounts mode, two of someone else with the same
 * words in them), made oldest first: two on a second domain, some tagged, some clicked
 * (and those clicks rolled up).
 */
async function seeded(mode: 'accounts' | 'open') {
  // Clicks are folded into the order only when a test says so.
  const app = await TestApp.init(mode, { store: await storeMovedByHand() });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const other = mode === 'accounts' ? await app.user() : undefined;
  const made = [
    await client.link('https://Example.com/Spring-Sale', { custom_code: 'Zebra' }),
    await client.link('https://shop.example/autumn', { custom_code: 'apple' }),
    await client.link('https://news.example/50%25-off', { custom_code: '_under' }),
    await client.link('https://example.org/a_b', { custom_code: '-dash' }),
    await client.link('https://example.net/axb', { custom_code: '9lives' }),
    await client.link('https://blog.example/spring', { custom_code: 'Apple' }),
  ];
  if (other !== undefined) {
    await other.link('https://example.com/spring-of-another', { custom_code: 'spring-x' });
    await other.link('https://shop.example/autumn', { custom_code: 'others' });
  }
  const domain = await app.store.createDomain({
    baseUrl: 'https://go.example',
    host: 'go.example',
    rootRedirect: null,
    notFoundRedirect: null,
    createdAt: Date.now(),
  });
  if (domain === undefined) throw new Error('no domain');
  await app.query('UPDATE links SET domain_id = ? WHERE short_code IN (?, ?)', [
    domain.id,
    'apple',
    '9lives',
  ]);
  const tag = async (code: string, tags: string[], domainId = 0) => {
    const link = await app.store.findLinkDetail(code, domainId);
    if (link === undefined) throw new Error(`no ${code}`);
    await app.store.updateLink(link.id, { tags });
  };
  await tag('Zebra', ['promo', 'spring']);
  await tag('apple', ['promo'], domain.id);
  await tag('Apple', ['autumn']);
  if (other !== undefined) await tag('others', ['promo']);
  // Clicks: Apple 3, _under 2, Zebra 1 (and another's link many).
  for (const [code, n] of [
    ['Apple', 3],
    ['_under', 2],
    ['Zebra', 1],
    ['others', 5],
  ] as const) {
    for (let i = 0; i < n; i++) await app.get(`/${code}`);
  }
  await app.store.rollUpClicks();
  return { app, client, made, domain };
}

describe.each(['accounts', 'open'] as const)('GET /api/links: finding links (%s mode)', (mode) => {
  test('without the new parameters the list is what it was; sort=created&order=desc is the same list', async () => {
    const { client, made } = await seeded(mode);
    const plain = await client.links();
    const newestFirst = [...made].reverse();
    expect(plain.json.map((l: Json) => l.short_code)).toEqual(newestFirst.map((l) => l.short_code));
    expect(Object.keys(plain.json[0]).sort()).toEqual(Object.keys(made[0]).sort());
    const searched = await client.links('?sort=created&order=desc');
    expect(searched.text).toBe(plain.text);
    expect(searched.headers.get('x-total-count')).toBe(plain.headers.get('x-total-count'));
    const page = await client.links('?limit=2&offset=2');
    expect(page.text).toBe(JSON.stringify(plain.json.slice(2, 4)));
    expect(page.headers.get('x-total-count')).toBe('6');
    expect(page.headers.get('link')).toBe('</api/links?limit=2&offset=4>; rel="next"');
    const sortedPage = await client.links('?limit=2&offset=2&sort=created');
    expect(sortedPage.text).toBe(page.text);
    expect(sortedPage.headers.get('link')).toBe(
      '</api/links?limit=2&offset=4&sort=created>; rel="next"',
    );
  });

  test('q finds a code or target containing it in either case, or a tag equal to it', async () => {
    const { client } = await seeded(mode);
    expect(codesOf(await client.links('?q=spring'))).toEqual(['Apple', 'Zebra']);
    expect(codesOf(await client.links('?q=SPRING-sale'))).toEqual(['Zebra']);
    expect(codesOf(await client.links('?q=apple'))).toEqual(['Apple', 'apple']);
    // A tag equal to q (tags are lower-cased), though nothing contains the word.
    expect(codesOf(await client.links('?q=Promo'))).toEqual(['apple', 'Zebra']);
    expect(codesOf(await client.links('?q=autumn'))).toEqual(['Apple', 'apple']);
    // % and _ are themselves, not wildcards.
    expect(codesOf(await client.links(`?q=${encodeURIComponent('%')}`))).toEqual(['_under']);
    expect(codesOf(await client.links('?q=a_b'))).toEqual(['-dash']);
    expect(codesOf(await client.links('?q=_'))).toEqual(['-dash', '_under']);
    // Short texts, and texts with quotes or control characters, are searched for too.
    expect(codesOf(await client.links('?q=Ap'))).toEqual(['Apple', 'apple']);
    expect((await client.links(`?q=${encodeURIComponent('"spring" OR x')}`)).json).toEqual([]);
    expect((await client.links('?q=%01spr')).json).toEqual([]);
    const none = await client.links('?q=nothing-like-it');
    expect(none.json).toEqual([]);
    expect(none.headers.get('x-total-count')).toBe('0');
  });

  test('domain names a short domain by host or base URL; the default one by its own', async () => {
    const { client } = await seeded(mode);
    for (const name of ['go.example', 'GO.example', 'https://go.example', 'https://go.example/']) {
      const reply = await client.links(`?domain=${encodeURIComponent(name)}`);
      expect(codesOf(reply)).toEqual(['9lives', 'apple']);
      expect(reply.headers.get('x-total-count')).toBe('2');
    }
    const defaults = await client.links(`?domain=${encodeURIComponent(BASE_URL)}`);
    expect(codesOf(defaults)).toEqual(['Apple', '-dash', '_under', 'Zebra']);
    expect(codesOf(await client.links('?domain=kurz.test'))).toEqual(codesOf(defaults));
    for (const name of ['elsewhere.example', 'https://go.example:8443', 'not a host', '']) {
      const reply = await client.links(`?domain=${encodeURIComponent(name)}`);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: DOMAIN_MSG });
    }
  });

  test('tag keeps the links with that tag, in either case', async () => {
    const { client } = await seeded(mode);
    expect(codesOf(await client.links('?tag=promo'))).toEqual(['apple', 'Zebra']);
    expect(codesOf(await client.links('?tag=PROMO'))).toEqual(['apple', 'Zebra']);
    expect(codesOf(await client.links('?tag=unused'))).toEqual([]);
    for (const bad of ['', 'a b', 'x'.repeat(33), 'été', 'a.b']) {
      const reply = await client.links(`?tag=${encodeURIComponent(bad)}`);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: TAG_MSG });
    }
  });

  test('filters narrow together; the total counts what they let through', async () => {
    const { client } = await seeded(mode);
    const both = await client.links('?q=spring&tag=promo');
    expect(codesOf(both)).toEqual(['Zebra']);
    expect(both.headers.get('x-total-count')).toBe('1');
    expect(codesOf(await client.links('?tag=promo&domain=go.example'))).toEqual(['apple']);
    expect(codesOf(await client.links('?q=example&domain=go.example&sort=code'))).toEqual([
      '9lives',
      'apple',
    ]);
    expect(codesOf(await client.links('?q=spring&domain=go.example'))).toEqual([]);
  });

  test('sort by code is by its bytes, ascending unless asked; by clicks, most first unless asked', async () => {
    const { client } = await seeded(mode);
    const byCode = ['-dash', '9lives', 'Apple', 'Zebra', '_under', 'apple'];
    expect(codesOf(await client.links('?sort=code'))).toEqual(byCode);
    expect(codesOf(await client.links('?sort=code&order=asc'))).toEqual(byCode);
    expect(codesOf(await client.links('?sort=code&order=desc'))).toEqual([...byCode].reverse());
    const byClicks = await client.links('?sort=clicks');
    expect(codesOf(byClicks).slice(0, 3)).toEqual(['Apple', '_under', 'Zebra']);
    expect(byClicks.json.map((l: Json) => l.clicks)).toEqual([3, 2, 1, 0, 0, 0]);
    // No clicks: by id, in the same direction (the newest of them first here).
    expect(codesOf(byClicks).slice(3)).toEqual(['9lives', '-dash', 'apple']);
    expect(codesOf(await client.links('?sort=clicks&order=asc'))).toEqual([
      'apple',
      '-dash',
      '9lives',
      'Zebra',
      '_under',
      'Apple',
    ]);
    expect(codesOf(await client.links('?order=asc'))).toEqual([
      'Zebra',
      'apple',
      '_under',
      '-dash',
      '9lives',
      'Apple',
    ]);
  });

  test('sort=clicks follows the rollup; the clicks shown are exact at once', async () => {
    const { app, client } = await seeded(mode);
    for (let i = 0; i < 5; i++) expect((await app.get('/-dash')).status).toBe(307);
    const before = await client.links('?sort=clicks');
    expect(codesOf(before)[0]).toBe('Apple');
    expect(before.json.find((l: Json) => l.short_code === '-dash').clicks).toBe(5);
    await app.store.rollUpClicks();
    const after = await client.links('?sort=clicks&limit=1');
    expect(after.json).toEqual([expect.objectContaining({ short_code: '-dash', clicks: 5 })]);
  });

  test('pages of a filtered list keep its filters in the next link, which gives the next page', async () => {
    const { client } = await seeded(mode);
    const first = await client.links('?q=example&sort=code&order=desc&limit=2');
    expect(first.headers.get('x-total-count')).toBe('6');
    const next = first.headers.get('link');
    expect(next).toBe('</api/links?limit=2&offset=2&q=example&sort=code&order=desc>; rel="next"');
    const second = await client.links(
      (next as string).slice('</api/links'.length, next?.indexOf('>')),
    );
    expect(codesOf(second)).toEqual(['Zebra', 'Apple']);
    const all = codesOf(await client.links('?q=example&sort=code&order=desc'));
    expect([...codesOf(first), ...codesOf(second)]).toEqual(all.slice(0, 4));
    // Values are sent back encoded, and the last page has no next link.
    const encoded = await client.links(`?q=${encodeURIComponent('50% & a')}&limit=1&tag=promo`);
    expect(encoded.headers.get('link')).toBeNull();
    const spaced = await client.links(
      `?q=${encodeURIComponent('e')}&domain=${encodeURIComponent('https://go.example')}&limit=1&view=full`,
    );
    expect(spaced.headers.get('link')).toBe(
      '</api/links?limit=1&offset=1&q=e&domain=https%3A%2F%2Fgo.example&view=full>; rel="next"',
    );
  });

  test('with q, the total is counted up to 2,000 past the offset and says when it stopped there', async () => {
    const app = await TestApp.init(mode);
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    const matching = COUNTED_AHEAD + 3;
    for (let at = 0; at < matching; at += 1000) {
      const links = Array.from({ length: Math.min(1000, matching - at) }, (_, i) => ({
        url: `https://example.com/spring/${at + i}`,
      }));
      const reply = await app.post('/api/links/bulk', { links }, { token: client.token });
      expect(reply.status).toBe(200);
    }
    await client.link('https://example.com/autumn');
    const first = await client.links('?q=spring&limit=50');
    expect(first.headers.get('x-total-count')).toBe(String(COUNTED_AHEAD));
    expect(first.headers.get('x-total-count-exact')).toBe('false');
    expect(first.headers.get('link')).toBe('</api/links?limit=50&offset=50&q=spring>; rel="next"');
    // The last page's total is exact, and has no next link.
    const last = await client.links(`?q=spring&limit=50&offset=${matching - 3}`);
    expect(last.headers.get('x-total-count')).toBe(String(matching));
    expect(last.headers.get('x-total-count-exact')).toBeNull();
    expect(last.headers.get('link')).toBeNull();
    expect(last.json).toHaveLength(3);
    // Exact when fewer match, and without q, however many.
    const few = await client.links('?q=autumn&limit=50');
    expect(few.headers.get('x-total-count')).toBe('1');
    expect(few.headers.get('x-total-count-exact')).toBeNull();
    const all = await client.links('?sort=code&limit=1');
    expect(all.headers.get('x-total-count')).toBe(String(matching + 1));
    expect(all.headers.get('x-total-count-exact')).toBeNull();
  });

  test('view=full gives each link as GET /api/links/{code} shows it', async () => {
    const { app, client, domain } = await seeded(mode);
    const zebraId = (await app.store.findLinkDetail('Zebra'))?.id as number;
    // A limit of its one click so far: expired at once.
    await app.store.updateLink(zebraId, { maxClicks: 1, expiresAt: Date.now() + 86_400_000 });
    const full = await client.links('?view=full');
    expect(full.status).toBe(200);
    expect(full.json).toHaveLength(6);
    for (const item of full.json) {
      const domainName = item.short_code === 'apple' || item.short_code === '9lives';
      const detail = await app.get(
        `/api/links/${item.short_code}${domainName ? `?domain=${domain.host}` : ''}`,
        { token: client.token },
      );
      if (detail.status === 200) expect(item).toEqual(detail.json);
      expect(item).toMatchObject({ short_code: item.short_code, password_protected: false });
    }
    const zebra = full.json.find((l: Json) => l.short_code === 'Zebra');
    expect(zebra).toMatchObject({ clicks: 1, max_clicks: 1, status: 'expired' });
    // The plain list's items are the link object alone.
    expect(Object.keys((await client.links()).json[0])).not.toContain('status');
    for (const bad of ['', 'FULL', 'compact']) {
      const reply = await client.links(`?view=${bad}`);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: VIEW_MSG });
    }
  });

  test.each([
    ['?sort=', SORT_MSG],
    ['?sort=name', SORT_MSG],
    ['?sort=Clicks', SORT_MSG],
    ['?order=up', SORT_MSG],
    ['?sort=code&order=', SORT_MSG],
    ['?sort=code&sort=clicks', SORT_MSG],
    ['?q=', Q_MSG],
    [`?q=${'x'.repeat(201)}`, Q_MSG],
    ['?q=a&q=b', Q_MSG],
    ['?tag=a&tag=b', TAG_MSG],
    ['?view=full&view=full', VIEW_MSG],
    // Paging is checked first, then the parameters in the order the document lists them.
    ['?limit=0&sort=name', 'limit must be 1 to 1000 and offset 0 or more'],
    ['?q=&tag=a%20b', Q_MSG],
    ['?tag=a%20b&sort=name', TAG_MSG],
    ['?sort=name&view=x', SORT_MSG],
  ])('%s is 400', async (query, message) => {
    const { client } = await seeded(mode);
    const reply = await client.links(query);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: message });
  });

  test('q of 200 characters, of any kind, is searched for', async () => {
    const { client } = await seeded(mode);
    const long = await client.links(`?q=${'é'.repeat(200)}`);
    expect(long.status).toBe(200);
    expect(long.json).toEqual([]);
    const astral = await client.links(`?q=${encodeURIComponent('😀'.repeat(200))}`);
    expect(astral.status).toBe(200);
  });
});

describe('GET /api/links: finding links in accounts mode', () => {
  test("every filter and order sees only the caller's links", async () => {
    const { app, client } = await seeded('accounts');
    for (const query of ['?q=spring', '?q=autumn', '?tag=promo', '?sort=clicks', '?sort=code']) {
      const reply = await client.links(query);
      expect(codesOf(reply)).not.toContain('spring-x');
      expect(codesOf(reply)).not.toContain('others');
      for (const link of reply.json) expect(link.user_id).toBe(client.user?.id);
    }
    expect((await client.links('?q=another')).json).toEqual([]);
    expect(await (await app.user()).links('?sort=clicks&view=full')).toMatchObject({
      status: 200,
      json: [],
    });
    expect((await app.anonymous().links('?q=spring')).status).toBe(401);
  });
});

/** Writes n links straight into the store, oldest first, every third tagged. */
async function seedMany(app: TestApp, n: number, owner: Client) {
  const links: NewLink[] = [];
  const base = Date.now() - n;
  for (let i = 0; i < n; i++) {
    links.push({
      userId: owner.user?.id ?? null,
      originalUrl: `https://example.com/many/${i}`,
      shortCode: `m${String(i).padStart(4, '0')}`,
      tags: i % 3 === 0 ? ['third'] : [],
      source: null,
      createdAt: base + i,
    });
  }
  for (let i = 0; i < n; i += LIST_CHUNK)
    await app.store.createLinks(links.slice(i, i + LIST_CHUNK));
}

describe('GET /api/links: a whole filtered list is streamed', () => {
  test('in every order and view, the pages concatenated, byte for byte', async () => {
    const app = await TestApp.init('open');
    const client = app.anonymous();
    await seedMany(app, 3 * 3 * LIST_CHUNK + 30, client);
    for (const query of [
      'tag=third',
      'tag=third&sort=code&order=desc',
      'q=many&sort=clicks',
      'tag=third&view=full&sort=clicks&order=asc',
    ]) {
      const whole = await client.links(`?${query}`);
      expect(whole.status).toBe(200);
      const pages: Json[] = [];
      for (let offset = 0; ; offset += 1000) {
        const page = (await client.links(`?${query}&limit=1000&offset=${offset}`)).json;
        pages.push(...page);
        if (page.length < 1000) break;
      }
      // A text's total is counted up to COUNTED_AHEAD; the list itself is whole.
      const bounded = query.startsWith('q=') && pages.length > COUNTED_AHEAD;
      expect(Number(whole.headers.get('x-total-count'))).toBe(
        bounded ? COUNTED_AHEAD : pages.length,
      );
      expect(whole.headers.get('x-total-count-exact')).toBe(bounded ? 'false' : null);
      expect(pages.length).toBeGreaterThan(2 * LIST_CHUNK);
      expect(whole.text).toBe(JSON.stringify(pages));
    }
  });
});
