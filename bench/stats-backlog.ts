// Stats of a link with a backlog: 1,000,000 clicks in the click log, none rolled up yet
// (what `kurz import --clicks` or a redirect flood leaves), on SQLite and on PostgreSQL.
// Prints the latency of GET /api/links/{code}/stats (p50, p95) and the peak RSS above
// idle, against the baseline of the same run: the same stats made as kurz made them
// before, every pending click read into memory and folded one by one.
// The log is seeded with SQL directly, a million rows at a time being far quicker than
// click batches; its counts in pending_values (which a click batch would have added)
// are then filled by the statement the 0005 migration fills them with (COUNT_THE_LOG).
// Usage: bun bench/stats-backlog.ts [--clicks 1000000] [--rounds 20] [--old-rounds 3]
//        [--no-old] [--no-pg] [--pg URL]

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { DayTally, startOfDay } from '../src/analytics/fold.ts';
import { buildStats, parseRange } from '../src/analytics/stats.ts';
import type { ClickRow, DayCount } from '../src/domain/clicks.ts';
import { COUNT_THE_LOG as COUNT_THE_LOG_PG } from '../src/store/postgres/pending-values.ts';
import { openPostgres, type PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { COUNT_THE_LOG } from '../src/store/sqlite/pending-values.ts';
import { openSqlite, type SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { fmt, numberFlag, pgUrlFlag } from './harness.ts';

const argv = process.argv.slice(2);
const CLICKS = numberFlag(argv, '--clicks', 1_000_000);
const ROUNDS = numberFlag(argv, '--rounds', 20);
const OLD_ROUNDS = numberFlag(argv, '--old-rounds', 3);
const PG_URL = pgUrlFlag(argv);
const DAY = 86_400_000;
const HOT = 'hot';
/** A link without clicks: its stats warm the code paths before idle RSS is read. */
const QUIET = 'quiet';

type Engine = 'sqlite' | 'postgres';
type Variant = 'new' | 'old';

/** What one child process measured. */
interface Measured {
  idleMiB: number;
  peakAboveIdleMiB: number;
  times: number[];
  answer: string;
}

/** A small, repeatable random source, so every run writes the same clicks. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** About 130 user agents as they mix in real traffic (a few bots), 10 referrer sites. */
function mix() {
  const agents: string[] = [];
  for (let v = 100; v < 131; v++) {
    agents.push(
      `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
      `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
      `Mozilla/5.0 (Linux; Android 14; Pixel ${v % 8}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Mobile Safari/537.36`,
      `Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`,
    );
  }
  agents.push(
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'curl/8.5.0',
  );
  const hosts = ['news.ycombinator.com', 'www.reddit.com', 't.co', 'www.google.com'];
  hosts.push('l.facebook.com', 'www.linkedin.com', 'duckduckgo.com', 'mastodon.social');
  hosts.push('github.com', 'mail.google.com');
  const countries = ['US', 'DE', 'GB', 'FR', 'IN', 'BR', 'JP', 'NL', 'CA', 'ES'];
  return { agents, hosts, countries };
}

/** The backlog's clicks as columns, `size` at a time, over the last 30 days. */
function* columns(linkId: number, size: number) {
  const next = random(42);
  const { agents, hosts, countries } = mix();
  const now = Date.now();
  for (let done = 0; done < CLICKS; done += size) {
    const n = Math.min(size, CLICKS - done);
    const batch = {
      linkId: new Array<number>(n).fill(linkId),
      source: new Array<string | null>(n),
      querySource: new Array<string | null>(n),
      referrer: new Array<string | null>(n),
      userAgent: new Array<string | null>(n),
      createdAt: new Array<number>(n),
      country: new Array<string | null>(n),
    };
    for (let i = 0; i < n; i++) {
      const r = next();
      batch.source[i] = r < 0.3 ? 'newsletter' : r < 0.4 ? 'twitter' : null;
      batch.querySource[i] = r > 0.9 ? 'qr' : null;
      batch.referrer[i] =
        r < 0.35 ? null : `https://${hosts[Math.floor(next() * hosts.length)]}/${i % 200}`;
      batch.userAgent[i] = agents[Math.floor(next() ** 2 * agents.length)] ?? null;
      batch.createdAt[i] = now - Math.floor(next() * 30 * DAY);
      batch.country[i] =
        next() < 0.05 ? null : (countries[Math.floor(next() ** 2 * countries.length)] ?? null);
    }
    yield batch;
  }
}

type Batch = ReturnType<typeof columns> extends Generator<infer B> ? B : never;

/** Makes the two links; returns the hot one's id. */
async function makeLinks(store: Store): Promise<number> {
  const made = await store.createLinks(
    [HOT, QUIET].map((shortCode) => ({
      userId: null,
      originalUrl: 'https://example.com/',
      shortCode,
      source: null,
      createdAt: Date.now() - 31 * DAY,
    })),
  );
  const hot = made[0];
  if (typeof hot !== 'object') throw new Error('the hot link was not made');
  return hot.id;
}

/** Opens a store whose click log stays as it is: no counting, no rollup. */
async function open(engine: Engine, where: string): Promise<Store> {
  return engine === 'sqlite'
    ? openSqlite({
        path: where,
        durability: 'normal',
        moveClicks: false,
        rollup: { intervalMs: 0 },
      })
    : openPostgres({ url: where, pool: 2, deadlineMs: 0, analyticsIntervalMs: 0 });
}

async function seedSqlite(path: string): Promise<void> {
  const store = (await open('sqlite', path)) as SqliteStore;
  const linkId = await makeLinks(store);
  const insert = store.sqlite.prepare(
    `INSERT INTO clicks (link_id, source, query_source, referrer, user_agent, created_at, country)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const write = store.sqlite.transaction((c: Batch) => {
    for (let i = 0; i < c.linkId.length; i++) {
      insert.run(
        linkId,
        c.source[i] ?? null,
        c.querySource[i] ?? null,
        c.referrer[i] ?? null,
        c.userAgent[i] ?? null,
        c.createdAt[i] as number,
        c.country[i] ?? null,
      );
    }
  });
  for (const batch of columns(linkId, 50_000)) write(batch);
  insert.finalize();
  store.sqlite.run(COUNT_THE_LOG);
  await store.close();
}

async function seedPostgres(url: string): Promise<void> {
  const store = (await open('postgres', url)) as PostgresStore;
  const linkId = await makeLinks(store);
  for (const c of columns(linkId, 20_000)) {
    await store.client`
      INSERT INTO clicks (link_id, source, query_source, referrer, user_agent, created_at, country)
      SELECT * FROM unnest(${c.linkId}::int[], ${c.source}::text[], ${c.querySource}::text[],
                           ${c.referrer}::text[], ${c.userAgent}::text[], ${c.createdAt}::bigint[],
                           ${c.country}::text[])`;
  }
  await store.client.unsafe(COUNT_THE_LOG_PG);
  await store.client.unsafe('VACUUM ANALYZE clicks, pending_values');
  await store.close();
}

/** Resident memory now and at its peak since the last reset, MiB. */
function rss(): { now: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kB = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { now: kB('VmRSS') / 1024, peak: kB('VmHWM') / 1024 };
}

/** Starts the peak (VmHWM) again from the current RSS. */
function resetPeak(): void {
  writeFileSync('/proc/self/clear_refs', '5');
}

const RAW_COLUMNS = {
  sqlite: `id, link_id AS linkId, created_at AS createdAt, source,
    query_source AS querySource, referrer, user_agent AS userAgent, country`,
  postgres: `id::float8 AS id, link_id AS "linkId", created_at::float8 AS "createdAt",
    source, query_source AS "querySource", referrer, user_agent AS "userAgent", country`,
};

/** The day rollups of a link over a range of days ($1 to $3), as both stores read them. */
const DAY_ROWS = `
  SELECT d.link_id AS "linkId", d.day, d.dimension, coalesce(s.value, '') AS value,
         CAST(d.clicks AS float8) AS clicks
  FROM click_days d LEFT JOIN click_strings s ON s.id = d.value
  WHERE d.link_id = $1 AND d.day BETWEEN $2 AND $3`;

/**
 * The stats as kurz made them before: the day rollups and every pending click of the
 * range read whole (the store's queries of then), each click folded in JS.
 */
async function oldStats(store: Store, code: string): Promise<string> {
  const link = await store.findLinkDetail(code);
  if (link === undefined) throw new Error(`${code} is missing`);
  const range = parseRange(new URLSearchParams(), Date.now());
  const [from, to] = [startOfDay(range.from), startOfDay(range.to + 1)];
  let days: DayCount[];
  let pending: ClickRow[];
  if (store.kind === 'sqlite') {
    const { sqlite } = store as SqliteStore;
    days = sqlite
      .query<DayCount, Record<string, number>>(DAY_ROWS)
      .all({ 1: link.id, 2: range.from, 3: range.to });
    pending = sqlite
      .query<ClickRow, [number, number, number]>(
        `SELECT ${RAW_COLUMNS.sqlite} FROM clicks
         WHERE id > (SELECT coalesce(max(through), 0) FROM click_rollup)
           AND link_id = ? AND created_at >= ? AND created_at < ?`,
      )
      .all(link.id, from, to);
  } else {
    const { client } = store as PostgresStore;
    days = await client.unsafe(DAY_ROWS, [link.id, range.from, range.to]);
    pending = await client.unsafe(
      `SELECT ${RAW_COLUMNS.postgres} FROM clicks
       WHERE link_id = $1 AND created_at >= $2 AND created_at < $3`,
      [link.id, from, to],
    );
  }
  const tally = new DayTally();
  for (const row of days) tally.addCount(row);
  for (const click of pending) tally.add(click);
  return JSON.stringify(buildStats(link.shortCode, link.clicks, range, tally.rows()));
}

/**
 * The stats as GET /api/links/{code}/stats makes them (src/analytics/routes.ts), without
 * the HTTP app: importing it would add its tables (the country ranges) to idle memory,
 * and a larger heap lets the collector leave more garbage, which would blur the figure.
 */
async function newStats(store: Store, code: string): Promise<string> {
  const link = await store.findLinkDetail(code);
  if (link === undefined) throw new Error(`${code} is missing`);
  const range = parseRange(new URLSearchParams(), Date.now());
  const traffic = await store.linkTraffic(link.id, range.from, range.to);
  const tally = new DayTally();
  for (const row of traffic.days) tally.addCount(row);
  for (const row of traffic.pending) tally.addCount(row);
  return JSON.stringify(buildStats(link.shortCode, link.clicks, range, tally.rows()));
}

/** In a child process: opens the seeded database and times `rounds` stats of the hot link. */
async function measure(engine: Engine, where: string, variant: Variant): Promise<Measured> {
  const store = await open(engine, where);
  const stats = (code: string) =>
    variant === 'old' ? oldStats(store, code) : newStats(store, code);
  for (let i = 0; i < 20; i++) await stats(QUIET);
  Bun.gc(true);
  const idle = rss().now;
  resetPeak();
  const rounds = variant === 'new' ? ROUNDS : OLD_ROUNDS;
  const times: number[] = [];
  let answer = '';
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    answer = await stats(HOT);
    times.push(performance.now() - started);
  }
  const peak = rss().peak;
  await store.close();
  return { idleMiB: idle, peakAboveIdleMiB: peak - idle, times, answer };
}

/** Runs one measurement in a fresh process, so each starts from the same idle memory. */
async function child(engine: Engine, where: string, variant: Variant): Promise<Measured> {
  const proc = Bun.spawn(
    [process.execPath, import.meta.path, '--child', engine, where, variant, ...argv],
    { stdout: 'pipe', stderr: 'inherit' },
  );
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`${engine} ${variant}: the child failed`);
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

function percentile(times: number[], p: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function compare(engine: Engine, where: string): Promise<void> {
  const now = await child(engine, where, 'new');
  const before = argv.includes('--no-old') ? undefined : await child(engine, where, 'old');
  const row = (name: string, m: Measured) =>
    `| ${name} | ${m.times.length} | ${fmt(percentile(m.times, 0.5), 0)} ms | ${fmt(percentile(m.times, 0.95), 0)} ms | ${fmt(m.idleMiB)} MiB | +${fmt(m.peakAboveIdleMiB)} MiB |`;
  console.log(`\n## ${engine}: ${fmt(CLICKS)} clicks in the log, stats of the last 30 days\n`);
  console.log('| stats | requests | p50 | p95 | idle RSS | peak RSS above idle |');
  console.log('|---|---|---|---|---|---|');
  console.log(row('now: read from pending_values', now));
  if (before !== undefined) {
    console.log(row('baseline: every click read and folded', before));
    const ratio = percentile(before.times, 0.5) / percentile(now.times, 0.5);
    console.log(
      `\np50 ${fmt(ratio, 1)}× faster, peak memory ${fmt(before.peakAboveIdleMiB / Math.max(1, now.peakAboveIdleMiB), 1)}× lower; same answer: ${now.answer === before.answer ? 'yes' : 'NO'}`,
    );
  }
}

if (argv[0] === '--child') {
  const [engine, where, variant] = argv.slice(1, 4) as [Engine, string, Variant];
  console.log(JSON.stringify(await measure(engine, where, variant)));
} else {
  console.log(`# Stats of a link with ${fmt(CLICKS)} clicks not rolled up`);
  const dir = mkdtempSync(join(tmpdir(), 'kurz-stats-backlog-'));
  try {
    const path = join(dir, 'kurz.db');
    let started = performance.now();
    await seedSqlite(path);
    console.log(`(sqlite: seeded in ${fmt((performance.now() - started) / 1000, 1)} s)`);
    await compare('sqlite', path);
    if (!argv.includes('--no-pg')) {
      const admin = new SQL(PG_URL);
      const name = `kurz_stats_backlog_${process.pid}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      const url = new URL(PG_URL);
      url.pathname = `/${name}`;
      try {
        started = performance.now();
        await seedPostgres(url.toString());
        console.log(`(postgres: seeded in ${fmt((performance.now() - started) / 1000, 1)} s)`);
        await compare('postgres', url.toString());
      } finally {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
