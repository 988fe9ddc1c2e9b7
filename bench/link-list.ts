// Finding links in a million: the first page (50 links) of GET /api/links for each
// filter, order and view, on SQLite and on PostgreSQL, against the plain list's first
// page measured in the same run (the baseline, answered by the queries of before).
//   bun bench/link-list.ts [--links 1000000] [--rounds 30] [--no-sqlite] [--no-pg] [--pg URL]
//                          [--keep]  (leaves the databases, named on exit, for EXPLAIN)
//                          [--reuse-sqlite DIR] [--reuse-pg URL]  (measures kept ones again)
//                          [--no-reads] [--no-writes]
// Then what the text index costs link creation (createLinks with and without it).
// The links are written straight into the tables (multi-row INSERTs), not through the
// API: 100 owners (one of them the benchmark's user) and 10% of no one, five domains
// (four of about 25% and one of 0.1%), a tag on a fifth of them (one on 20%, ten on 1%
// each, one on 0.1%), and clicks counted for 60%. Requests run in process (createApp, app.handle), each answer read
// whole; p50 and p95 of `--rounds` after 3 unmeasured.

import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { createApp } from '../src/app.ts';
import { DomainRegistry } from '../src/domains/registry.ts';
import { openPostgres, type PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { openSqlite } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { fmt, numberFlag, pgUrlFlag } from './harness.ts';

const argv = process.argv.slice(2);
const LINKS = numberFlag(argv, '--links', 1_000_000);
const ROUNDS = numberFlag(argv, '--rounds', 30);
const PG_URL = pgUrlFlag(argv);
const SECRET = 'bench-secret-bench-secret-bench-secret-0';
const BASE_URL = 'https://kurz.bench';
const USERS = 100;
const WORDS = [
  'news',
  'shop',
  'blog',
  'docs',
  'video',
  'promo',
  'sale',
  'spring',
  'summer',
  'fall',
];
/** 36^7: codes are i times an odd number not divisible by 3, modulo this, so all distinct. */
const CODE_SPACE = 78_364_164_096;
const CODE_STEP = 2_654_435_761;

/** What each request asks for, in open mode (every link) or as the benchmark's user. */
const CASES: [name: string, query: string, accounts?: true][] = [
  ['plain (baseline)', ''],
  ['q, one match', 'q=article/123456/'],
  ['q, no match', 'q=no-such-text'],
  ['q, a word in 19%', 'q=spring'],
  ['tag on 20%', 'tag=promo'],
  ['tag on 1%', 'tag=news'],
  ['tag on 0.1%', 'tag=rare'],
  ['domain (25%)', 'domain=d2.example'],
  ['sort=clicks', 'sort=clicks'],
  ['sort=clicks&order=asc', 'sort=clicks&order=asc'],
  ['sort=code', 'sort=code'],
  ['sort=code&order=desc', 'sort=code&order=desc'],
  ['view=full', 'view=full'],
  ['tag on 1%, sort=clicks', 'tag=news&sort=clicks'],
  ['domain, sort=code', 'domain=d2.example&sort=code'],
  ['domain on 0.1%, sort=clicks', 'domain=d4.example&sort=clicks'],
  ['q and tag', 'q=news&tag=promo'],
  ['view=full, sort=clicks', 'view=full&sort=clicks'],
  ['owner: plain (baseline)', '', true],
  ['owner: q, a word', 'q=spring', true],
  ['owner: q, no match', 'q=no-such-text', true],
  ['owner: tag on 1%', 'tag=news', true],
  ['owner: sort=clicks', 'sort=clicks', true],
  ['owner: sort=code', 'sort=code', true],
  ['owner: view=full', 'view=full', true],
];

/** The i-th link (0-based; its id is i + 1) as the two fills write it. */
const domain = (i: number) => (i % 1000 === 500 ? 4 : i % 4);
const owner = (i: number) => (i % 10 === 0 ? null : (Math.floor(i / 10) % USERS) + 1);
const code = (i: number) => `c${String((i * CODE_STEP) % CODE_SPACE).padStart(11, '0')}`;
const url = (i: number) =>
  `https://${WORDS[i % 10]}.example.com/article/${i}/${WORDS[(i * 7) % 10]}?utm_source=bench`;
const tags = (i: number) => [
  ...(i % 5 === 0 ? ['promo'] : []),
  ...(i % 10 === 3 ? [WORDS[Math.floor(i / 10) % 10] as string] : []),
  ...(i % 1000 === 7 ? ['rare'] : []),
];
const clicks = (i: number) => (i % 5 < 3 ? ((i * 7919) % 500) + 1 : 0);

/** SQLite: links, tags and counts in chunks of multi-row INSERTs, straight into the files. */
function fillSqlite(path: string, start: number): void {
  const db = new Database(path);
  db.run('PRAGMA synchronous = OFF');
  db.run(`ATTACH DATABASE '${path}-counts' AS counts`);
  const ROWS = 500;
  const insert = (table: string, columns: string, width: number, rows: number) =>
    db.prepare(
      `INSERT INTO ${table} (${columns}) VALUES ${Array(rows)
        .fill(`(${Array(width).fill('?').join(',')})`)
        .join(',')}`,
    );
  const users = insert('users', 'id, email, password_hash, created_at', 4, 1);
  for (let u = 2; u <= USERS; u++) users.run(u, `user${u}@bench.example`, 'x', start);
  const domains = insert('domains', 'id, base_url, host, created_at', 4, 1);
  for (let d = 1; d <= 4; d++) domains.run(d, `https://d${d}.example`, `d${d}.example`, start);
  const links = insert(
    'links',
    'id, user_id, domain_id, original_url, short_code, source, created_at',
    7,
    ROWS,
  );
  const chunk = db.transaction((from: number) => {
    const values: (string | number | null)[] = [];
    const tagRows: (string | number)[] = [];
    const countRows: number[] = [];
    for (let i = from; i < from + ROWS; i++) {
      values.push(i + 1, owner(i), domain(i), url(i), code(i), null, start + i * 1000);
      for (const tag of tags(i)) tagRows.push(i + 1, tag);
      if (clicks(i) > 0) countRows.push(i + 1, clicks(i));
    }
    links.run(...values);
    const tagsAt = Array(tagRows.length / 2)
      .fill('(?, ?)')
      .join(',');
    if (tagRows.length > 0)
      db.run(`INSERT INTO link_tags (link_id, tag) VALUES ${tagsAt}`, tagRows);
    const countsAt = Array(countRows.length / 2)
      .fill('(?, ?)')
      .join(',');
    if (countRows.length > 0) {
      db.run(`INSERT INTO counts.link_clicks (link_id, clicks) VALUES ${countsAt}`, countRows);
    }
  });
  for (let i = 0; i < LINKS; i += ROWS) chunk(i);
  // kurz indexes the links it makes for search itself (links.ts); these went in by hand.
  db.run("INSERT INTO link_search (link_search) VALUES ('rebuild')");
  db.run('PRAGMA main.wal_checkpoint(TRUNCATE)');
  db.close();
}

/** PostgreSQL: the same rows, each table in one INSERT … SELECT over generate_series. */
async function fillPostgres(client: SQL, start: number): Promise<void> {
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}]`;
  await client.unsafe(`
    INSERT INTO users (id, email, password_hash, created_at)
    SELECT u, 'user' || u || '@bench.example', 'x', ${start} FROM generate_series(2, ${USERS}) u`);
  await client.unsafe(`
    INSERT INTO domains (id, base_url, host, created_at)
    SELECT d, 'https://d' || d || '.example', 'd' || d || '.example', ${start}
    FROM generate_series(1, 4) d`);
  await client.unsafe(`
    INSERT INTO links (id, user_id, domain_id, original_url, short_code, source, created_at)
    SELECT i + 1, CASE WHEN i % 10 = 0 THEN NULL ELSE (i / 10) % ${USERS} + 1 END,
           CASE WHEN i % 1000 = 500 THEN 4 ELSE i % 4 END,
           'https://' || (${words})[i % 10 + 1] || '.example.com/article/' || i || '/'
             || (${words})[(i * 7) % 10 + 1] || '?utm_source=bench',
           'c' || lpad(((i::bigint * ${CODE_STEP}) % ${CODE_SPACE})::text, 11, '0'), NULL,
           ${start}::bigint + i * 1000::bigint
    FROM generate_series(0, ${LINKS - 1}) i`);
  await client.unsafe(`
    INSERT INTO link_tags (link_id, tag)
    SELECT i + 1, 'promo' FROM generate_series(0, ${LINKS - 1}, 5) i
    UNION ALL SELECT i + 1, (${words})[(i / 10) % 10 + 1] FROM generate_series(3, ${LINKS - 1}, 10) i
    UNION ALL SELECT i + 1, 'rare' FROM generate_series(7, ${LINKS - 1}, 1000) i`);
  // As click batches leave them: each link's count spread over shards.
  await client.unsafe(`
    INSERT INTO link_clicks (link_id, shard, clicks)
    SELECT i + 1, s, CASE WHEN s = 0 THEN c - 2 * (c / 3) ELSE c / 3 END
    FROM (SELECT i, (i::bigint * 7919) % 500 + 1 AS c FROM generate_series(0, ${LINKS - 1}) i
          WHERE i % 5 < 3) counted, generate_series(0, 2) s`);
  await client.unsafe(`
    UPDATE link_click_order o SET clicks = s.n
    FROM (SELECT link_id, sum(clicks) AS n FROM link_clicks GROUP BY link_id) s
    WHERE o.link_id = s.link_id`);
  for (const table of ['users', 'domains', 'links']) {
    await client.unsafe(
      `SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`,
    );
  }
  // Autovacuum would get there in its own time; the planner needs the statistics.
  await client.unsafe('VACUUM ANALYZE');
}

function percentile(times: number[], p: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** Times every case's first page on `store`; the benchmark's user is user 1. */
async function measure(store: Store, label: string, token: string): Promise<void> {
  const domains = await DomainRegistry.open(store, () => BASE_URL);
  const apps = {
    open: createApp({
      mode: 'open',
      store,
      jwtSecret: SECRET,
      tokenTtlSeconds: 3600,
      baseUrl: () => BASE_URL,
      domains,
    }),
    accounts: createApp({
      mode: 'accounts',
      store,
      jwtSecret: SECRET,
      tokenTtlSeconds: 3600,
      baseUrl: () => BASE_URL,
      domains,
    }),
  };
  console.log(`\n## ${label}: ${fmt(LINKS)} links, the first page of 50\n`);
  console.log('| request | links found | p50 | p95 | p50 / plain |');
  console.log('|---|---|---|---|---|');
  let baseline = 0;
  for (const [name, query, asOwner] of CASES) {
    const app = asOwner ? apps.accounts : apps.open;
    const headers = asOwner ? { authorization: `Bearer ${token}` } : undefined;
    const request = () =>
      app.handle(
        new Request(`http://localhost/api/links?limit=50${query ? `&${query}` : ''}`, { headers }),
      );
    let total = '';
    const times: number[] = [];
    for (let i = 0; i < ROUNDS + 3; i++) {
      const started = performance.now();
      const reply = await request();
      await reply.text();
      if (i >= 3) times.push(performance.now() - started);
      if (reply.status !== 200) throw new Error(`${name}: ${reply.status}`);
      total = reply.headers.get('x-total-count') ?? '';
    }
    const p50 = percentile(times, 0.5);
    if (query === '') baseline = p50;
    console.log(
      `| ${name} | ${fmt(Number(total))} | ${fmt(p50, 1)} ms | ${fmt(percentile(times, 0.95), 1)} ms | ${fmt(p50 / baseline, 1)}× |`,
    );
  }
}

