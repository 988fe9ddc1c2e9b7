// The search of the list of links (Store.searchLinks, searchLinkDetails) on both
// databases: every filter alone and together, every order both ways, pages, totals and
// cursors, each against the same list worked out here from the links as they were made.

import { describe, expect, test } from 'bun:test';
import {
  COUNTED_AHEAD,
  type LinkSearch,
  type LinkSort,
  type SearchCursor,
} from '../../src/store/link-search.ts';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import {
  type Click,
  LINK_LIMIT_REACHED,
  type Link,
  type NewLink,
  type Store,
} from '../../src/store/store.ts';
import { eventually } from '../support/binary.ts';
import { stillStore } from '../support/stores.ts';

const click = (linkId: number): Click => ({
  linkId,
  source: null,
  querySource: null,
  referrer: null,
  userAgent: null,
  createdAt: 1_795_000_000_000,
  address: null,
  country: null,
  limited: false,
});

/** A link as made here, with what the search looks at. */
interface Made extends Link {
  tags: string[];
}

/**
 * Links of two owners and no one, on two domains, with tags, clicks (some rolled up, some
 * still in the log) and created_at ties. Codes hold every kind of character a code may.
 */
async function seed(store: Store) {
  const ann = (await store.createUser('ann@example.com', 'h'))?.id as number;
  const bob = (await store.createUser('bob@example.com', 'h'))?.id as number;
  const codes = ['Zeta', 'alpha', '_under', '-dash', '9nine', 'Alpha', 'beta', 'a%b', 'x_y'];
  const urls = [
    'https://Example.com/SPRING/sale',
    'https://shop.example/autumn',
    'https://example.org/spring',
    'https://news.example/100%25',
    'https://example.net/a_b',
    'https://example.net/axb',
    'https://blog.example/back\\slash',
    'https://example.com/',
    'https://example.com/other',
  ];
  const made: Made[] = [];
  for (let i = 0; i < 24; i++) {
    const tags = [
      ...(i % 3 === 0 ? ['promo'] : []),
      ...(i === 7 ? ['rare'] : []),
      ...(i === 5 ? ['spring'] : []),
    ];
    const owner = [ann, bob, null][i % 3] as number | null;
    const link: NewLink = {
      userId: owner,
      domainId: i % 4 === 0 ? 1 : 0,
      originalUrl: urls[i % urls.length] as string,
      shortCode: `${codes[i % codes.length]}${i >= codes.length ? i : ''}`,
      tags,
      source: null,
      // Pairs made at the same moment: the id breaks the tie.
      createdAt: 1_000 + Math.floor(i / 2),
    };
    const [stored] = await store.createLinks([link]);
    if (stored === undefined || stored === LINK_LIMIT_REACHED) throw new Error('not made');
    made.push({ ...stored, tags });
  }
  // Clicks: some links several, some one, most none; ties in count among them.
  const clicks: Click[] = [];
  const counts = [5, 0, 3, 3, 0, 1, 9, 0, 1, 0, 0, 2, 0, 7, 0, 0, 3, 0, 0, 1, 0, 0, 0, 4];
  counts.forEach((n, i) => {
    for (let k = 0; k < n; k++) clicks.push(click((made[i] as Made).id));
  });
  await store.recordClicks(clicks);
  await store.rollUpClicks();
  for (const [i, n] of counts.entries()) (made[i] as Made).clicks = n;
  // One more click of a link with none, not rolled up: shown, but not yet in the order.
  const late = made[20] as Made;
  await store.recordClicks([click(late.id)]);
  return { ann, bob, made, late };
}

