// Upgrades that keep everything, against the compiled dist/kurz on SQLite and on
// PostgreSQL. A database as kurz wrote it in its first released schema
// (test/support/first-schema.ts: accounts, links, the click log and its counts, the token
// key) is opened by this kurz, migrated at start, and every link, click count, click
// record, password and token the old kurz gave out still works. A migration that fails
// halfway leaves the database as it was and is named; a database upgraded by a newer
// kurz is refused, unchanged.

import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { embeddedMigrations } from '../../src/store/embedded-migrations.ts';
import {
  BINARY,
  call,
  eventually,
  type Running,
  runKurz,
  startKurz,
  tempDir,
} from '../support/binary.ts';
import {
  type OldDatabase,
  writeFirstSchemaPostgres,
  writeFirstSchemaSqlite,
} from '../support/first-schema.ts';
import { freshDatabase } from '../support/postgres.ts';

const DAY_MS = 86_400_000;

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

interface Side {
  name: string;
  dialect: 'sqlite' | 'postgres';
  /** A new database in the first released schema: its --db and what it holds. */
  firstSchema(): Promise<{ db: string; old: OldDatabase }>;
  /** Everything in the database (schema objects, bookkeeping and rows), to compare. */
  snapshot(db: string): Promise<unknown>;
  /** Runs one statement on the database, from outside kurz, and returns its rows. */
  query(db: string, statement: string): Promise<Record<string, unknown>[]>;
  /** The bookkeeping table, as the statement names it. */
  bookkeeping: string;
}

const sqliteSide: Side = {
  name: 'SQLite',
  dialect: 'sqlite',
  async firstSchema() {
    const db = join(tempDir(), 'kurz.db');
    return { db, old: await writeFirstSchemaSqlite(db) };
  },
  async snapshot(db) {
    const sqlite = new Database(db, { readonly: true });
    try {
      const objects = sqlite
        .query('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name')
        .all() as { type: string; name: string }[];
      const rows = Object.fromEntries(
        objects
          .filter((o) => o.type === 'table')
          .map((o) => [o.name, sortedRows(sqlite.query(`SELECT * FROM "${o.name}"`).all())]),
      );
      return { objects, rows };
    } finally {
      sqlite.close();
    }
  },
  async query(db, statement) {
    const sqlite = new Database(db);
    try {
      return sqlite.query(statement).all() as Record<string, unknown>[];
    } finally {
      sqlite.close();
    }
  },
  bookkeeping: '"__drizzle_migrations"',
};

const postgresSide: Side = {
  name: 'PostgreSQL',
  dialect: 'postgres',
  async firstSchema() {
    const db = await freshDatabase();
    return { db, old: await writeFirstSchemaPostgres(db) };
  },
  async snapshot(db) {
    const sql = new SQL(db, { max: 1 });
    try {
      const ours = "NOT IN ('pg_catalog', 'information_schema', 'pg_toast')";
      const columns = await sql.unsafe(
        `SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default
           FROM information_schema.columns WHERE table_schema ${ours} ORDER BY 1, 2, 3`,
      );
      const indexes = await sql.unsafe(
        `SELECT schemaname, indexname, indexdef FROM pg_indexes WHERE schemaname ${ours} ORDER BY 1, 2`,
      );
      const functions = await sql.unsafe(
        `SELECT n.nspname, p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname ${ours} ORDER BY 1, 2`,
      );
      const triggers = await sql.unsafe(
        'SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1',
      );
      const tables = (await sql.unsafe(
        `SELECT table_schema, table_name FROM information_schema.tables
          WHERE table_schema ${ours} AND table_type = 'BASE TABLE' ORDER BY 1, 2`,
      )) as { table_schema: string; table_name: string }[];
      const rows: Record<string, unknown> = {};
      for (const t of tables) {
        const name = `"${t.table_schema}"."${t.table_name}"`;
        rows[name] = sortedRows([...(await sql.unsafe(`SELECT * FROM ${name}`))]);
      }
      return {
        columns: [...columns],
        indexes: [...indexes],
        functions: [...functions],
        triggers: [...triggers],
        rows,
      };
    } finally {
      await sql.close();
    }
  },
  async query(db, statement) {
    const sql = new SQL(db, { max: 1 });
    try {
      return [...(await sql.unsafe(statement))];
    } finally {
      await sql.close();
    }
  },
  bookkeeping: '"drizzle"."__drizzle_migrations"',
};

