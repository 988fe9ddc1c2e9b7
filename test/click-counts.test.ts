import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { attachCounts, ClickRollup } from '../src/store/sqlite/click-counts.ts';
import { openSqlite, type SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Link } from '../src/store/store.ts';
import { tempDir } from './support/binary.ts';
import { click } from './support/clicks.ts';

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

describe('click counts (log + rollup)', () => {
  test('counts are exact before, during and after a rollup', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    const [a, b] = await withLinks(store, ['a', 'b']);
    const rollup = new ClickRollup(store.sqlite);
    await store.recordClicks([click(a as number), click(a as number), click(b as number)]);
    expect(await countsOf(store)).toEqual({ a: 2, b: 1 });
    expect(rollup.step(2)).toBe(2); // folds only part of the log
    expect(await countsOf(store)).toEqual({ a: 2, b: 1 });
    await store.recordClicks([click(b as number)]);
    expect(await countsOf(store)).toEqual({ a: 2, b: 2 });
    expect(rollup.step()).toBe(2);
    expect(rollup.step()).toBe(0);
    expect(await countsOf(store)).toEqual({ a: 2, b: 2 });
    expect(
      store.sqlite.query('SELECT link_id, clicks FROM counts.link_clicks ORDER BY link_id').all(),
    ).toEqual([
      { link_id: a, clicks: 2 },
      { link_id: b, clicks: 2 },
    ]);
    rollup.finalize();
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

  test('the maintenance thread rolls the log up in the background', async () => {
    const path = join(tempDir(), 'k.db');
    const store = openSqlite({ path, durability: 'normal' });
    const [a] = await withLinks(store, ['a']);
    await store.recordClicks(Array.from({ length: 40 }, () => click(a as number)));
    const rolled = () =>
      (
        store.sqlite.query('SELECT coalesce(max(through), 0) AS t FROM counts.rollup').get() as {
          t: number;
        }
      ).t;
    const deadline = Date.now() + 5000;
    while (rolled() < 40 && Date.now() < deadline) await Bun.sleep(20);
    expect(rolled()).toBe(40);
    expect(await countsOf(store)).toEqual({ a: 40 });
    await store.close();
  });

  test('counts survive a restart, and a lost counts file is rebuilt from the log', async () => {
    const path = join(tempDir(), 'k.db');
    let store = openSqlite({ path, durability: 'normal' });
    const [a, b] = await withLinks(store, ['a', 'b']);
    await store.recordClicks([click(a as number), click(b as number), click(b as number)]);
    await store.close();
    expect(existsSync(`${path}-counts`)).toBe(true);
    store = openSqlite({ path, durability: 'normal' });
    expect(await countsOf(store)).toEqual({ a: 1, b: 2 });
    await store.close();
    rmSync(`${path}-counts`);
    store = openSqlite({ path, durability: 'normal' });
    expect(await countsOf(store)).toEqual({ a: 1, b: 2 });
    await store.close();
  });

  test('a rollup in progress never blocks the click writer', async () => {
    const path = join(tempDir(), 'k.db');
    const store = openSqlite({ path, durability: 'normal' });
    const [a] = await withLinks(store, ['a']);
    // Another connection holds the counts database's write lock, as a rollup does.
    const other = new Database(path);
    attachCounts(other, `${path}-counts`);
    other.run('BEGIN');
    other.run('INSERT INTO counts.link_clicks (link_id, clicks) VALUES (999, 1)');
    await store.recordClicks([click(a as number)]);
    expect(await countsOf(store)).toEqual({ a: 1 });
    other.run('ROLLBACK');
    other.close();
    await store.close();
  });
});