const BENCH_USER = { email: 'bench@bench.example', password: 'correct horse 42' };

async function accountsApp(store: Store) {
  return createApp({
    mode: 'accounts',
    store,
    jwtSecret: SECRET,
    tokenTtlSeconds: 3600,
    baseUrl: () => BASE_URL,
    domains: await DomainRegistry.open(store, () => BASE_URL),
    hashing: { memoryCost: 1024, timeCost: 1 },
  });
}

/** Registers the benchmark's user, before any other user is written: user 1. */
async function benchUser(store: Store): Promise<void> {
  const reply = await (await accountsApp(store)).handle(
    new Request('http://localhost/api/auth/register', {
      method: 'POST',
      body: JSON.stringify(BENCH_USER),
    }),
  );
  const body = (await reply.json()) as { user?: { id: number } };
  if (body.user?.id !== 1) throw new Error(`the benchmark's user is not user 1: ${reply.status}`);
}

/** A token of the benchmark's user. */
async function tokenOf(store: Store): Promise<string> {
  const reply = await (await accountsApp(store)).handle(
    new Request('http://localhost/api/auth/login', {
      method: 'POST',
      body: JSON.stringify(BENCH_USER),
    }),
  );
  return ((await reply.json()) as { token: string }).token;
}

/** The value of a flag naming something (`--reuse-pg URL`), if given. */
function stringFlag(name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

async function sqlite(): Promise<void> {
  const reused = stringFlag('--reuse-sqlite');
  const dir = reused ?? mkdtempSync(join(tmpdir(), 'kurz-link-list-'));
  const path = join(dir, 'kurz.db');
  const open = () =>
    openSqlite({ path, durability: 'normal', moveClicks: false, rollup: { intervalMs: 0 } });
  try {
    let store = open();
    if (reused === undefined) {
      await benchUser(store);
      await store.close();
      const started = performance.now();
      fillSqlite(path, Date.now() - LINKS * 1000);
      console.log(`(sqlite: filled in ${fmt((performance.now() - started) / 1000, 1)} s)`);
      store = open();
    }
    await measure(store, 'SQLite', await tokenOf(store));
    await store.close();
  } finally {
    if (argv.includes('--keep') || reused !== undefined) console.log(`(kept ${dir})`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<void> {
  const reused = stringFlag('--reuse-pg');
  const admin = new SQL(PG_URL);
  const name = `kurz_link_list_${process.pid}`;
  const url = new URL(reused ?? PG_URL);
  if (reused === undefined) {
    await admin.unsafe(`CREATE DATABASE ${name}`);
    url.pathname = `/${name}`;
  }
  try {
    const store = (await openPostgres({
      url: url.toString(),
      pool: 4,
      deadlineMs: 0,
      analyticsIntervalMs: 0,
    })) as PostgresStore;
    if (reused === undefined) {
      await benchUser(store);
      const started = performance.now();
      await fillPostgres(store.client, Date.now() - LINKS * 1000);
      console.log(`(postgres: filled in ${fmt((performance.now() - started) / 1000, 1)} s)`);
    }
    await measure(store, 'PostgreSQL', await tokenOf(store));
    await store.close();
  } finally {
    if (argv.includes('--keep') || reused !== undefined) console.log(`(kept ${url})`);
    else await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

const WRITE_ROUNDS = 6;
const WRITE_BATCH = 500;
const WRITE_BATCHES = 10;

/**
 * What the text index costs link creation: createLinks of WRITE_BATCHES batches of
 * WRITE_BATCH links, in rounds alternating between a store with the index and one
 * without it (its triggers or indexes dropped), the same links in each.
 */
async function writeCost(label: string, withIndex: Store, without: Store): Promise<void> {
  const times = { with: [] as number[], without: [] as number[] };
  let n = 0;
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    const batches = Array.from({ length: WRITE_BATCHES }, () =>
      Array.from({ length: WRITE_BATCH }, () => {
        const i = n++;
        return {
          userId: null,
          originalUrl: url(i),
          shortCode: code(i),
          source: null,
          createdAt: i,
        };
      }),
    );
    const order = round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
    for (const which of order) {
      const store = which === 'with' ? withIndex : without;
      const started = performance.now();
      for (const batch of batches) await store.createLinks(batch);
      times[which].push(((performance.now() - started) * 1000) / (WRITE_BATCH * WRITE_BATCHES));
    }
  }
  const p50 = (list: number[]) => percentile(list, 0.5);
  console.log(
    `\n${label}, createLinks in batches of ${WRITE_BATCH}: ${fmt(p50(times.with), 1)} µs a link with the text index, ${fmt(p50(times.without), 1)} µs without (median of ${WRITE_ROUNDS} rounds of ${fmt(WRITE_BATCH * WRITE_BATCHES)})`,
  );
}

async function sqliteWrites(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-link-list-writes-'));
  try {
    const open = (name: string) =>
      openSqlite({ path: join(dir, name), durability: 'normal', rollup: { intervalMs: 0 } });
    const [withIndex, without] = [open('with.db'), open('without.db')];
    // Without the index: the store's insert into link_search lands in a plain table that
    // keeps nothing (RAISE(IGNORE) drops each row before it is written).
    (without as ReturnType<typeof openSqlite>).sqlite.run(`
      DROP TRIGGER links_search_removed; DROP TRIGGER links_search_changed;
      DROP TABLE link_search; CREATE TABLE link_search (short_code, original_url);
      CREATE TRIGGER link_search_kept_out BEFORE INSERT ON link_search BEGIN
        SELECT RAISE(IGNORE);
      END`);
    await writeCost('SQLite', withIndex, without);
    await Promise.all([withIndex.close(), without.close()]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgresWrites(): Promise<void> {
  const admin = new SQL(PG_URL);
  const names = [`kurz_writes_${process.pid}_a`, `kurz_writes_${process.pid}_b`];
  for (const name of names) await admin.unsafe(`CREATE DATABASE ${name}`);
  try {
    const stores = await Promise.all(
      names.map((name) => {
        const url = new URL(PG_URL);
        url.pathname = `/${name}`;
        return openPostgres({ url: url.toString(), pool: 4, analyticsIntervalMs: 0 });
      }),
    );
    const [withIndex, without] = stores as [PostgresStore, PostgresStore];
    await without.client.unsafe('DROP INDEX IF EXISTS links_code_trgm, links_url_trgm');
    await writeCost('PostgreSQL', withIndex, without);
    await Promise.all(stores.map((store) => store.close()));
  } finally {
    for (const name of names) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

console.log(`# Finding links: GET /api/links?limit=50 with filters, orders and views`);
if (!argv.includes('--no-reads')) {
  if (!argv.includes('--no-sqlite')) await sqlite();
  if (!argv.includes('--no-pg')) await postgres();
}
if (!argv.includes('--no-writes')) {
  if (!argv.includes('--no-sqlite')) await sqliteWrites();
  if (!argv.includes('--no-pg')) await postgresWrites();
}
