import { Database, SQLiteError } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { attachCounts, ClickRollup } from '../../src/store/sqlite/click-counts.ts';
import {
  openSqlite,
  type SqliteOptions,
  type SqliteStore,
} from '../../src/store/sqlite/sqlite-store.ts';
import type { Link } from '../../src/store/store.ts';
import { eventually, tempDir } from '../support/binary.ts';
import { click } from '../support/clicks.ts';

/** A rollup driven by hand, one unit of work per slice: many slices per cycle. */
const BY_HAND: SqliteOptions['rollup'] = { intervalMs: 0, sliceMs: 0, logChunk: 2, writeChunk: 1 };

function openFile(path = join(tempDir(), 'k.db'), rollup = BY_HAND) {
  return openSqlite({ path, durability: 'normal', rollup });
}

/**
 * Runs one piece of the rollup by hand. The maintenance thread of a file database holds
 * the counts file's lock a moment while it checkpoints; a slice refused then
 * (SQLITE_BUSY, with nothing written) is tried again, as the rollup's own timer would.
 */
async function whenFree<T>(work: () => T): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return work();
    } catch (error) {
      const busy = error instanceof SQLiteError && (error.code ?? '').startsWith('SQLITE_BUSY');
      if (!busy || tries === 100) throw error;
      await Bun.sleep(5);
    }
  }
}

/** One slice of the rollup. */
const step = (store: SqliteStore) => whenFree(() => store.rollup.step());

/** The rollup's cycles run to the end, as closing the store runs them. */
const flush = (store: SqliteStore) => whenFree(() => store.rollup.flush());

async function withLinks(store: SqliteStore, codes: string[]) {
  const made = await store.createLinks(
    codes.map((shortCode, i) => ({
      userId: null,
      originalUrl: 'https://x.example',
      shortCode,
      source: null,
      createdAt: i,
    })),
  );
  return made.map((l) => (l as Link).id);
}

async function countsOf(store: SqliteStore): Promise<Record<string, number>> {
  const { links } = await store.listLinks({ owner: null, offset: 0 });
  return Object.fromEntries(links.map((l) => [l.shortCode, l.clicks]));
}

/** What the counts file holds: the mark and the rolled-up counters. */
function rolledUp(db: Database) {
  const through = (
    db.query('SELECT coalesce(max(through), 0) AS t FROM counts.rollup').get() as { t: number }
  ).t;
  const counters = db
    .query('SELECT link_id, clicks FROM counts.link_clicks ORDER BY link_id')
    .all() as { link_id: number; clicks: number }[];
  return { through, counters };
}

/** Every link's clicks as the log itself has them: what a read must always agree with. */
function logCounts(db: Database): Record<string, number> {
  const rows = db
    .query(
      'SELECT l.short_code AS code, count(c.id) AS n FROM links l LEFT JOIN clicks c ON c.link_id = l.id GROUP BY l.id',
    )
    .all() as { code: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.code, r.n]));
}