/** The list the store should answer, worked out from the links as made. */
function expected(made: readonly Made[], search: LinkSearch, rolledUp: (l: Made) => number) {
  const text = search.text?.toLowerCase();
  const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const kept = made.filter(
    (l) =>
      (search.owner === null || l.userId === search.owner) &&
      (search.domainId === undefined || l.domainId === search.domainId) &&
      (search.tag === undefined || l.tags.includes(search.tag)) &&
      (text === undefined ||
        asciiLower(l.shortCode).includes(text) ||
        asciiLower(l.originalUrl).includes(text) ||
        l.tags.includes(text)),
  );
  const key = (l: Made): number | string =>
    search.sort === 'created' ? l.createdAt : search.sort === 'code' ? l.shortCode : rolledUp(l);
  const bytes = (s: string) => Buffer.from(s);
  kept.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const byKey =
      typeof x === 'string' ? Buffer.compare(bytes(x), bytes(y as string)) : x - (y as number);
    return (search.descending ? -1 : 1) * (byKey !== 0 ? byKey : a.id - b.id);
  });
  return kept.map(({ tags: _, ...link }) => link);
}

const SORTS: [LinkSort, boolean][] = [
  ['created', true],
  ['created', false],
  ['code', true],
  ['code', false],
  ['clicks', true],
  ['clicks', false],
];

