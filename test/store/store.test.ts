import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import { tempDir } from '../support/binary.ts';

// What every store must do is in store-contract.test.ts, run on SQLite and PostgreSQL;
// this file tests what only the SQLite store has: its files and PRAGMAs.
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
});
