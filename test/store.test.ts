import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite } from '../src/store/sqlite/sqlite-store.ts';
import type { Link } from '../src/store/store.ts';
import { tempDir } from './support/binary.ts';

describe('SQLite store', () => {
  test('opens in WAL mode with foreign keys, a busy timeout, synchronous per durability and no memory map', async () => {
    const dir = tempDir();
    for (const [durability, level] of [
      ['normal', 1],
      ['full', 2],
    ] as const) {
      const store = openSqlite({ path: join(dir, `${durability}.db`), durability });
      const pragma = (name: string) =>
        Object.values(store.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
      expect(pragma('journal_mode')).toBe('wal');
      expect(pragma('synchronous')).toBe(level);
      expect(pragma('foreign_keys')).toBe(1);
      expect(pragma('busy_timeout')).toBe(5000);
      // A map would put every page read into RSS, which then grows with the database.
      expect(pragma('main.mmap_size')).toBe(0);
      expect(pragma('counts.mmap_size')).toBe(0);
      await store.close();
    }
  });

  test('creates the database folder, and migrating again changes nothing', async () => {
    const path = join(tempDir(), 'a', 'b', 'k.db');
    const first = openSqlite({ path, durability: 'normal' });
    await first.createLinks([
      {
        userId: null,
        originalUrl: 'https://x.example',
        shortCode: 'x',
        source: null,
        createdAt: 1,
      },
    ]);
    await first.close();
    const second = openSqlite({ path, durability: 'normal' });
    const applied = second.sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get();
    expect((await second.listLinks({ owner: null, offset: 0 })).total).toBe(1);
    await second.close();
    const third = openSqlite({ path, durability: 'normal' });
    expect(third.sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual(
      applied,
    );
    await third.close();
  });

  test('close() checkpoints the WAL into the database file', async () => {
    const path = join(tempDir(), 'k.db');
    const store = openSqlite({ path, durability: 'normal' });
    await store.createLinks([
      {
        userId: null,
        originalUrl: 'https://x.example',
        shortCode: 'x',
        source: null,
        createdAt: 1,
      },
    ]);
    await store.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const raw = new Database(path, { readonly: true });
    expect(raw.query('SELECT short_code FROM links').all()).toEqual([{ short_code: 'x' }]);
    raw.close();
  });

  test('a batch of clicks is written whole, every field in its place, and counted per link', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    const make = async (code: string) =>
      (
        await store.createLinks([
          {
            userId: null,
            originalUrl: 'https://x.example',
            shortCode: code,
            source: 's',
            createdAt: 1,
          },
        ])
      )[0];
    const [a, b] = [await make('a'), await make('b')];
    // 37 clicks: two 16-row statements and five single rows.
    const batch = Array.from({ length: 37 }, (_, i) => ({
      linkId: ((i % 3 === 0 ? b : a) as Link).id,
      source: i % 2 ? `src${i}` : null,
      querySource: i % 5 ? `q${i}` : null,
      referrer: `https://ref/${i}`,
      userAgent: i % 7 ? `ua${i}` : null,
      createdAt: 1000 + i,
    }));
    await store.recordClicks(batch);
    const rows = store.sqlite
      .query(
        'SELECT link_id AS linkId, source, query_source AS querySource, referrer, user_agent AS userAgent, created_at AS createdAt FROM clicks ORDER BY id',
      )
      .all();
    expect(rows).toEqual(batch);
    const { links } = await store.listLinks({ owner: null, offset: 0 });
    expect(links.map((l) => [l.shortCode, l.clicks])).toEqual([
      ['b', 13],
      ['a', 24],
    ]);
  });

  test('links are inserted in one batch; a code taken before or within it gives undefined', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    const link = (shortCode: string, originalUrl = 'https://x.example') => ({
      userId: null,
      originalUrl,
      shortCode,
      source: null,
      createdAt: 5,
    });
    await store.createLinks([link('old')]);
    const results = await store.createLinks([
      link('a'),
      link('old'),
      link('b'),
      link('a', 'https://other.example'),
    ]);
    expect(results.map((r) => (r as Link | undefined)?.shortCode)).toEqual([
      'a',
      undefined,
      'b',
      undefined,
    ]);
    expect(results[0]).toEqual({
      id: expect.any(Number),
      userId: null,
      originalUrl: 'https://x.example',
      shortCode: 'a',
      createdAt: 5,
      clicks: 0,
    });
    expect((await store.listLinks({ owner: null, offset: 0 })).total).toBe(3);
  });

  test('a setting is made once and then kept (first writer wins)', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    expect(await store.setting('k', () => 'first')).toBe('first');
    expect(await store.setting('k', () => 'second')).toBe('first');
  });

  test('after close, every operation is unavailable', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    await store.close();
    await expect(store.ping()).rejects.toThrow('Database unavailable');
    await expect(store.findLinkByCode('x')).rejects.toThrow('Database unavailable');
  });
});
