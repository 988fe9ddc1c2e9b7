// The migrators of both databases, on migrations made up for the test: all of a start's
// migrations commit together or not at all, the one that failed is named, a database
// newer than the migrations is refused untouched, and the bookkeeping is drizzle's own.
// And the real 0005, which counts a backlog already in the log for stats.
// test/ops/upgrade.test.ts does the same through dist/kurz with the real migrations.

import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQL } from 'bun';
import { drizzle } from 'drizzle-orm/bun-sqlite';
import { migrate } from 'drizzle-orm/bun-sqlite/migrator';
import { DayTally, dayOf } from '../../src/analytics/fold.ts';
import type { ClickRow } from '../../src/domain/clicks.ts';
import { type EmbeddedMigration, embeddedMigrations } from '../../src/store/embedded-migrations.ts';
import { MigrationError } from '../../src/store/migrations.ts';
import { applyMigrations as migratePostgres } from '../../src/store/postgres/migrate.ts';
import { openPostgres } from '../../src/store/postgres/postgres-store.ts';
import { applyMigrations as migrateSqlite } from '../../src/store/sqlite/migrate.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { tempDir } from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';

function migration(tag: string, when: number, ...sql: string[]): EmbeddedMigration {
  return { tag, sql, bps: true, folderMillis: when, hash: `hash of ${tag}` };
}

const FIRST = migration('0000_first', 1000, 'CREATE TABLE first (id integer)');
const SECOND = migration(
  '0001_second',
  2000,
  'CREATE TABLE second (id integer)',
  'INSERT INTO first (id) VALUES (1)',
);
/** Its first statement works; its second refers to a table that does not exist. */
const BROKEN = migration(
  '0002_broken',
  3000,
  'CREATE TABLE third (id integer)',
  'INSERT INTO missing (id) VALUES (1)',
);

interface Side {
  name: string;
  /** A new empty database and a way to migrate it and ask it questions. */
  open(): Promise<{
    migrate(migrations: EmbeddedMigration[]): Promise<void>;
    tables(): Promise<string[]>;
    applied(): Promise<{ hash: string; created_at: number }[]>;
    close(): Promise<void>;
  }>;
}

const sqliteSide: Side = {
  name: 'SQLite',
  async open() {
    const db = new Database(':memory:', { strict: true });
    return {
      async migrate(migrations) {
        migrateSqlite(db, migrations);
      },
      async tables() {
        return (
          db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
            name: string;
          }[]
        ).map((t) => t.name);
      },
      async applied() {
        return db
          .query('SELECT hash, created_at FROM "__drizzle_migrations" ORDER BY created_at')
          .all() as { hash: string; created_at: number }[];
      },
      async close() {
        db.close();
      },
    };
  },
};

const postgresSide: Side = {
  name: 'PostgreSQL',
  async open() {
    const sql = new SQL(await freshDatabase(), { max: 2 });
    return {
      async migrate(migrations) {
        await migratePostgres(sql, undefined, migrations);
      },
      async tables() {
        const rows = await sql`SELECT table_schema || '.' || table_name AS name
          FROM information_schema.tables WHERE table_schema IN ('public', 'drizzle') ORDER BY 1`;
        return rows.map((r: { name: string }) => r.name.replace(/^public\./, ''));
      },
      async applied() {
        const rows =
          await sql`SELECT hash, created_at FROM drizzle.__drizzle_migrations ORDER BY created_at`;
        return rows.map((r: { hash: string; created_at: string }) => ({
          hash: r.hash,
          created_at: Number(r.created_at),
        }));
      },
      async close() {
        await sql.close();
      },
    };
  },
};

describe.each([sqliteSide, postgresSide])('migrations ($name)', (side) => {
  const bookkeeping = side === sqliteSide ? '__drizzle_migrations' : 'drizzle.__drizzle_migrations';

  test('applies what is pending, in order, with a bookkeeping row each, and nothing twice', async () => {
    const db = await side.open();
    try {
      await db.migrate([FIRST]);
      await db.migrate([FIRST, SECOND]);
      await db.migrate([FIRST, SECOND]);
      expect(await db.tables()).toEqual([bookkeeping, 'first', 'second'].sort());
      expect(await db.applied()).toEqual([
        { hash: FIRST.hash, created_at: 1000 },
        { hash: SECOND.hash, created_at: 2000 },
      ]);
    } finally {
      await db.close();
    }
  });

  test('a failing migration is named, and it and those before it in the same start are undone', async () => {
    const db = await side.open();
    try {
      await db.migrate([FIRST]);
      const failure = await db.migrate([FIRST, SECOND, BROKEN]).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(MigrationError);
      expect((failure as Error).message).toStartWith('migration 0002_broken failed: ');
      expect((failure as Error).message).toContain('missing');
      expect((failure as Error).message).toEndWith(
        'It was rolled back with the 1 migration before it in this start, so the database is as it was before kurz started, and the kurz it came from still opens it.',
      );
      // SECOND's table and row, and BROKEN's first table, are gone with it.
      expect(await db.tables()).toEqual([bookkeeping, 'first'].sort());
      expect(await db.applied()).toEqual([{ hash: FIRST.hash, created_at: 1000 }]);
    } finally {
      await db.close();
    }
  });

  test('on a new database, a failing first migration leaves it empty', async () => {
    const db = await side.open();
    try {
      const failure = await db.migrate([BROKEN]).catch((e: unknown) => e);
      expect((failure as Error).message).toStartWith('migration 0002_broken failed: ');
      expect((failure as Error).message).toContain(
        'It was rolled back, so the database is as it was before kurz started',
      );
      expect(await db.tables()).toEqual([]);
    } finally {
      await db.close();
    }
  });

  test('a database with a migration newer than any known is refused, unchanged', async () => {
    const db = await side.open();
    try {
      await db.migrate([FIRST, SECOND]);
      const failure = await db.migrate([FIRST]).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(MigrationError);
      expect((failure as Error).message).toStartWith(
        `the database was upgraded by a newer kurz: it has a migration made ${new Date(2000).toISOString()}, after 0000_first, the newest this kurz `,
      );
      expect(await db.applied()).toHaveLength(2);
    } finally {
      await db.close();
    }
  });
});

