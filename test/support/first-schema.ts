// A database as kurz wrote it in its first released schema: migrations 0000_init and
// 0001_link_totals_triggers only (the schema of both databases when the PostgreSQL
// backend landed; 0002 and later came after), applied from drizzle/ with drizzle's own
// bookkeeping rows, then filled the way the kurz of that schema filled it: accounts with
// argon2id hashes, links with and without an owner, the click log (and on SQLite the
// counts file beside it, rolled up part of the way; on PostgreSQL the count shards
// written with the clicks), the generated token key in `settings`, and tokens signed
// with it as that kurz signed them ({sub, exp} and iat, HS256). Made by this script, not
// kept as a file, so what it holds can be read here.
//
// Run alone, it writes one: `bun test/support/first-schema.ts sqlite FILE` or
// `bun test/support/first-schema.ts postgres URL` (an empty database), and prints what
// it wrote as JSON.

import { Database } from 'bun:sqlite';
import { jwt } from '@elysiajs/jwt';
import { SQL } from 'bun';
import { embeddedMigrations } from '../../src/store/embedded-migrations.ts';

/** The migrations of the first released schema. */
export const FIRST_SCHEMA = ['0000_init', '0001_link_totals_triggers'];

export interface OldClick {
  source: string | null;
  querySource: string | null;
  referrer: string | null;
  userAgent: string | null;
  createdAt: number;
}

export interface OldLink {
  id: number;
  code: string;
  url: string;
  owner: number | null;
  source: string | null;
  createdAt: number;
  clicks: OldClick[];
}

export interface OldUser {
  id: number;
  email: string;
  password: string;
  /** A token the old kurz gave at login, still within its lifetime. */
  token: string;
}

export interface OldDatabase {
  users: OldUser[];
  links: OldLink[];
  secret: string;
}

const DAY_MS = 86_400_000;
const AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
/** The old kurz's argon2id cost (OWASP's baseline: 19 MiB, 2 passes). */
const PASSWORD_COST = { algorithm: 'argon2id', memoryCost: 19_456, timeCost: 2 } as const;

/** The accounts, links and clicks written, before the ids the database gives them. */
function plan(now: number) {
  const click = (daysAgo: number, extra: Partial<OldClick> = {}): OldClick => ({
    source: null,
    querySource: null,
    referrer: null,
    userAgent: AGENT,
    createdAt: now - daysAgo * DAY_MS,
    ...extra,
  });
  const users = [
    { email: 'ann@example.com', password: 'correct horse 42' },
    { email: 'bob@example.com', password: 'battery staple 7' },
  ];
  const links = [
    {
      code: 'launch-notes',
      url: 'https://example.com/docs?page=1',
      owner: 0,
      source: 'newsletter',
      createdAt: now - 20 * DAY_MS,
      clicks: [
        click(9, { source: 'newsletter', referrer: 'https://mail.example.net/' }),
        click(8, { source: 'newsletter', querySource: 'mastodon' }),
        click(8, { source: 'newsletter', referrer: 'https://news.example.org/item' }),
        click(3, { source: 'newsletter', userAgent: 'curl/8.5.0' }),
        click(1, { source: 'newsletter', querySource: 'qr', userAgent: null }),
      ],
    },
    {
      code: 'Ab3xY9q',
      url: 'https://example.org/a/very/long/path',
      owner: 0,
      source: null,
      createdAt: now - 15 * DAY_MS,
      clicks: [click(5), click(2, { referrer: 'https://www.example.com/' })],
    },
    {
      code: 'never-clicked',
      url: 'http://example.net/',
      owner: 0,
      source: null,
      createdAt: now - 10 * DAY_MS,
      clicks: [],
    },
    {
      code: 'bobs',
      url: 'https://bob.example.com/',
      owner: 1,
      source: null,
      createdAt: now - 12 * DAY_MS,
      clicks: [click(4), click(4), click(1)],
    },
    {
      // Made in open mode before accounts were turned on: it has no owner.
      code: 'open1',
      url: 'https://example.com/open',
      owner: null,
      source: null,
      createdAt: now - 25 * DAY_MS,
      clicks: [click(11)],
    },
  ];
  return { users, links };
}

