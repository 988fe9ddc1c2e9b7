// The analytics side of the Store, on both databases directly: the rollup moves each click
// out of the log exactly once, into one compact click record (strings and user agents
// stored once, referred to by id) and the day counts stats read. On SQLite the counts file
// is reseeded from those rollups when it is lost or behind them.

import { describe, expect, onTestFinished, test } from 'bun:test';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { DayTally, dayOf } from '../../src/analytics/fold.ts';
import { Dimension } from '../../src/domain/clicks.ts';
import { openPostgres, type PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { openSqlite, type SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  type Click,
  LINK_LIMIT_REACHED,
  type Link,
  type LinkTraffic,
  type Store,
} from '../../src/store/store.ts';
import { tempDir } from '../support/cleanup.ts';
import { click, UA } from '../support/clicks.ts';
import { freshSchemaUrl } from '../support/postgres.ts';

type Backend = 'sqlite' | 'postgres';

/** A store whose click log moves only when the test calls rollUpClicks(). */
async function open(backend: Backend, url?: string): Promise<Store> {
  const store =
    backend === 'sqlite'
      ? openSqlite({ path: ':memory:', durability: 'normal', rollup: { intervalMs: 0 } })
      : await openPostgres({
          url: url ?? (await freshSchemaUrl()),
          pool: 2,
          analyticsIntervalMs: 0,
        });
  onTestFinished(() => store.close());
  return store;
}

/** Rows of a query written with `?` placeholders, on either database. */
async function rows<Row = Record<string, unknown>>(
  store: Store,
  sql: string,
  params: (string | number)[] = [],
): Promise<Row[]> {
  if (store.kind === 'sqlite') {
    return (store as SqliteStore).sqlite.query(sql).all(...params) as Row[];
  }
  let n = 0;
  return (store as PostgresStore).client.unsafe(
    sql.replace(/\?/g, () => `$${++n}`),
    params,
  );
}

/** Rows in each analytics table (and the log), as integers on both databases. */
async function tableRows(store: Store) {
  const count = async (table: string) =>
    (await rows<{ n: number }>(store, `SELECT CAST(count(*) AS INTEGER) AS n FROM ${table}`))[0]?.n;
  return {
    clicks: await count('clicks'),
    click_records: await count('click_records'),
    click_days: await count('click_days'),
    click_strings: await count('click_strings'),
    click_agents: await count('click_agents'),
  };
}

/** A link's clicks as its day rollups add them up (people and bots). */
async function rolledUpClicks(store: Store, linkId: number): Promise<number> {
  const [row] = await rows<{ n: number | null }>(
    store,
    'SELECT CAST(sum(clicks) AS INTEGER) AS n FROM click_days WHERE link_id = ? AND dimension IN (0, 1)',
    [linkId],
  );
  return row?.n ?? 0;
}

/** The sources of a link's clicks not rolled up yet, as their day counts name them. */
function pendingSources(traffic: LinkTraffic): string[] {
  return traffic.pending
    .filter((row) => row.dimension === Dimension.source)
    .map((row) => row.value);
}

async function make(store: Store, shortCode: string): Promise<Link> {
  const [made] = await store.createLinks([
    { userId: null, originalUrl: 'https://x.example', shortCode, source: null, createdAt: 5 },
  ]);
  if (made === undefined || made === LINK_LIMIT_REACHED) throw new Error(`${shortCode} not made`);
  return made;
}

const DAY_1 = Date.parse('2025-06-01T10:00:00.000Z');
const DAY_2 = Date.parse('2025-06-02T10:00:00.000Z');

/** Five clicks of two links over two days, most values repeated. */
function traffic(a: number, b: number): Click[] {
  const chrome = {
    source: 'news',
    referrer: 'https://r.example/1',
    userAgent: UA.chrome,
    country: 'FR',
  };
  return [
    click(a, DAY_1, chrome),
    click(a, DAY_1 + 1, { ...chrome, querySource: 'q' }),
    click(a, DAY_1 + 2, { userAgent: UA.googlebot }),
    click(b, DAY_1 + 3, {
      source: 'news',
      referrer: 'https://r.example/2',
      userAgent: UA.iphone,
      country: 'DE',
    }),
    click(b, DAY_2, {}),
  ];
}

describe.each(['sqlite', 'postgres'] as const)('analytics store on %s', (backend) => {
  test('a backlog is folded as the rollup folds it, however many distinct values it holds', async () => {
    const store = await open(backend);
    const [a, other] = [await make(store, 'a'), await make(store, 'other')];
    // More distinct values than PostgreSQL fetches at once.
    const n = 10_000;
    const agents = [UA.chrome, UA.iphone, UA.googlebot, null, ''];
    const referrers = (i: number) =>
      [null, '', 'not a url', 'about:blank', `https://h${i % 50}.example/${i % 7}`][i % 5] ?? null;
    const backlog = Array.from({ length: n }, (_, i) =>
      click(a.id, DAY_1 + (i % 3) * 86_400_000 + i, {
        source: [null, 'news', ''][i % 3] ?? null,
        querySource: i % 4 === 0 ? null : `q${i}`,
        referrer: referrers(i),
        userAgent: agents[i % agents.length] ?? null,
        country: [null, 'FR', 'DE', 'NL'][i % 4] ?? null,
      }),
    );
    for (let i = 0; i < n; i += 2000) await store.recordClicks(backlog.slice(i, i + 2000));
    // Neither another link's clicks nor a day outside the range count.
    await store.recordClicks([
      click(other.id, DAY_1, { source: 'news' }),
      click(a.id, DAY_1 + 5 * 86_400_000, { source: 'later' }),
    ]);
    const [first, last] = [dayOf(DAY_1), dayOf(DAY_1) + 2];

    const expected = new DayTally();
    for (const [i, row] of backlog.entries()) expected.add({ ...row, id: i + 1 });
    const pending = await store.linkTraffic(a.id, first, last);
    expect(pending.days).toEqual([]);
    expect(pending.pending).toEqual(expected.rows());

    while ((await store.rollUpClicks()) > 0) {}
    const moved = await store.linkTraffic(a.id, first, last);
    expect(moved.pending).toEqual([]);
    const rolledUp = new DayTally();
    for (const row of moved.days) rolledUp.addCount(row);
    expect(rolledUp.rows()).toEqual(expected.rows());
  }, 60_000);

  test('the rollup moves each click out of the log exactly once, into one record and the day counts', async () => {
    const store = await open(backend);
    const [a, b] = [await make(store, 'a'), await make(store, 'b')];
    await store.recordClicks(traffic(a.id, b.id));
    const logIds = (await rows<{ id: number }>(store, 'SELECT id FROM clicks ORDER BY id')).map(
      (r) => Number(r.id),
    );
    expect(logIds).toHaveLength(5);

    expect(await store.rollUpClicks()).toBe(5);
    const once = await tableRows(store);
    expect([once.clicks, once.click_records]).toEqual([0, 5]);
    expect(
      (await rows<{ id: number }>(store, 'SELECT id FROM click_records ORDER BY id')).map((r) =>
        Number(r.id),
      ),
    ).toEqual(logIds);
    expect([await rolledUpClicks(store, a.id), await rolledUpClicks(store, b.id)]).toEqual([3, 2]);

    // Nothing left to move: a second rollup changes nothing.
    expect(await store.rollUpClicks()).toBe(0);
    expect(await tableRows(store)).toEqual(once);

    // The same clicks again: new records, but the day rows they fall in are added to.
    await store.recordClicks(traffic(a.id, b.id));
    expect(await store.rollUpClicks()).toBe(5);
    expect(await tableRows(store)).toEqual({
      ...once,
      click_records: 10,
    });
    expect([await rolledUpClicks(store, a.id), await rolledUpClicks(store, b.id)]).toEqual([6, 4]);
    const traffic1 = await store.linkTraffic(a.id, 0, 100_000);
    expect(traffic1.pending).toEqual([]);
    const totals = traffic1.days.filter((d) => d.dimension <= 1);
    expect(totals.sort((x, y) => x.dimension - y.dimension)).toEqual([
      { linkId: a.id, day: Math.floor(DAY_1 / 86_400_000), dimension: 0, value: '', clicks: 4 },
      { linkId: a.id, day: Math.floor(DAY_1 / 86_400_000), dimension: 1, value: '', clicks: 2 },
    ]);
  });

  test('each string and user agent is stored once, however many clicks carry it', async () => {
    const store = await open(backend);
    const [a, b] = [await make(store, 'a'), await make(store, 'b')];
    await store.recordClicks(traffic(a.id, b.id));
    await store.rollUpClicks();
    await store.recordClicks(traffic(a.id, b.id));
    await store.rollUpClicks();

    const strings = (await rows<{ value: string }>(store, 'SELECT value FROM click_strings'))
      .map((r) => r.value)
      .sort();
    expect(strings).toEqual(
      [
        // Sources, ?source= and referrers as the clicks carried them…
        'news',
        'q',
        'https://r.example/1',
        'https://r.example/2',
        // …and the values the day counts group by.
        'r.example',
        'direct',
        'Chrome',
        'Mobile Safari',
        'Unknown',
        'Windows',
        'iOS',
        'desktop',
        'mobile',
        'bot',
        'default',
        'unknown',
        'FR',
        'DE',
      ].sort(),
    );
    const agents = await rows<{
      value: string;
      browser: string;
      os: string;
      device: string;
      bot: unknown;
    }>(store, 'SELECT value, browser, os, device, bot FROM click_agents');
    expect(
      agents
        .map((r) => ({ ...r, bot: Boolean(r.bot) }))
        .sort((x, y) => x.value.localeCompare(y.value)),
    ).toEqual(
      [
        { value: UA.chrome, browser: 'Chrome', os: 'Windows', device: 'desktop', bot: false },
        { value: UA.iphone, browser: 'Mobile Safari', os: 'iOS', device: 'mobile', bot: false },
        { value: UA.googlebot, browser: 'Unknown', os: 'Unknown', device: 'bot', bot: true },
      ].sort((x, y) => x.value.localeCompare(y.value)),
    );
    // Records refer to them: the export reads the clicks back whole.
    const exported = await store.clickRows(a.id, 0, 100);
    expect(exported.map(({ id: _, ...row }) => row)).toEqual(
      [...traffic(a.id, b.id), ...traffic(a.id, b.id)]
        .filter((c) => c.linkId === a.id)
        .map(({ address: _a, limited: _l, ...row }) => ({ ...row, route: row.route ?? null })),
    );
  });

  test('clicks of a link deleted before they were moved are dropped', async () => {
    const store = await open(backend);
    const [gone, kept] = [await make(store, 'gone'), await make(store, 'kept')];
    await store.recordClicks([click(gone.id, DAY_1), click(kept.id, DAY_1)]);
    expect(await store.deleteLink(gone.id)).toBe(true);
    // Committed just after the delete: the redirect had resolved the link before it.
    await store.recordClicks([click(gone.id, DAY_1 + 1), click(kept.id, DAY_1 + 1)]);

    await store.rollUpClicks();
    expect(await tableRows(store)).toMatchObject({ clicks: 0, click_records: 2 });
    const linkIds = async (table: string) =>
      (await rows<{ id: number }>(store, `SELECT DISTINCT link_id AS id FROM ${table}`)).map((r) =>
        Number(r.id),
      );
    expect(await linkIds('click_records')).toEqual([kept.id]);
    expect(await linkIds('click_days')).toEqual([kept.id]);
    expect(await rolledUpClicks(store, kept.id)).toBe(2);
  });

  test('a click recorded after the rollup emptied the log is counted, shown and moved like any other', async () => {
    const store = await open(backend);
    const a = await make(store, 'a');
    await store.recordClicks([click(a.id, DAY_1), click(a.id, DAY_1 + 1)]);
    expect(await store.rollUpClicks()).toBe(2);
    expect((await tableRows(store)).clicks).toBe(0);

    await store.recordClicks([click(a.id, DAY_1 + 2, { source: 'after' })]);
    expect((await store.findLinkDetail('a'))?.clicks).toBe(3);
    expect(pendingSources(await store.linkTraffic(a.id, 0, 100_000))).toEqual(['after']);
    expect((await store.clickRows(a.id, 0, 100)).map((row) => row.createdAt)).toEqual([
      DAY_1,
      DAY_1 + 1,
      DAY_1 + 2,
    ]);
    expect(await store.rollUpClicks()).toBe(1);
    expect(await tableRows(store)).toMatchObject({ clicks: 0, click_records: 3 });
    expect(await rolledUpClicks(store, a.id)).toBe(3);
  });

  test('the export pages through records, then the log, oldest first', async () => {
    const store = await open(backend);
    const a = await make(store, 'a');
    const times = Array.from({ length: 7 }, (_, i) => DAY_1 + i);
    await store.recordClicks(times.slice(0, 4).map((t) => click(a.id, t)));
    await store.rollUpClicks();
    await store.recordClicks(times.slice(4).map((t) => click(a.id, t)));
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const page = await store.clickRows(a.id, after, 3);
      seen.push(...page.map((row) => row.createdAt));
      if (page.length < 3) break;
      after = page.at(-1)?.id as number;
    }
    expect(seen).toEqual(times);
  });
});