describe.each([sqliteSide, postgresSide])(
  'upgrade from the first released schema ($name)',
  (side) => {
    let db: string;
    let old: OldDatabase;
    let kurz: Running;
    const api = (method: string, path: string, token?: string, json?: unknown) =>
      call(kurz.url, method, path, { token, json });
    const ann = () => old.users[0] as OldDatabase['users'][number];
    const bob = () => old.users[1] as OldDatabase['users'][number];

    beforeAll(async () => {
      ({ db, old } = await side.firstSchema());
      kurz = await startKurz(['--db', db]);
    }, 60_000);

    afterAll(async () => {
      await kurz?.stop();
    });

    test('kurz starts on it and applies every later migration', async () => {
      const applied = await side.query(
        db,
        `SELECT hash FROM ${side.bookkeeping} ORDER BY created_at`,
      );
      expect(applied.map((row) => row.hash)).toEqual(
        embeddedMigrations(side.dialect).map((m) => m.hash),
      );
    });

    test("a token the old kurz gave out still works, and lists its user's links with their click counts", async () => {
      for (const user of old.users) {
        const reply = await api('GET', '/api/links', user.token);
        expect(reply.status).toBe(200);
        const expected = old.links
          .filter((l) => l.owner === user.id)
          .sort((a, b) => b.createdAt - a.createdAt)
          .map((l) => ({
            id: l.id,
            user_id: user.id,
            original_url: l.url,
            short_code: l.code,
            created_at: new Date(l.createdAt).toISOString(),
            clicks: l.clicks.length,
          }));
        expect(reply.json).toEqual(expected);
      }
    });

    test('the old passwords log in', async () => {
      for (const user of old.users) {
        const reply = await api('POST', '/api/auth/login', undefined, {
          email: user.email,
          password: user.password,
        });
        expect(reply.status).toBe(200);
        expect(reply.json.user).toEqual({ id: user.id, email: user.email });
        expect((await api('GET', '/api/links', reply.json.token)).status).toBe(200);
      }
    });

    test('every link redirects, the link without an owner too, and its new click adds to the old ones', async () => {
      for (const link of old.links) {
        const reply = await call(kurz.url, 'GET', `/${link.code}`);
        expect({
          code: link.code,
          status: reply.status,
          location: reply.headers.get('location'),
        }).toEqual({ code: link.code, status: 307, location: link.url });
        link.clicks.push({
          source: link.source,
          querySource: null,
          referrer: null,
          userAgent: null,
          createdAt: Date.now(),
        });
      }
      const list = await api('GET', '/api/links', ann().token);
      for (const link of list.json as { short_code: string; clicks: number }[]) {
        const expected = old.links.find((l) => l.code === link.short_code)?.clicks.length;
        expect({ code: link.short_code, clicks: link.clicks }).toEqual({
          code: link.short_code,
          clicks: expected as number,
        });
      }
    });

    test("every old click is a click record: the link's stats and its CSV hold them", async () => {
      const notes = old.links.find(
        (l) => l.code === 'launch-notes',
      ) as OldDatabase['links'][number];
      const stats = () =>
        api('GET', `/api/links/launch-notes/stats?from=${day(-30)}&to=${day(0)}`, ann().token);
      // Old clicks become click records in the background, as new ones do.
      await eventually(
        async () => (await stats()).json?.range?.clicks === notes.clicks.length,
        'every old click of launch-notes in its stats',
        15_000,
      );
      const reply = await stats();
      expect(reply.json.clicks).toBe(notes.clicks.length);
      // Each day an old click was made on, as the old log recorded it.
      const perDay = new Map<string, number>();
      for (const c of notes.clicks) {
        const date = new Date(c.createdAt).toISOString().slice(0, 10);
        perDay.set(date, (perDay.get(date) ?? 0) + 1);
      }
      for (const [date, clicks] of perDay) {
        expect(reply.json.days.find((d: { date: string }) => d.date === date)?.clicks).toBe(clicks);
      }
      const csv = await api('GET', '/api/links/launch-notes/clicks.csv', ann().token);
      expect(csv.status).toBe(200);
      const lines = csv.text.trim().split('\n').slice(1);
      expect(lines).toHaveLength(notes.clicks.length);
      expect(csv.text).toContain('https://mail.example.net/,mail.example.net');
      expect(csv.text).toContain(',newsletter,mastodon,');
      expect(csv.text).toContain('https://news.example.org/item,news.example.org');
    });

    test('each user still sees only their own links, and a link of another user is not theirs', async () => {
      const reply = await api('GET', '/api/links/launch-notes', bob().token);
      expect(reply.status).toBe(404);
      expect((await api('GET', '/api/links/bobs', bob().token)).json.clicks).toBe(
        old.links.find((l) => l.code === 'bobs')?.clicks.length,
      );
    });

    test('new links and accounts follow the old ones (ids and link totals carry on)', async () => {
      const made = await api('POST', '/api/shorten', ann().token, {
        url: 'https://example.com/new',
      });
      expect(made.status).toBe(201);
      expect(made.json.id).toBeGreaterThan(Math.max(...old.links.map((l) => l.id)));
      const taken = await api('POST', '/api/shorten', ann().token, {
        url: 'https://example.com/again',
        custom_code: 'launch-notes',
      });
      expect({ status: taken.status, body: taken.json }).toEqual({
        status: 400,
        body: { error: 'Custom code already taken' },
      });
      const registered = await api('POST', '/api/auth/register', undefined, {
        email: 'cid@example.com',
        password: 'a new password 9',
      });
      expect(registered.status).toBe(200);
      expect(registered.json.user.id).toBe(Math.max(...old.users.map((u) => u.id)) + 1);
    });

    test('stopped and started again, nothing is migrated twice and everything is still there', async () => {
      expect(await kurz.stop()).toBe(0);
      const before = await side.snapshot(db);
      const again = await runKurz(['migrate', '--db', db]);
      expect(again.code).toBe(0);
      expect(await side.snapshot(db)).toEqual(before);
      kurz = await startKurz(['--db', db]);
      const list = await api('GET', '/api/links', ann().token);
      expect(list.json.map((l: { short_code: string }) => l.short_code)).toContain('launch-notes');
    });
  },
);

