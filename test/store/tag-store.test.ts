// Tags in the Store, on both databases directly: the tag list and a tag's traffic, owner
// by owner, before and after the rollup; and tag_days, the tags' sums of the day counts,
// equal to the sums made from scratch after every change of what it sums (the rollup, a
// change of a link's tags, a link's or a user's removal), also while several changes and
// rollup steps run at once on PostgreSQL.

import { describe, expect, onTestFinished, test } from 'bun:test';
import { DayTally, dayOf } from '../../src/analytics/fold.ts';
import { Dimension } from '../../src/domain/clicks.ts';
import { openPostgres, type PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { openSqlite, type SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  type Click,
  LINK_LIMIT_REACHED,
  type Link,
  type NewLink,
  type Store,
} from '../../src/store/store.ts';
import type { TagTraffic } from '../../src/store/tags.ts';
import { click, UA } from '../support/clicks.ts';
import { freshSchemaUrl } from '../support/postgres.ts';

type Backend = 'sqlite' | 'postgres';

/** A store whose click log moves only when the test calls rollUpClicks(). */
async function open(backend: Backend): Promise<Store> {
  const store =
    backend === 'sqlite'
      ? openSqlite({ path: ':memory:', durability: 'normal', rollup: { intervalMs: 0 } })
      : await openPostgres({ url: await freshSchemaUrl(), pool: 4, analyticsIntervalMs: 0 });
  onTestFinished(() => store.close());
  return store;
}

/** Rows of a query written with `?` placeholders, on either database. */
async function rows<Row = Record<string, unknown>>(store: Store, sql: string): Promise<Row[]> {
  if (store.kind === 'sqlite') return (store as SqliteStore).sqlite.query(sql).all() as Row[];
  return (store as PostgresStore).client.unsafe(sql);
}

/**
 * tag_days as kept, and as summed from scratch from the day counts and tags as they
 * stand: the two must always be equal (and kept rows at zero are left out of both).
 */
async function tagDaysAndSums(store: Store) {
  const columns = 'owner, tag, day, dimension, value, CAST(clicks AS INTEGER) AS clicks';
  const order = 'ORDER BY owner, tag, day, dimension, value';
  const kept = await rows(store, `SELECT ${columns} FROM tag_days WHERE clicks <> 0 ${order}`);
  const summed = await rows(
    store,
    `SELECT ${columns} FROM (
       SELECT coalesce(l.user_id, 0) AS owner, g.tag, d.day, d.dimension, d.value,
              sum(d.clicks) AS clicks
       FROM link_tags g JOIN links l ON l.id = g.link_id JOIN click_days d ON d.link_id = g.link_id
       GROUP BY 1, 2, 3, 4, 5) s ${order}`,
  );
  const zeros = await rows(store, 'SELECT tag FROM tag_days WHERE clicks = 0');
  return { kept, summed, zeros };
}

async function expectExactSums(store: Store): Promise<void> {
  const { kept, summed, zeros } = await tagDaysAndSums(store);
  expect(kept).toEqual(summed);
  expect(zeros).toEqual([]);
}

async function make(store: Store, shortCode: string, extra: Partial<NewLink> = {}): Promise<Link> {
  const [made] = await store.createLinks([
    {
      userId: null,
      originalUrl: 'https://x.example',
      shortCode,
      source: null,
      createdAt: 5,
      ...extra,
    },
  ]);
  if (made === undefined || made === LINK_LIMIT_REACHED) throw new Error(`${shortCode} not made`);
  return made;
}

async function rollUp(store: Store): Promise<void> {
  while ((await store.rollUpClicks()) > 0) {}
}

const DAY_1 = Date.parse('2025-06-01T10:00:00.000Z');
const DAY_2 = Date.parse('2025-06-02T10:00:00.000Z');
const [FIRST, LAST] = [dayOf(DAY_1), dayOf(DAY_2)];

/** `n` clicks of a link on the first day, and one on the second, from a phone. */
function clicksOf(linkId: number, n: number): Click[] {
  return [
    ...Array.from({ length: n }, (_, i) =>
      click(linkId, DAY_1 + i, {
        referrer: `https://r${i % 2}.example/`,
        userAgent: i % 3 === 0 ? UA.googlebot : UA.chrome,
        country: 'FR',
      }),
    ),
    click(linkId, DAY_2, { userAgent: UA.iphone, source: 'news' }),
  ];
}

/** A traffic's counts folded into one list, as stats fold them (rolled up or not). */
function folded(traffic: TagTraffic | undefined): ReturnType<DayTally['rows']> {
  if (traffic === undefined) throw new Error('no traffic');
  const tally = new DayTally();
  for (const row of traffic.days) tally.addCount(row);
  for (const row of traffic.pending) tally.addCount(row);
  return tally.rows();
}

/** Clicks (people and bots) of a traffic's counts. */
function total(traffic: TagTraffic | undefined): number {
  return folded(traffic)
    .filter((row) => row.dimension === Dimension.humans || row.dimension === Dimension.bots)
    .reduce((sum, row) => sum + row.clicks, 0);
}

describe.each(['sqlite', 'postgres'] as const)('tags in the store on %s', (backend) => {
  test('the tag list counts each owner’s links and their clicks, rolled up or not', async () => {
    const store = await open(backend);
    const ann = await store.createUser('ann@example.com', 'x');
    const bob = await store.createUser('bob@example.com', 'x');
    if (ann === undefined || bob === undefined) throw new Error('no users');
    const a = await make(store, 'a', { userId: ann.id, tags: ['promo', 'z-last'] });
    const b = await make(store, 'b', { userId: ann.id, tags: ['promo'] });
    await make(store, 'c', { userId: bob.id, tags: ['promo', 'bob'] });
    await make(store, 'd', { userId: null, tags: ['open'] });
    await make(store, 'untagged', { userId: ann.id });
    // Code-unit order, whatever the database's collation: - before 0 before _ before a.
    await make(store, 'order', { userId: ann.id, tags: ['a_b', 'ab', 'a-b', 'a0'] });
    await store.recordClicks([...clicksOf(a.id, 3), ...clicksOf(b.id, 1)]);

    const expected = [
      { tag: 'a-b', links: 1, clicks: 0 },
      { tag: 'a0', links: 1, clicks: 0 },
      { tag: 'a_b', links: 1, clicks: 0 },
      { tag: 'ab', links: 1, clicks: 0 },
      { tag: 'promo', links: 2, clicks: 6 },
      { tag: 'z-last', links: 1, clicks: 4 },
    ];
    expect(await store.listTags(ann.id)).toEqual(expected);
    await rollUp(store);
    expect(await store.listTags(ann.id)).toEqual(expected);
    expect(await store.listTags(bob.id)).toEqual([
      { tag: 'bob', links: 1, clicks: 0 },
      { tag: 'promo', links: 1, clicks: 0 },
    ]);
    expect((await store.listTags(null)).map((row) => [row.tag, row.links])).toEqual([
      ['a-b', 1],
      ['a0', 1],
      ['a_b', 1],
      ['ab', 1],
      ['bob', 1],
      ['open', 1],
      ['promo', 3],
      ['z-last', 1],
    ]);
    expect(await store.listTags(999)).toEqual([]);
  });

  test('a tag’s traffic sums its links’, the same before and after the rollup', async () => {
    const store = await open(backend);
    const ann = await store.createUser('ann@example.com', 'x');
    const bob = await store.createUser('bob@example.com', 'x');
    if (ann === undefined || bob === undefined) throw new Error('no users');
    const a = await make(store, 'a', { userId: ann.id, tags: ['promo'] });
    const b = await make(store, 'b', { userId: ann.id, tags: ['promo', 'other'] });
    const c = await make(store, 'c', { userId: bob.id, tags: ['promo'] });
    const d = await make(store, 'd', { userId: ann.id });
    await store.recordClicks([...clicksOf(a.id, 3), ...clicksOf(b.id, 2), ...clicksOf(c.id, 5)]);
    await store.recordClicks(clicksOf(d.id, 7));

    // What the two links' own traffic adds up to.
    const expected = new DayTally();
    for (const link of [a, b]) {
      const traffic = await store.linkTraffic(link.id, FIRST, LAST);
      for (const row of [...traffic.days, ...traffic.pending]) {
        expected.addCount({ ...row, linkId: 0 });
      }
    }
    const before = await store.tagTraffic('promo', ann.id, FIRST, LAST);
    expect(before?.days).toEqual([]);
    expect(folded(before)).toEqual(expected.rows());
    expect([before?.links, before?.clicks, total(before)]).toEqual([2, 7, 7]);

    await rollUp(store);
    const after = await store.tagTraffic('promo', ann.id, FIRST, LAST);
    expect(after?.pending).toEqual([]);
    expect(folded(after)).toEqual(expected.rows());
    expect([after?.links, after?.clicks]).toEqual([2, 7]);
    await expectExactSums(store);

    // A day outside the range is left out; open mode's owner (null) sums every owner's links.
    expect(total(await store.tagTraffic('promo', ann.id, LAST, LAST))).toBe(2);
    const everyone = await store.tagTraffic('promo', null, FIRST, LAST);
    expect([everyone?.links, everyone?.clicks, total(everyone)]).toEqual([3, 13, 13]);
    // Clicks after the rollup are added to the rolled-up ones.
    await store.recordClicks([click(a.id, DAY_1, { userAgent: UA.chrome })]);
    expect(total(await store.tagTraffic('promo', ann.id, FIRST, LAST))).toBe(8);

    // No link of the owner carries it: none at all.
    expect(await store.tagTraffic('bob-only', ann.id, FIRST, LAST)).toBeUndefined();
    expect(await store.tagTraffic('other', bob.id, FIRST, LAST)).toBeUndefined();
    expect(await store.tagTraffic('nothing', null, FIRST, LAST)).toBeUndefined();
  });

  test('a change of a link’s tags moves its rolled-up clicks from the tags it lost to those it gained', async () => {
    const store = await open(backend);
    const a = await make(store, 'a', { tags: ['old', 'kept'] });
    const b = await make(store, 'b', { tags: ['old'] });
    await store.recordClicks([...clicksOf(a.id, 4), ...clicksOf(b.id, 1)]);
    await rollUp(store);
    expect(total(await store.tagTraffic('old', null, FIRST, LAST))).toBe(7);

    await store.updateLink(a.id, { tags: ['kept', 'new'] });
    await expectExactSums(store);
    expect(total(await store.tagTraffic('old', null, FIRST, LAST))).toBe(2);
    expect(total(await store.tagTraffic('kept', null, FIRST, LAST))).toBe(5);
    expect(total(await store.tagTraffic('new', null, FIRST, LAST))).toBe(5);

    // Clicks not rolled up follow the tags too, and are rolled up into the new ones.
    await store.recordClicks(clicksOf(a.id, 1));
    await store.updateLink(a.id, { tags: ['new'] });
    expect(total(await store.tagTraffic('new', null, FIRST, LAST))).toBe(7);
    expect(await store.tagTraffic('kept', null, FIRST, LAST)).toBeUndefined();
    await rollUp(store);
    expect(total(await store.tagTraffic('new', null, FIRST, LAST))).toBe(7);
    await expectExactSums(store);

    // Other changes leave tags and their sums as they are; no tags at all empties them.
    await store.updateLink(a.id, { originalUrl: 'https://y.example' });
    expect(total(await store.tagTraffic('new', null, FIRST, LAST))).toBe(7);
    await store.updateLink(a.id, { tags: [] });
    expect(await store.tagTraffic('new', null, FIRST, LAST)).toBeUndefined();
    await expectExactSums(store);
  });

  test('a link’s removal takes its clicks away from its tags', async () => {
    const store = await open(backend);
    const a = await make(store, 'a', { tags: ['promo'] });
    const b = await make(store, 'b', { tags: ['promo'] });
    await store.recordClicks([...clicksOf(a.id, 4), ...clicksOf(b.id, 1)]);
    await rollUp(store);
    await store.recordClicks(clicksOf(a.id, 1));
    expect(await store.deleteLink(a.id)).toBe(true);
    const left = await store.tagTraffic('promo', null, FIRST, LAST);
    expect([left?.links, left?.clicks, total(left)]).toEqual([1, 2, 2]);
    await rollUp(store);
    await expectExactSums(store);
    expect(await store.listTags(null)).toEqual([{ tag: 'promo', links: 1, clicks: 2 }]);
  });

  test('a user’s removal takes their tags’ clicks away, or hands them to no one with the links', async () => {
    const store = await open(backend);
    const ann = await store.createUser('ann@example.com', 'x');
    const bob = await store.createUser('bob@example.com', 'x');
    if (ann === undefined || bob === undefined) throw new Error('no users');
    const a = await make(store, 'a', { userId: ann.id, tags: ['promo'] });
    const b = await make(store, 'b', { userId: bob.id, tags: ['promo'] });
    const c = await make(store, 'c', { userId: null, tags: ['promo'] });
    await store.recordClicks([...clicksOf(a.id, 1), ...clicksOf(b.id, 2), ...clicksOf(c.id, 3)]);
    await rollUp(store);

    await store.removeUser('ann@example.com', 'delete');
    await expectExactSums(store);
    expect(total(await store.tagTraffic('promo', null, FIRST, LAST))).toBe(7);

    await store.removeUser('bob@example.com', 'keep');
    await expectExactSums(store);
    const noOnes = await store.tagTraffic('promo', null, FIRST, LAST);
    expect([noOnes?.links, total(noOnes)]).toEqual([2, 7]);
    expect(await rows(store, `SELECT DISTINCT owner FROM tag_days`)).toEqual([{ owner: 0 }]);
  });
});

describe('on PostgreSQL, tag changes while instances roll clicks up', () => {
  test('the sums stay exact', async () => {
    const url = await freshSchemaUrl();
    const instance = async (): Promise<Store> => {
      const store = await openPostgres({ url, pool: 4, analyticsIntervalMs: 0 });
      onTestFinished(() => store.close());
      return store;
    };
    const [one, two] = [await instance(), await instance()];
    const links = await Promise.all(
      Array.from({ length: 8 }, (_, i) => make(one, `l${i}`, { tags: ['t0'] })),
    );
    for (let round = 0; round < 6; round++) {
      await one.recordClicks(links.flatMap((link) => clicksOf(link.id, 30)));
      // Two instances' rollups, retags and a removal, all at once.
      await Promise.all([
        rollUp(one),
        rollUp(two),
        ...links.map((link, i) =>
          (i % 2 === 0 ? one : two).updateLink(link.id, {
            tags: [`t${(round + i) % 3}`, ...(i % 3 === 0 ? ['x'] : [])],
          }),
        ),
      ]);
      await expectExactSums(one);
    }
    const doomed = links.pop() as Link;
    await one.recordClicks(clicksOf(doomed.id, 50));
    await Promise.all([rollUp(two), one.deleteLink(doomed.id)]);
    await rollUp(one);
    await expectExactSums(one);
    const everyTag = await one.listTags(null);
    expect(everyTag.reduce((sum, row) => sum + row.clicks, 0)).toBeGreaterThan(0);
  }, 60_000);
});