describe('on SQLite, the counts file is reseeded from the rollups on reopen', () => {
  const openFile = (path: string) =>
    openSqlite({ path, durability: 'normal', rollup: { intervalMs: 0 } });
  const clicksOf = async (store: Store, code: string) => (await store.findLinkDetail(code))?.clicks;
  const removeCounts = (path: string) => {
    for (const side of ['', '-wal', '-shm']) rmSync(`${path}-counts${side}`, { force: true });
  };

  test('when it is lost', async () => {
    const path = join(tempDir(), 'k.db');
    let store = openFile(path);
    const [a, b] = [await make(store, 'a'), await make(store, 'b')];
    await store.recordClicks([click(a.id, DAY_1), click(a.id, DAY_1), click(b.id, DAY_2)]);
    expect(await store.rollUpClicks()).toBe(3);
    await store.close();
    removeCounts(path);

    // The log no longer holds those clicks: only the rollups know them.
    store = openFile(path);
    expect([await clicksOf(store, 'a'), await clicksOf(store, 'b')]).toEqual([2, 1]);
    await store.close();
  });

  test('when it is behind them (restored from before later rollups)', async () => {
    const path = join(tempDir(), 'k.db');
    let store = openFile(path);
    const [a, b] = [await make(store, 'a'), await make(store, 'b')];
    // Counted (closing folds the counts), not yet moved.
    await store.recordClicks([click(a.id, DAY_1), click(a.id, DAY_1)]);
    await store.close();
    copyFileSync(`${path}-counts`, `${path}-counts.old`);

    store = openFile(path);
    await store.recordClicks([click(a.id, DAY_2), click(b.id, DAY_2), click(b.id, DAY_2)]);
    expect(await store.rollUpClicks()).toBe(5);
    expect([await clicksOf(store, 'a'), await clicksOf(store, 'b')]).toEqual([3, 2]);
    await store.close();
    removeCounts(path);
    copyFileSync(`${path}-counts.old`, `${path}-counts`);

    store = openFile(path);
    expect([await clicksOf(store, 'a'), await clicksOf(store, 'b')]).toEqual([3, 2]);
    await store.close();
  });

  test('when it is ahead of the database (the database restored from a backup beside it)', async () => {
    const path = join(tempDir(), 'k.db');
    let store = openFile(path);
    const [a, b] = [await make(store, 'a'), await make(store, 'b')];
    await store.recordClicks([click(a.id, DAY_1), click(b.id, DAY_1)]);
    expect(await store.rollUpClicks()).toBe(2);
    await store.recordClicks([click(a.id, DAY_2)]);
    await store.close();
    copyFileSync(path, `${path}.backup`);

    // Later clicks, counted (closing folds them) and some moved, then the backup put back.
    store = openFile(path);
    await store.recordClicks([click(a.id, DAY_2), click(a.id, DAY_2), click(b.id, DAY_2)]);
    expect(await store.rollUpClicks()).toBe(4);
    await store.recordClicks([click(b.id, DAY_2)]);
    await store.close();
    for (const side of ['', '-wal', '-shm']) rmSync(`${path}${side}`, { force: true });
    copyFileSync(`${path}.backup`, path);

    store = openFile(path);
    expect([await clicksOf(store, 'a'), await clicksOf(store, 'b')]).toEqual([2, 1]);
    // New clicks are counted on top, and survive another reopen.
    await store.recordClicks([click(b.id, DAY_2)]);
    expect([await clicksOf(store, 'a'), await clicksOf(store, 'b')]).toEqual([2, 2]);
    await store.close();
    store = openFile(path);
    expect([await clicksOf(store, 'a'), await clicksOf(store, 'b')]).toEqual([2, 2]);
    await store.close();
  });
});