describe.each(['sqlite', 'postgres'] as const)('Searching the list on %s', (backend) => {
  test('each filter alone and together, in every order, with its total', async () => {
    const store = await stillStore(backend);
    const { ann, bob, made, late } = await seed(store);
    const rolledUp = (l: Made) => (l.id === late.id ? 0 : l.clicks);
    const shown = made.map((l) => (l.id === late.id ? { ...l, clicks: 1 } : l));
    const filters: Omit<LinkSearch, 'sort' | 'descending' | 'limit'>[] = [
      { owner: null },
      { owner: ann },
      { owner: null, text: 'spring' },
      { owner: null, text: 'ALPHA' },
      { owner: null, text: '%' },
      { owner: null, text: '_' },
      { owner: null, text: '\\' },
      { owner: null, text: 'a_b' },
      { owner: null, text: 'PROMO' },
      { owner: null, text: 'nothing-matches' },
      { owner: null, domainId: 1 },
      { owner: null, domainId: 7 },
      { owner: null, tag: 'promo' },
      { owner: null, tag: 'rare' },
      { owner: bob, tag: 'promo' },
      { owner: ann, domainId: 0, text: 'example.com' },
      { owner: null, domainId: 1, tag: 'promo', text: 'e' },
    ];
    for (const filter of filters) {
      for (const [sort, descending] of SORTS) {
        const search = { ...filter, sort, descending, limit: 100 };
        const want = expected(shown as Made[], search, rolledUp);
        const found = await store.searchLinks(search);
        const what = `${JSON.stringify(filter)} by ${sort} ${descending ? 'desc' : 'asc'}`;
        expect({ what, links: found.links }).toEqual({ what, links: want });
        expect({ what, total: found.total }).toEqual({ what, total: want.length });
      }
    }
  });

  test('pages skip and cut; cursors walk the whole list in the same order, by every sort', async () => {
    const store = await stillStore(backend);
    await seed(store);
    for (const [sort, descending] of SORTS) {
      for (const filter of [{}, { tag: 'promo' }, { text: 'example' }]) {
        const search: LinkSearch = { owner: null, ...filter, sort, descending, limit: 100 };
        const whole = (await store.searchLinks(search)).links;
        const page = await store.searchLinks({ ...search, limit: 4, offset: 3 });
        expect(page.links).toEqual(whole.slice(3, 7));
        expect(page.total).toBe(whole.length);
        expect(page.last).toEqual({
          key: expect.anything(),
          id: (whole[6] as Link).id,
        });
        const walked: Link[] = [];
        let after: SearchCursor | undefined;
        for (;;) {
          const chunk = await store.searchLinks({ ...search, limit: 3, after });
          if (after !== undefined) expect(chunk.total).toBeUndefined();
          walked.push(...chunk.links);
          if (chunk.links.length < 3) break;
          after = chunk.last;
        }
        expect({ sort, descending, filter, walked }).toEqual({
          sort,
          descending,
          filter,
          walked: whole,
        });
      }
    }
    const beyond = await store.searchLinks({
      owner: null,
      sort: 'clicks',
      descending: true,
      limit: 5,
      offset: 100,
    });
    expect(beyond).toEqual({ links: [], total: 24, bounded: false, last: undefined });
  });

  test('details carry every setting and the tags, as findLinkDetail reads them', async () => {
    const store = await stillStore(backend);
    const { made } = await seed(store);
    const search: LinkSearch = {
      owner: null,
      tag: 'promo',
      sort: 'code',
      descending: false,
      limit: 50,
    };
    const found = await store.searchLinkDetails(search);
    expect(found.total).toBe(made.filter((l) => l.tags.includes('promo')).length);
    for (const detail of found.links) {
      expect(detail).toEqual(
        (await store.findLinkDetail(detail.shortCode, detail.domainId)) as never,
      );
    }
    const spring = await store.searchLinkDetails({ ...search, tag: 'spring' });
    expect(spring.links.map((l) => l.tags)).toEqual([['spring']]);
    // The plain search and the details agree on which links, in which order.
    const plain = await store.searchLinks(search);
    expect(found.links.map((l) => l.id)).toEqual(plain.links.map((l) => l.id));
  });

  test('a text is found in targets as they are now: changed, removed, and with any character', async () => {
    const store = await stillStore(backend);
    const { made } = await seed(store);
    const find = async (text: string) =>
      (
        await store.searchLinks({ owner: null, text, sort: 'code', descending: false, limit: 50 })
      ).links.map((l) => l.shortCode);
    const zeta = made[0] as Made;
    expect(await find('SPRING/sale')).toEqual(['Zeta', 'Zeta18', 'Zeta9']);
    await store.updateLink(zeta.id, { originalUrl: 'https://example.com/winter-"quoted"-sale' });
    expect(await find('SPRING/sale')).toEqual(['Zeta18', 'Zeta9']);
    expect(await find('winter-"quoted"')).toEqual(['Zeta']);
    expect(await find('"quoted" AND x')).toEqual([]);
    await store.deleteLink(zeta.id);
    expect(await find('winter')).toEqual([]);
    // Texts FTS5's query syntax would not take are still searched for.
    expect(await find('\u0001ab')).toEqual([]);
    expect(await find('a%b')).toEqual(['a%b', 'a%b16']);
  });

  test('the order by clicks follows the rollup; the clicks shown are exact at once', async () => {
    const store = await stillStore(backend);
    const { made, late } = await seed(store);
    const top = { owner: null, sort: 'clicks', descending: true, limit: 1 } as const;
    expect((await store.searchLinks(top)).links[0]?.clicks).toBe(9);
    for (let i = 0; i < 10; i++) await store.recordClicks([click(late.id)]);
    const before = await store.searchLinks({ ...top, limit: 30 });
    expect(before.links.find((l) => l.id === late.id)?.clicks).toBe(11);
    expect(before.links[0]?.id).not.toBe(late.id);
    await store.rollUpClicks();
    const after = await store.searchLinks(top);
    expect(after.links).toEqual([expect.objectContaining({ id: late.id, clicks: 11 })]);
    // A deleted link leaves the order, whatever its counts left behind.
    await store.deleteLink(late.id);
    const gone = await store.searchLinks({ ...top, limit: 30 });
    expect(gone.links.map((l) => l.id)).not.toContain(late.id);
    expect(gone.total).toBe(made.length - 1);
  });

  test('a text counts its matches up to COUNTED_AHEAD past the offset; other filters count all', async () => {
    const store = await stillStore(backend);
    const matching = COUNTED_AHEAD + 10;
    const links = Array.from(
      { length: matching + 5 },
      (_, i): NewLink => ({
        userId: null,
        originalUrl: `https://example.com/${i < matching ? 'spring' : 'autumn'}/${i}`,
        shortCode: `c${i}`,
        source: null,
        createdAt: 1_795_000_000_000 + i,
        tags: i < matching ? ['season'] : [],
      }),
    );
    for (let at = 0; at < links.length; at += 500) {
      await store.createLinks(links.slice(at, at + 500));
    }
    const search = (filter: Partial<LinkSearch>) =>
      store.searchLinks({ owner: null, sort: 'created', descending: true, limit: 10, ...filter });
    const first = await search({ text: 'spring' });
    expect([first.total, first.bounded, first.links.length]).toEqual([COUNTED_AHEAD, true, 10]);
    expect(first.links[0]?.shortCode).toBe(`c${matching - 1}`);
    // Further on the bound moves with the offset; once past the last match it is exact.
    const later = await search({ text: 'spring', offset: 5 });
    expect([later.total, later.bounded]).toEqual([COUNTED_AHEAD + 5, true]);
    const near = await search({ text: 'spring', offset: 10 });
    expect([near.total, near.bounded]).toEqual([matching, false]);
    // With other filters too, and in another order.
    const tagged = await search({ text: 'spring', tag: 'season', sort: 'code' });
    expect([tagged.total, tagged.bounded]).toEqual([COUNTED_AHEAD, true]);
    // Fewer matches than the bound: exact. Without a text: exact, however many.
    const few = await search({ text: 'autumn' });
    expect([few.total, few.bounded]).toEqual([5, false]);
    const tag = await search({ tag: 'season' });
    expect([tag.total, tag.bounded]).toEqual([matching, false]);
    const all = await search({ sort: 'code' });
    expect([all.total, all.bounded]).toEqual([links.length, false]);
  });

  test('the totals of one domain and one tag follow links and tags made, changed and removed', async () => {
    const store = await stillStore(backend);
    const { made } = await seed(store);
    const total = async (filter: Partial<LinkSearch>) =>
      (
        await store.searchLinks({
          owner: null,
          sort: 'created',
          descending: true,
          limit: 1,
          ...filter,
        })
      ).total;
    expect(await total({ domainId: 1 })).toBe(6);
    expect(await total({ tag: 'promo' })).toBe(8);
    const [first, second] = made as [Made, Made];
    await store.updateLink(second.id, { tags: ['promo', 'new'] });
    await store.updateLink(first.id, { tags: [] });
    expect([await total({ tag: 'promo' }), await total({ tag: 'new' })]).toEqual([8, 1]);
    await store.deleteLink(first.id);
    await store.deleteLink(second.id);
    expect([await total({ tag: 'promo' }), await total({ tag: 'new' })]).toEqual([7, 0]);
    expect(await total({ domainId: 1 })).toBe(5);
    expect(await total({})).toBe(made.length - 2);
  });
});