describe('migrations (SQLite only)', () => {
  test("the bookkeeping and the schema are what drizzle-orm's own migrator makes of drizzle/sqlite", () => {
    const ours = new Database(':memory:', { strict: true });
    const theirs = new Database(':memory:', { strict: true });
    try {
      migrateSqlite(ours);
      migrate(drizzle({ client: theirs }), {
        migrationsFolder: join(import.meta.dir, '..', '..', 'drizzle', 'sqlite'),
      });
      const dump = (db: Database) => ({
        // Written out the same, but for spaces and line breaks (inside parentheses too).
        schema: (
          db.query('SELECT type, name, sql FROM sqlite_master ORDER BY name').all() as {
            sql: string | null;
          }[]
        ).map((o) => ({
          ...o,
          sql: o.sql?.replace(/\s+/g, ' ').replace(/\( | \)/g, (p) => p.trim()),
        })),
        applied: db.query('SELECT hash, created_at FROM "__drizzle_migrations"').all(),
      });
      expect(dump(ours)).toEqual(dump(theirs));
    } finally {
      ours.close();
      theirs.close();
    }
  });

  test('an up-to-date database is not written to: a read-only one opens', () => {
    const path = join(tempDir(), 'kurz.db');
    const writable = new Database(path, { create: true });
    migrateSqlite(writable);
    writable.close();
    const readonly = new Database(path, { readonly: true });
    try {
      expect(() => migrateSqlite(readonly)).not.toThrow();
    } finally {
      readonly.close();
    }
  });
});

/** Clicks of link 1 in the log before 0005, values repeated, nulls and '' apart, over three days. */
const BACKLOG: ClickRow[] = Array.from({ length: 300 }, (_, i) => ({
  id: i + 1,
  linkId: 1,
  createdAt: Date.UTC(2026, 5, 1) + (i % 3) * 86_400_000 + i,
  source: [null, '', 'news'][i % 3] ?? null,
  querySource: i % 4 ? null : 'qr',
  referrer: [null, '', 'https://a.example/x', 'https://b.example/'][i % 4] ?? null,
  userAgent: [null, 'curl/8.5.0', 'Mozilla/5.0 (compatible; Googlebot/2.1)'][i % 3] ?? null,
  country: [null, 'FR', 'DE', 'NL'][i % 4] ?? null,
}));

const BEFORE_PENDING_VALUES = 5;
const LINK_AND_BACKLOG = [
  "INSERT INTO links (id, original_url, short_code, created_at) VALUES (1, 'https://x.example', 'a', 0)",
  `INSERT INTO clicks (id, link_id, source, query_source, referrer, user_agent, created_at, country)
   VALUES ${BACKLOG.map(
     (c) =>
       `(${c.id}, 1, ${[c.source, c.querySource, c.referrer, c.userAgent]
         .map((v) => (v === null ? 'NULL' : `'${v}'`))
         .join(', ')}, ${c.createdAt}, ${c.country === null ? 'NULL' : `'${c.country}'`})`,
   ).join(', ')}`,
];

describe.each(['sqlite', 'postgres'] as const)('migration 0005 (%s)', (engine) => {
  test('a backlog in the log before it shows in stats after it, as the rollup folds it', async () => {
    const earlier = embeddedMigrations(engine).slice(0, BEFORE_PENDING_VALUES);
    expect(earlier.at(-1)?.tag).toBe('0004_webhook_clicks_index');
    let store: Store;
    if (engine === 'sqlite') {
      const path = join(tempDir(), 'kurz.db');
      const db = new Database(path, { create: true });
      migrateSqlite(db, earlier);
      for (const statement of LINK_AND_BACKLOG) db.run(statement);
      db.close();
      store = openSqlite({ path, durability: 'normal', rollup: { intervalMs: 0 } });
    } else {
      const url = await freshDatabase();
      const sql = new SQL(url, { max: 1 });
      await migratePostgres(sql, undefined, earlier);
      for (const statement of LINK_AND_BACKLOG) await sql.unsafe(statement);
      await sql.close();
      store = await openPostgres({ url, pool: 2, analyticsIntervalMs: 0 });
    }
    try {
      const expected = new DayTally();
      for (const c of BACKLOG) expected.add(c);
      const first = dayOf(Date.UTC(2026, 5, 1));
      const traffic = await store.linkTraffic(1, first, first + 2);
      expect(traffic.days).toEqual([]);
      expect(traffic.pending).toEqual(expected.rows());
      await store.rollUpClicks();
      const moved = await store.linkTraffic(1, first, first + 2);
      expect(moved.pending).toEqual([]);
      const rolledUp = new DayTally();
      for (const row of moved.days) rolledUp.addCount(row);
      expect(rolledUp.rows()).toEqual(expected.rows());
    } finally {
      await store.close();
    }
  });
});
