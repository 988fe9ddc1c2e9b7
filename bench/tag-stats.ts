// Stats of a tag: GET /api/tags/{tag}/stats for a tag carried by 1,000 links that have
// 1,000,000 clicks over the last 90 days, rolled up, on SQLite and on PostgreSQL. Prints
// p50 and p95 of the request in process (the app's own handler: routing, the store, the
// fold, the JSON) for the default range (30 days) and for all 90, then for 30 days again
// with a few thousand more clicks still in the click log; and the CPU time each request
// took in kurz and in PostgreSQL, which a busy machine does not inflate as it does the
// latency. Against the baseline of the same run: the same answer with the tag's day
// counts summed from its links' click_days at request time, as a tag's stats would be
// made without tag_days. The two answers are compared.
// The day rollups are written with SQL directly, from clicks drawn in memory and counted
// per link, day, dimension and value as the rollup counts them (far quicker than moving a
// million clicks through the log); tag_days is then filled by the statement the 0007
// migration fills it with (SUM_TAG_DAYS), and the link counts from the day counts.
// Usage: bun bench/tag-stats.ts [--clicks 1000000] [--links 1000] [--backlog 5000]
//        [--rounds 30] [--baseline-rounds 3] [--no-pg] [--pg URL]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { dayOf } from '../src/analytics/fold.ts';
import { referrerHost } from '../src/analytics/referrers.ts';
import { buildTraffic, parseRange } from '../src/analytics/stats.ts';
import { describeAgent } from '../src/analytics/user-agents.ts';
import { createApp } from '../src/app.ts';
import { type DayCount, Dimension } from '../src/domain/clicks.ts';
import { DomainRegistry } from '../src/domains/registry.ts';
import { openPostgres, type PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SUM_TAG_DAYS as SUM_TAG_DAYS_PG } from '../src/store/postgres/tags.ts';
import { openSqlite, type SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { SUM_TAG_DAYS } from '../src/store/sqlite/tags.ts';
import type { Click, Store } from '../src/store/store.ts';
import { cpuTicksOf, fmt, numberFlag, pgUrlFlag } from './harness.ts';

const argv = process.argv.slice(2);
const CLICKS = numberFlag(argv, '--clicks', 1_000_000);
const LINKS = numberFlag(argv, '--links', 1000);
const ROUNDS = numberFlag(argv, '--rounds', 30);
const BASELINE_ROUNDS = numberFlag(argv, '--baseline-rounds', 3);
const PG_URL = pgUrlFlag(argv);
const DAYS = 90;
/** Links of another tag, with a fifth as many clicks: rows the tag's stats must not read. */
const OTHER_LINKS = Math.round(LINKS / 5);
/** Clicks still in the log (pending_values), as a rollup running every second leaves some. */
const BACKLOG = numberFlag(argv, '--backlog', 5000);
const TAG = 'promo';
const DAY = 86_400_000;

/** A small, repeatable random source (mulberry32), so every run writes the same clicks. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** About 130 user agents as they mix in real traffic (a few bots), 10 referrer sites, 13 countries. */
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
  const countries = ['US', 'DE', 'GB', 'FR', 'IN', 'BR', 'JP', 'NL', 'CA', 'ES', 'IT', 'PL', 'SE'];
  return { agents, referrers: hosts.map((host) => `https://${host}/`), countries };
}

/** Click-day rows as columns, ready for SQL: the day rollups the clicks would have made. */
interface DayRows {
  linkIds: number[];
  days: number[];
  dimensions: number[];
  values: number[];
  clicks: number[];
  /** click_strings: ids 1… in order. */
  strings: string[];
}

/**
 * Draws the clicks and counts them per link, day, dimension and value, as the rollup's
 * fold does (one count for people or bots, one per dimension with a value). Keys pack
 * (link, day, dimension, value) into one number, so a million clicks take a second.
 */