describe('click counts (log + rollup)', () => {
  test('counts are exact at every slice of a cycle, with clicks committed between slices', async () => {
    const store = openFile();
    const ids = (await withLinks(store, ['a', 'b', 'c'])) as [number, number, number];
    let sent = 0;
    const clickSome = () =>
      store.recordClicks(ids.slice(0, 1 + (sent++ % 3)).map((id) => click(id)));
    await clickSome();
    await clickSome();
    await clickSome();
    let slices = 0;
    let marks = new Set<number>();
    while (await step(store)) {
      slices++;
      // The counts transaction is open on the rollup's own connection meanwhile.
      marks.add(rolledUp(store.sqlite).through);
      await clickSome();
      expect(await countsOf(store)).toEqual(logCounts(store.sqlite));
    }
    // Many slices, and the mark moved only when the cycle committed.
    expect(slices).toBeGreaterThan(2);
    expect([...marks]).toEqual([0]);
    expect(rolledUp(store.sqlite).through).toBe(6);
    expect(await countsOf(store)).toEqual(logCounts(store.sqlite));
    // The clicks committed during the cycle are the next cycle's.
    marks = new Set();
    while (await step(store)) marks.add(rolledUp(store.sqlite).through);
    expect([...marks]).toEqual([6]);
    expect(store.rollup.busy).toBe(false);
    const total = Object.values(logCounts(store.sqlite)).reduce((a, n) => a + n, 0);
    expect(rolledUp(store.sqlite).through).toBe(total);
    expect(await countsOf(store)).toEqual(logCounts(store.sqlite));
    await store.close();
  });

  test('an in-memory database rolls up too, its writes in one slice', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal', rollup: BY_HAND });
    const [a, b] = (await withLinks(store, ['a', 'b'])) as [number, number, number];
    await store.recordClicks([click(a as number), click(a as number), click(b as number)]);
    expect(await countsOf(store)).toEqual({ a: 2, b: 1 });
    await flush(store);
    await store.recordClicks([click(b as number)]);
    expect(await countsOf(store)).toEqual({ a: 2, b: 2 });
    expect(rolledUp(store.sqlite)).toEqual({
      through: 3,
      counters: [
        { link_id: a, clicks: 2 },
        { link_id: b, clicks: 1 },
      ],
    });
    await store.close();
  });

  test('a page of links carries the counts of just those links', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    const ids = await withLinks(store, ['a', 'b', 'c']);
    await store.recordClicks(
      ids.flatMap((id, i) => Array.from({ length: i + 1 }, () => click(id))),
    );
    const page = await store.listLinks({ owner: null, limit: 2, offset: 1 });
    expect(page.links.map((l) => [l.shortCode, l.clicks])).toEqual([
      ['b', 2],
      ['a', 1],
    ]);
    expect(page.total).toBe(3);
    await store.close();
  });

  test('clicks the rollup did not see committed are read back from the log', async () => {
    const store = openFile();
    const [a, b] = (await withLinks(store, ['a', 'b'])) as [number, number, number];
    await store.recordClicks([click(a), click(b)]);
    // Rows appended behind the store's back: the next batch does not follow its tally.
    store.sqlite.run('INSERT INTO clicks (link_id, created_at) VALUES (?, 1), (?, 1), (?, 1)', [
      b,
      b,
      b,
    ]);
    await store.recordClicks([click(a)]);
    await flush(store);
    expect(rolledUp(store.sqlite)).toEqual({
      through: 6,
      counters: [
        { link_id: a, clicks: 2 },
        { link_id: b, clicks: 4 },
      ],
    });
    expect(await countsOf(store)).toEqual({ a: 2, b: 4 });
    await store.close();
  });

  test('a cycle cut off midway (as by a crash) leaves counts exact, and a restart finishes it', async () => {
    const path = join(tempDir(), 'k.db');
    const store = openFile(path);
    const [a, b] = (await withLinks(store, ['a', 'b'])) as [number, number, number];
    await store.recordClicks([click(a), click(b), click(b)]);
    await flush(store);
    await store.recordClicks([click(a), click(a), click(b)]);
    expect(await step(store)).toBe(true);
    expect(await step(store)).toBe(true);
    // The cycle's counts transaction is open; dropping it is what a crash does.
    store.rollup.cancel();
    expect(rolledUp(store.sqlite).through).toBe(3);
    expect(await countsOf(store)).toEqual({ a: 3, b: 3 });
    await store.recordClicks([click(b)]);
    await flush(store);
    expect(rolledUp(store.sqlite).through).toBe(7);
    expect(await countsOf(store)).toEqual({ a: 3, b: 4 });

    // A rollup that starts afresh (a restart) with a tail it never saw: from the log.
    store.sqlite.run('INSERT INTO clicks (link_id, created_at) VALUES (?, 1), (?, 1)', [a, b]);
    const counts = new Database(':memory:');
    attachCounts(counts, `${path}-counts`);
    const fresh = new ClickRollup(store.sqlite, counts, { sliceMs: 0, logChunk: 1 });
    expect(await countsOf(store)).toEqual({ a: 4, b: 5 });
    while (await whenFree(() => fresh.step()))
      expect(await countsOf(store)).toEqual({ a: 4, b: 5 });
    expect(rolledUp(store.sqlite).through).toBe(9);
    fresh.close();
    await store.close();
  });

  test('two rollups on one file never count a click twice', async () => {
    const path = join(tempDir(), 'k.db');
    const store = openFile(path);
    const [a] = (await withLinks(store, ['a'])) as [number, number, number];
    await store.recordClicks([click(a), click(a)]);
    const counts = new Database(':memory:');
    attachCounts(counts, `${path}-counts`);
    const other = new ClickRollup(store.sqlite, counts);
    // The other one read the log at its start and folds it first.
    await whenFree(() => other.flush());
    await flush(store);
    await store.recordClicks([click(a)]);
    await flush(store);
    await whenFree(() => other.flush());
    expect(rolledUp(store.sqlite)).toEqual({ through: 3, counters: [{ link_id: a, clicks: 3 }] });
    expect(await countsOf(store)).toEqual({ a: 3 });
    other.close();
    await store.close();
  });

  test('a busy counts file holds the cycle back, and it is tried again whole', async () => {
    const path = join(tempDir(), 'k.db');
    const store = openFile(path);
    const [a] = (await withLinks(store, ['a'])) as [number, number, number];
    const other = new Database(path);
    attachCounts(other, `${path}-counts`);
    other.run('BEGIN');
    other.run('INSERT INTO counts.link_clicks (link_id, clicks) VALUES (999, 0)');
    await store.recordClicks([click(a), click(a)]);
    // The rollup never waits for the lock: the slice fails at once.
    expect(() => store.rollup.flush()).toThrow();
    expect(await countsOf(store)).toEqual({ a: 2 });
    other.run('ROLLBACK');
    other.close();
    await store.recordClicks([click(a)]);
    await flush(store);
    expect(rolledUp(store.sqlite).through).toBe(3);
    expect(await countsOf(store)).toEqual({ a: 3 });
    await store.close();
  });

  test('the rollup runs by itself on its timer', async () => {
    const store = openFile(undefined, { intervalMs: 10 });
    const [a] = (await withLinks(store, ['a'])) as [number, number, number];
    await store.recordClicks(Array.from({ length: 40 }, () => click(a)));
    await eventually(() => rolledUp(store.sqlite).through === 40, 'the rollup of 40 clicks');
    expect(await countsOf(store)).toEqual({ a: 40 });
    await store.close();
  });

  test('counts survive a restart, and a lost counts file is rebuilt from the log', async () => {
    const path = join(tempDir(), 'k.db');
    let store = openFile(path);
    const [a, b] = (await withLinks(store, ['a', 'b'])) as [number, number, number];
    await store.recordClicks([click(a), click(b), click(b)]);
    await store.close();
    expect(existsSync(`${path}-counts`)).toBe(true);
    store = openFile(path);
    // Closing folded everything.
    expect(rolledUp(store.sqlite).through).toBe(3);
    expect(await countsOf(store)).toEqual({ a: 1, b: 2 });
    await store.recordClicks([click(a)]);
    await store.close();
    rmSync(`${path}-counts`);
    store = openFile(path);
    expect(rolledUp(store.sqlite).through).toBe(0);
    expect(await countsOf(store)).toEqual({ a: 2, b: 2 });
    await store.recordClicks([click(b)]);
    while (await step(store)) expect(await countsOf(store)).toEqual({ a: 2, b: 3 });
    expect(rolledUp(store.sqlite).through).toBe(5);
    expect(await countsOf(store)).toEqual({ a: 2, b: 3 });
    await store.close();
  });

  test('a rollup in progress never blocks the click writer', async () => {
    const path = join(tempDir(), 'k.db');
    const store = openFile(path);
    const [a, b, c] = (await withLinks(store, ['a', 'b', 'c'])) as [number, number, number];
    await store.recordClicks([click(a)]);
    // The store's own rollup holds the counts write lock across slices.
    await flush(store);
    await store.recordClicks([click(a), click(b), click(c)]);
    expect(await step(store)).toBe(true);
    expect(await step(store)).toBe(true);
    await store.recordClicks([click(a)]);
    expect(await countsOf(store)).toEqual({ a: 3, b: 1, c: 1 });
    // So does another connection: clicks are still committed and counted.
    await flush(store);
    const other = new Database(path);
    attachCounts(other, `${path}-counts`);
    other.run('BEGIN');
    other.run('INSERT INTO counts.link_clicks (link_id, clicks) VALUES (999, 1)');
    await store.recordClicks([click(a)]);
    expect(await countsOf(store)).toEqual({ a: 4, b: 1, c: 1 });
    other.run('ROLLBACK');
    other.close();
    await store.close();
  });
});