describe('on PostgreSQL, with click batches committing at once', () => {
  test('a click committed after clicks with later ids were moved is still in the export', async () => {
    const url = await freshSchemaUrl();
    const store = await open('postgres', url);
    const a = await make(store, 'a');
    const parsed = new URL(url);
    const schema = parsed.searchParams.get('schema') as string;
    parsed.searchParams.delete('schema');
    const other = new SQL(parsed.toString(), { max: 1, connection: { search_path: schema } });
    onTestFinished(() => other.close({ timeout: 1 }));

    // Another instance's batch takes its id first and commits last, as the click
    // batches of several instances (or one instance's concurrent batches) may.
    await other.begin(async (tx) => {
      await tx`INSERT INTO clicks (link_id, created_at, source) VALUES (${a.id}, ${DAY_1}, 'slow')`;
      // With its counts, as a batch adds them: its source, and no referrer, agent or country.
      await tx`
        INSERT INTO pending_values (link_id, day, log_column, has_value, value, shard, clicks)
        SELECT ${a.id}, ${dayOf(DAY_1)}, code, code = 0, CASE code WHEN 0 THEN 'slow' ELSE '' END, 0, 1
        FROM unnest(ARRAY[0, 2, 3, 4]) AS code`;
      // On the next day: its counts then share no row with the open batch's, whose
      // uncommitted rows would hold it up when both took the same shard.
      await store.recordClicks([click(a.id, DAY_2, { source: 'fast' })]);
      expect(await store.rollUpClicks()).toBe(1);
    });

    const exported = await store.clickRows(a.id, 0, 2000);
    expect(exported.map((row) => row.source).sort()).toEqual(['fast', 'slow']);
    const traffic = await store.linkTraffic(a.id, 0, 100_000);
    expect(pendingSources(traffic)).toEqual(['slow']);
    expect(await store.rollUpClicks()).toBe(1);
    expect((await store.clickRows(a.id, 0, 2000)).map((row) => row.source)).toEqual([
      'slow',
      'fast',
    ]);
  });
});