function dayRows(ids: readonly number[], today: number): DayRows {
  const next = random(42);
  const { agents, referrers, countries } = mix();
  const strings: string[] = [];
  const idOf = new Map<string, number>();
  const intern = (value: string) => {
    let id = idOf.get(value);
    if (id === undefined) {
      strings.push(value);
      id = strings.length;
      idOf.set(value, id);
    }
    return id;
  };
  const parsed = agents.map((ua) => {
    const agent = describeAgent(ua);
    return {
      bot: agent.bot,
      values: [intern(agent.browser), intern(agent.os), intern(agent.device)],
    };
  });
  const direct = intern(referrerHost(null));
  const hosts = referrers.map((r) => intern(referrerHost(r)));
  const places = countries.map(intern);
  const unknown = intern('unknown');
  const [newsletter, qr] = [intern('newsletter'), intern('qr')];
  const counts = new Map<number, number>();
  const count = (link: number, day: number, dimension: number, value: number) => {
    const key = ((link * 128 + day) * 16 + dimension) * 4096 + value;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  const total = CLICKS + Math.round(CLICKS / 5);
  for (let i = 0; i < total; i++) {
    // The tag's links take CLICKS, a few of them most; the other tag's links the rest.
    const link =
      i < CLICKS ? Math.floor(next() ** 2 * LINKS) : LINKS + Math.floor(next() * OTHER_LINKS);
    const day = Math.floor(next() * DAYS);
    const agent = parsed[Math.floor(next() ** 2 * parsed.length)] as (typeof parsed)[number];
    count(link, day, agent.bot ? Dimension.bots : Dimension.humans, 0);
    count(link, day, Dimension.browser, agent.values[0] as number);
    count(link, day, Dimension.os, agent.values[1] as number);
    count(link, day, Dimension.device, agent.values[2] as number);
    // A third of the links were made with a source, which each of their clicks carries.
    if (link % 3 === 0) count(link, day, Dimension.source, newsletter);
    if (next() < 0.1) count(link, day, Dimension.querySource, qr);
    const host = next() < 0.35 ? direct : (hosts[Math.floor(next() * hosts.length)] as number);
    count(link, day, Dimension.referrer, host);
    const c = next();
    count(
      link,
      day,
      Dimension.country,
      c < 0.05 ? unknown : (places[Math.floor(c ** 2 * 13)] as number),
    );
  }
  const rows: DayRows = { linkIds: [], days: [], dimensions: [], values: [], clicks: [], strings };
  for (const [key, n] of counts) {
    const value = key % 4096;
    const dimension = Math.floor(key / 4096) % 16;
    const day = Math.floor(key / 4096 / 16) % 128;
    const link = Math.floor(key / 4096 / 16 / 128);
    rows.linkIds.push(ids[link] as number);
    rows.days.push(today - day);
    rows.dimensions.push(dimension);
    rows.values.push(value);
    rows.clicks.push(n);
  }
  return rows;
}

/** Makes the tag's links and the other tag's; returns their ids, the tag's first. */
async function makeLinks(store: Store): Promise<number[]> {
  const made = await store.createLinks(
    Array.from({ length: LINKS + OTHER_LINKS }, (_, i) => ({
      userId: null,
      originalUrl: `https://example.com/${i}`,
      shortCode: `l${i}`,
      source: i % 3 === 0 ? 'newsletter' : null,
      createdAt: Date.now() - (DAYS + 1) * DAY,
      tags: i < LINKS ? [TAG, `t${i % 7}`] : ['other'],
    })),
  );
  return made.map((link) => {
    if (typeof link !== 'object') throw new Error('a link was not made');
    return link.id;
  });
}

/** Clicks of today still in the log, spread over the tag's links. */
function backlog(ids: readonly number[]): Click[] {
  const next = random(7);
  const { agents, referrers, countries } = mix();
  return Array.from({ length: BACKLOG }, (_, i) => ({
    linkId: ids[Math.floor(next() * LINKS)] as number,
    source: null,
    querySource: null,
    referrer: next() < 0.35 ? null : `${referrers[i % referrers.length]}${i % 50}`,
    userAgent: agents[Math.floor(next() * agents.length)] ?? null,
    createdAt: Date.now() - Math.floor(next() * 3_600_000),
    address: null,
    country: countries[i % countries.length] ?? null,
    limited: false,
  }));
}

async function seedSqlite(store: SqliteStore, rows: DayRows): Promise<void> {
  const { sqlite } = store;
  const string = sqlite.prepare('INSERT INTO click_strings (id, value) VALUES (?, ?)');
  const day = sqlite.prepare(
    'INSERT INTO click_days (link_id, day, dimension, value, clicks) VALUES (?, ?, ?, ?, ?)',
  );
  sqlite.transaction(() => {
    for (const [i, value] of rows.strings.entries()) string.run(i + 1, value);
    for (let i = 0; i < rows.linkIds.length; i++) {
      day.run(
        rows.linkIds[i] as number,
        rows.days[i] as number,
        rows.dimensions[i] as number,
        rows.values[i] as number,
        rows.clicks[i] as number,
      );
    }
    sqlite.run(`INSERT INTO counts.link_clicks (link_id, clicks)
      SELECT link_id, sum(clicks) FROM click_days WHERE dimension IN (0, 1) GROUP BY link_id`);
    sqlite.run(SUM_TAG_DAYS);
  })();
  string.finalize();
  day.finalize();
}

async function seedPostgres(store: PostgresStore, rows: DayRows): Promise<void> {
  const { client } = store;
  await client`INSERT INTO click_strings (id, value)
    SELECT * FROM unnest(${rows.strings.map((_, i) => i + 1)}::int[], ${rows.strings}::text[])`;
  await client`SELECT setval(pg_get_serial_sequence('click_strings', 'id'), ${rows.strings.length})`;
  const size = 100_000;
  for (let i = 0; i < rows.linkIds.length; i += size) {
    const part = <T>(column: T[]) => column.slice(i, i + size);
    await client`INSERT INTO click_days (link_id, day, dimension, value, clicks)
      SELECT * FROM unnest(${part(rows.linkIds)}::int[], ${part(rows.days)}::int[],
                           ${part(rows.dimensions)}::smallint[], ${part(rows.values)}::int[],
                           ${part(rows.clicks)}::bigint[])`;
  }
  await client`INSERT INTO link_clicks (link_id, shard, clicks)
    SELECT link_id, 0, sum(clicks) FROM click_days WHERE dimension IN (0, 1) GROUP BY link_id`;
  await client.unsafe(SUM_TAG_DAYS_PG);
  await client.unsafe('VACUUM');
}

/** The tag's day counts summed from its links' click_days at request time: the baseline. */
const SUMMED_DAYS = `
  SELECT 0 AS "linkId", d.day, d.dimension, coalesce(s.value, '') AS value,
         CAST(sum(d.clicks) AS float8) AS clicks
  FROM link_tags g JOIN click_days d ON d.link_id = g.link_id AND d.day BETWEEN $2 AND $3
  LEFT JOIN click_strings s ON s.id = d.value
  WHERE g.tag = $1 GROUP BY d.day, d.dimension, d.value, s.value`;

/** The answer made the baseline's way: tagTraffic for the rest, its day counts ignored. */
async function baselineStats(store: Store, query: string): Promise<string> {
  const range = parseRange(new URLSearchParams(query), Date.now());
  const params = { 1: TAG, 2: range.from, 3: range.to };
  const days: DayCount[] =
    store.kind === 'sqlite'
      ? ((store as SqliteStore).sqlite.query(SUMMED_DAYS).all(params) as DayCount[])
      : await (store as PostgresStore).client.unsafe(SUMMED_DAYS, [TAG, range.from, range.to]);
  const traffic = await store.tagTraffic(TAG, null, range.from, range.to);
  if (traffic === undefined) throw new Error('the tag has no links');
  const stats = {
    tag: TAG,
    links: traffic.links,
    ...buildTraffic(traffic.clicks, range, [...days, ...traffic.pending]),
  };
  return JSON.stringify(stats);
}

/**
 * CPU time so far (ms) of the PostgreSQL backends serving `store`'s database, from
 * /proc (the server runs on this machine); 0 on SQLite, where kurz's process does it all.
 */
async function serverCpuMs(store: Store): Promise<number> {
  if (store.kind !== 'postgres') return 0;
  const rows: { pid: number }[] = await (store as PostgresStore).client`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database()`;
  return rows.reduce((sum, row) => sum + cpuTicksOf(row.pid), 0) * 10;
}

function percentile(times: number[], p: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/**
 * `rounds` runs: their times, the last answer, and this process's CPU time per run (user
 * and system: what other processes on a busy machine do not inflate, unlike the times).
 */
async function timed(rounds: number, run: () => Promise<string>) {
  const times: number[] = [];
  let answer = '';
  const cpu = process.cpuUsage();
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    answer = await run();
    times.push(performance.now() - started);
  }
  const used = process.cpuUsage(cpu);
  return { times, answer, cpuMs: (used.user + used.system) / 1000 / rounds };
}

/** Table statistics as autovacuum (or SQLite's optimize) would have them by now. */
async function analyze(store: Store): Promise<void> {
  if (store.kind === 'sqlite') (store as SqliteStore).sqlite.run('ANALYZE');
  else await (store as PostgresStore).client.unsafe('ANALYZE');
}

/**
 * Seeds a store and measures it, all clicks rolled up (the default range and all 90
 * days), then with the backlog in the log too; prints its rows of the table.
 */
async function measure(store: Store, name: string): Promise<void> {
  const started = performance.now();
  const ids = await makeLinks(store);
  const rows = dayRows(ids, dayOf(Date.now()));
  if (store.kind === 'sqlite') await seedSqlite(store as SqliteStore, rows);
  else await seedPostgres(store as PostgresStore, rows);
  await analyze(store);
  const seconds = fmt((performance.now() - started) / 1000, 1);
  console.log(`(${name}: ${fmt(rows.linkIds.length)} rows of click_days, seeded in ${seconds} s)`);

  const app = createApp({
    mode: 'open',
    store,
    jwtSecret: 'bench-secret-bench-secret-bench-secret-0',
    tokenTtlSeconds: 3600,
    baseUrl: () => 'http://localhost',
    domains: await DomainRegistry.open(store, () => 'http://localhost'),
  });
  const endpoint = async (query: string) => {
    const response = await app.handle(
      new Request(`http://localhost/api/tags/${TAG}/stats${query}`),
    );
    if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
    return JSON.stringify(await response.json());
  };
  const all = `?from=${new Date(Date.now() - (DAYS - 1) * DAY).toISOString().slice(0, 10)}`;
  for (const [range, query, log] of [
    ['30 days (default)', '', 0],
    [`${DAYS} days`, all, 0],
    ['30 days (default)', '', BACKLOG],
  ] as const) {
    if (log > 0) {
      await store.recordClicks(backlog(ids));
      await analyze(store);
    }
    await timed(3, () => endpoint(query));
    const server = await serverCpuMs(store);
    const now = await timed(ROUNDS, () => endpoint(query));
    const serverMs = ((await serverCpuMs(store)) - server) / ROUNDS;
    const baseline = await timed(BASELINE_ROUNDS, () => baselineStats(store, query));
    const [p50, p95] = [percentile(now.times, 0.5), percentile(now.times, 0.95)];
    const ratio = percentile(baseline.times, 0.5) / p50;
    const clicks = JSON.parse(now.answer).range.clicks as number;
    console.log(
      `| ${name} | ${range} | ${fmt(log)} | ${fmt(clicks)} | **${fmt(p50, 1)} ms** | ${fmt(p95, 1)} ms | ${fmt(now.cpuMs, 1)} ms | ${store.kind === 'postgres' ? `${fmt(serverMs, 1)} ms` : '–'} | ${fmt(percentile(baseline.times, 0.5), 0)} ms | ${fmt(ratio, 0)}× | ${now.answer === baseline.answer ? 'yes' : 'NO'} |`,
    );
  }
}

console.log(
  `# Stats of a tag over ${fmt(LINKS)} links: ${fmt(CLICKS)} clicks over ${DAYS} days rolled up\n`,
);
console.log(
  '| database | range | clicks in the log | clicks in range | p50 | p95 | CPU per request: kurz | PostgreSQL | baseline p50 (summed at request time) | ratio | same answer |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const dir = mkdtempSync(join(tmpdir(), 'kurz-tag-stats-'));
try {
  const sqlite = openSqlite({
    path: join(dir, 'kurz.db'),
    durability: 'normal',
    moveClicks: false,
    rollup: { intervalMs: 0 },
  });
  try {
    await measure(sqlite, 'SQLite');
  } finally {
    await sqlite.close();
  }
  if (!argv.includes('--no-pg')) {
    const admin = new SQL(PG_URL);
    const name = `kurz_tag_stats_${process.pid}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    try {
      const pg = await openPostgres({
        url: url.toString(),
        pool: 4,
        deadlineMs: 0,
        analyticsIntervalMs: 0,
      });
      try {
        await measure(pg, 'PostgreSQL');
      } finally {
        await pg.close();
      }
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