describe.each([sqliteSide, postgresSide])('migrations that cannot be applied ($name)', (side) => {
  test('a migration that fails halfway is named, and the database is left as it was', async () => {
    const { db, old } = await side.firstSchema();
    // Something in the way of 0003_operations: its index webhook_deliveries_due needs a
    // name this table holds. The statements of 0002 and of 0003 before that index
    // succeed, and are undone with it.
    await side.query(db, 'CREATE TABLE webhook_deliveries_due (x integer)');
    const before = await side.snapshot(db);
    const failed = await runKurz(['serve', '--port', '0', '--db', db]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('kurz: migration 0003_operations failed:');
    expect(failed.stderr).toContain(
      'It was rolled back with the 1 migration before it in this start, so the database is as it was before kurz started',
    );
    expect(await side.snapshot(db)).toEqual(before);

    // With the obstacle gone, the same upgrade goes through and keeps everything.
    await side.query(db, 'DROP TABLE webhook_deliveries_due');
    const kurz = await startKurz(['--db', db]);
    try {
      const list = await call(kurz.url, 'GET', '/api/links', { token: old.users[0]?.token });
      expect(list.status).toBe(200);
      expect(
        list.json.find((l: { short_code: string }) => l.short_code === 'launch-notes').clicks,
      ).toBe(5);
    } finally {
      expect(await kurz.stop()).toBe(0);
    }
  }, 60_000);

  test('a database upgraded by a newer kurz is refused and left unchanged', async () => {
    const { db } = await side.firstSchema();
    expect((await runKurz(['migrate', '--db', db])).code).toBe(0);
    // What a newer kurz leaves: a bookkeeping row for a migration this one does not know.
    const last = embeddedMigrations(side.dialect).at(-1);
    const newest = last?.folderMillis as number;
    await side.query(
      db,
      `INSERT INTO ${side.bookkeeping} ("hash", "created_at") VALUES ('${'f'.repeat(64)}', ${newest + DAY_MS})`,
    );
    const before = await side.snapshot(db);
    for (const command of [['serve', '--port', '0'], ['migrate'], ['export']]) {
      const refused = await runKurz([...command, '--db', db]);
      expect({ command: command[0], code: refused.code }).toEqual({ command: command[0], code: 1 });
      expect(refused.stderr).toContain(
        `kurz: the database was upgraded by a newer kurz: it has a migration made ${new Date(newest + DAY_MS).toISOString()}, after ${last?.tag}, the newest this kurz`,
      );
      expect(refused.stderr).toContain('It was left unchanged.');
    }
    expect(await side.snapshot(db)).toEqual(before);
  }, 60_000);
});

/** Rows in an order of their own (some tables have no rowid to order them by). */
function sortedRows(rows: unknown[]): string[] {
  return rows.map((row) => JSON.stringify(row)).sort();
}

/** The UTC date `offset` days from today, as the stats range takes it. */
function day(offset: number): string {
  return new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
}