/** A token as the old kurz signed it at login (its lifetime was a day by default). */
function oldToken(secret: string, userId: number, now: number): Promise<string> {
  const signer = jwt({ name: 'jwt', secret, alg: 'HS256' }).decorator.jwt;
  return signer.sign({ sub: String(userId), exp: Math.floor(now / 1000) + DAY_MS / 1000 });
}

/** The accounts as written, with their ids and a token each, as at a login then. */
function loggedIn(
  users: { email: string; password: string }[],
  ids: number[],
  secret: string,
  now: number,
): Promise<OldUser[]> {
  return Promise.all(
    users.map(async (u, i) => {
      const id = ids[i] as number;
      return { id, email: u.email, password: u.password, token: await oldToken(secret, id, now) };
    }),
  );
}

function firstMigrations(dialect: 'sqlite' | 'postgres') {
  const migrations = embeddedMigrations(dialect).slice(0, FIRST_SCHEMA.length);
  const tags = migrations.map((m) => m.tag);
  if (tags.join() !== FIRST_SCHEMA.join()) {
    throw new Error(`drizzle/${dialect} does not start with ${FIRST_SCHEMA.join(', ')}`);
  }
  return migrations;
}

/** Writes the first-schema database to a new SQLite file (and its counts file). */
export async function writeFirstSchemaSqlite(path: string): Promise<OldDatabase> {
  const now = Date.now();
  const { users, links } = plan(now);
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const hashes = await Promise.all(users.map((u) => Bun.password.hash(u.password, PASSWORD_COST)));
  const db = new Database(path, { create: true, strict: true });
  db.run('PRAGMA journal_mode = WAL');
  db.run('PRAGMA foreign_keys = ON');
  // As drizzle's migrator of that time did: its table, then the migrations and their rows.
  db.run(
    'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)',
  );
  db.transaction(() => {
    for (const migration of firstMigrations('sqlite')) {
      for (const statement of migration.sql) db.run(statement);
      db.run('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)', [
        migration.hash,
        migration.folderMillis,
      ]);
    }
  })();
  const userIds = users.map(
    (u, i) =>
      (
        db
          .query(
            'INSERT INTO users (email, password_hash, created_at) VALUES (?, ?, ?) RETURNING id',
          )
          .get(u.email, hashes[i] as string, now - 30 * DAY_MS) as { id: number }
      ).id,
  );
  db.run('INSERT INTO settings (key, value) VALUES (?, ?)', ['jwt_secret', secret]);
  const written: OldLink[] = [];
  const clickIds: { linkId: number; id: number }[] = [];
  for (const link of links) {
    const owner = link.owner === null ? null : (userIds[link.owner] as number);
    const { id } = db
      .query(
        'INSERT INTO links (user_id, original_url, short_code, source, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
      )
      .get(owner, link.url, link.code, link.source, link.createdAt) as { id: number };
    written.push({ ...link, id, owner });
    for (const c of link.clicks) {
      const row = db
        .query(
          'INSERT INTO clicks (link_id, source, query_source, referrer, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
        )
        .get(id, c.source, c.querySource, c.referrer, c.userAgent, c.createdAt) as { id: number };
      clickIds.push({ linkId: id, id: row.id });
    }
  }
  db.close();
  writeOldCounts(`${path}-counts`, clickIds);
  return { users: await loggedIn(users, userIds, secret, now), links: written, secret };
}

/**
 * The old kurz's counts file: per-link counts of the click log up to `rollup.through`.
 * Its rollup had folded the log part of the way (clicks were added ever since), so the
 * file covers the older half of the clicks and the rest is the log's tail.
 */