describe('PostgreSQL: the trigram indexes', () => {
  test("a second after links are made, their pending lists are merged, off the insert's path", async () => {
    const store = (await stillStore('postgres')) as PostgresStore;
    const batch = (from: number) =>
      Array.from(
        { length: 1000 },
        (_, i): NewLink => ({
          userId: null,
          originalUrl: `https://example.com/spring/${from + i}?utm_source=newsletter`,
          shortCode: `m${from + i}`,
          source: null,
          createdAt: 1_795_000_000_000 + from + i,
        }),
      );
    const merge = async () =>
      (
        await store.client`
          SELECT gin_clean_pending_list('links_url_trgm'::regclass)::int AS url,
                 gin_clean_pending_list('links_code_trgm'::regclass)::int AS code`
      )[0] as { url: number; code: number };
    // An insert leaves its trigrams in the pending lists.
    await store.createLinks(batch(0));
    const pending = await merge();
    expect(pending.url).toBeGreaterThan(0);
    expect(pending.code).toBeGreaterThan(0);
    await eventually(async () => store.searchUpkeep.merges === 1, 'the first merge');
    // The store merges them itself a moment after links are made.
    await store.createLinks(batch(1000));
    await eventually(async () => store.searchUpkeep.merges === 2, 'a merge after the links');
    expect(await merge()).toEqual({ url: 0, code: 0 });
    const found = await store.searchLinks({
      owner: null,
      text: 'spring/99?',
      sort: 'created',
      descending: true,
      limit: 10,
    });
    expect(found.links.map((l) => l.shortCode)).toEqual(['m99']);
  });
});