function writeOldCounts(path: string, clicks: { linkId: number; id: number }[]): void {
  const folded = clicks.sort((a, b) => a.id - b.id).slice(0, Math.floor(clicks.length / 2));
  const counts = new Database(path, { create: true, strict: true });
  counts.run('PRAGMA journal_mode = WAL');
  counts.run(
    'CREATE TABLE IF NOT EXISTS link_clicks (link_id INTEGER PRIMARY KEY, clicks INTEGER NOT NULL)',
  );
  counts.run(
    'CREATE TABLE IF NOT EXISTS rollup (id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL)',
  );
  const perLink = new Map<number, number>();
  for (const c of folded) perLink.set(c.linkId, (perLink.get(c.linkId) ?? 0) + 1);
  for (const [linkId, n] of perLink) {
    counts.run('INSERT INTO link_clicks (link_id, clicks) VALUES (?, ?)', [linkId, n]);
  }
  counts.run('INSERT INTO rollup (id, through) VALUES (1, ?)', [folded.at(-1)?.id ?? 0]);
  counts.close();
}

/** Shards of a link's click count in the old PostgreSQL schema. */
const SHARDS = 16;

/** Writes the first-schema database into an empty PostgreSQL database. */
export async function writeFirstSchemaPostgres(url: string): Promise<OldDatabase> {
  const now = Date.now();
  const { users, links } = plan(now);
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const hashes = await Promise.all(users.map((u) => Bun.password.hash(u.password, PASSWORD_COST)));
  const sql = new SQL(url, { max: 1 });
  try {
    await sql.unsafe('CREATE SCHEMA IF NOT EXISTS "drizzle"');
    await sql.unsafe(
      'CREATE TABLE IF NOT EXISTS "drizzle"."__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
    );
    await sql.begin(async (tx) => {
      for (const migration of firstMigrations('postgres')) {
        for (const statement of migration.sql) await tx.unsafe(statement);
        await tx.unsafe(
          'INSERT INTO "drizzle"."__drizzle_migrations" ("hash", "created_at") VALUES ($1, $2)',
          [migration.hash, migration.folderMillis],
        );
      }
    });
    const userIds: number[] = [];
    for (const [i, u] of users.entries()) {
      const [row] = await sql`INSERT INTO users (email, password_hash, created_at)
        VALUES (${u.email}, ${hashes[i]}, ${now - 30 * DAY_MS}) RETURNING id`;
      userIds.push(row.id);
    }
    await sql`INSERT INTO settings (key, value) VALUES ('jwt_secret', ${secret})`;
    const written: OldLink[] = [];
    for (const link of links) {
      const owner = link.owner === null ? null : (userIds[link.owner] as number);
      const [row] =
        await sql`INSERT INTO links (user_id, original_url, short_code, source, created_at)
        VALUES (${owner}, ${link.url}, ${link.code}, ${link.source}, ${link.createdAt}) RETURNING id`;
      written.push({ ...link, id: row.id, owner });
      for (const [n, c] of link.clicks.entries()) {
        // As the old store wrote a click: the log row and one shard of its count together.
        await sql.begin(async (tx) => {
          await tx`INSERT INTO clicks (link_id, source, query_source, referrer, user_agent, created_at)
            VALUES (${row.id}, ${c.source}, ${c.querySource}, ${c.referrer}, ${c.userAgent}, ${c.createdAt})`;
          await tx`INSERT INTO link_clicks (link_id, shard, clicks) VALUES (${row.id}, ${n % SHARDS}, 1)
            ON CONFLICT (link_id, shard) DO UPDATE SET clicks = link_clicks.clicks + 1`;
        });
      }
    }
    return { users: await loggedIn(users, userIds, secret, now), links: written, secret };
  } finally {
    await sql.close();
  }
}

if (import.meta.main) {
  const [dialect, target] = process.argv.slice(2);
  if ((dialect !== 'sqlite' && dialect !== 'postgres') || target === undefined) {
    console.error('usage: bun test/support/first-schema.ts sqlite FILE | postgres URL');
    process.exit(2);
  }
  const written =
    dialect === 'sqlite'
      ? await writeFirstSchemaSqlite(target)
      : await writeFirstSchemaPostgres(target);
  console.log(JSON.stringify(written, null, 2));
}
