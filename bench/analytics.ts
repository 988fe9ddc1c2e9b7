// Analytics storage and stats speed, on SQLite and on PostgreSQL:
//   bun bench/analytics.ts [--hot 1000000] [--others 500000] [--links 1000] [--pg URL]
// Writes a realistic mix of clicks (user agents, referrers, sources, countries over 30
// days): `--hot` on one link, `--others` spread over the rest. Prints the bytes on disk
// per click with every click still in the log (the baseline: how kurz kept them before
// rollups), then once the rollup has moved them into records and day rollups; and the
// time of GET /api/links/{code}/stats for the hot link (30 days), with the same stats
// computed from the log by one GROUP BY per dimension as the baseline.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { createApp } from '../src/app.ts';
import { DomainRegistry } from '../src/domains/registry.ts';
import { openPostgres, type PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { openSqlite, type SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Click, Store } from '../src/store/store.ts';
import { fmt, numberFlag, pgUrlFlag } from './harness.ts';
import { median } from './wrk.ts';

const argv = process.argv.slice(2);
const HOT = numberFlag(argv, '--hot', 1_000_000);
const OTHERS = numberFlag(argv, '--others', 500_000);
const LINKS = numberFlag(argv, '--links', 1000);
const PG_URL = pgUrlFlag(argv, 'test');
const DAY = 86_400_000;

/** A small, repeatable random source, so every run writes the same clicks. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** Browsers, systems and versions as they mix in real traffic, and some bots. */
function userAgents(): string[] {
  const agents: string[] = [];
  for (let v = 110; v < 131; v++) {
    agents.push(
      `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
      `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
      `Mozilla/5.0 (Linux; Android 14; Pixel ${v % 8}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Mobile Safari/537.36`,
      `Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`,
    );
  }
  for (let v = 15; v < 18; v++) {
    for (const minor of [0, 1, 2, 3, 4, 5]) {
      agents.push(
        `Mozilla/5.0 (iPhone; CPU iPhone OS ${v}_${minor} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v}.${minor} Mobile/15E148 Safari/604.1`,
        `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v}.${minor} Safari/605.1.15`,
      );
    }
  }
  agents.push(
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'curl/8.5.0',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  );
  return agents;
}

const HOSTS = [
  'news.ycombinator.com',
  'www.reddit.com',
  't.co',
  'www.google.com',
  'l.facebook.com',
  'www.linkedin.com',
  'mail.google.com',
  'duckduckgo.com',
  'mastodon.social',
  'github.com',
];
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'IN', 'BR', 'JP', 'NL', 'CA', 'ES', 'IT', 'PL', 'SE'];

function* clicks(linkIds: number[], hotId: number): Generator<Click[]> {
  const next = random(42);
  const agents = userAgents();
  const now = Date.now();
  const total = HOT + OTHERS;
  let batch: Click[] = [];
  for (let i = 0; i < total; i++) {
    const hot = i % (total / HOT) < 1 && i / total < 1;
    const linkId = hot ? hotId : (linkIds[Math.floor(next() * linkIds.length)] as number);
    const r = next();
    batch.push({
      linkId,
      source: r < 0.3 ? 'newsletter' : r < 0.4 ? 'twitter' : null,
      querySource: r > 0.9 ? 'qr' : null,
      referrer:
        r < 0.35
          ? null
          : `https://${HOSTS[Math.floor(next() * HOSTS.length)]}/${Math.floor(next() * 200)}`,
      userAgent: agents[Math.floor(next() ** 2 * agents.length)] ?? null,
      createdAt: now - Math.floor(next() * 30 * DAY),
      address: null,
      country:
        next() < 0.05 ? null : (COUNTRIES[Math.floor(next() ** 2 * COUNTRIES.length)] ?? null),
      limited: false,
    });
    if (batch.length === 1000) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

async function seed(store: Store): Promise<{ hotId: number; hotCode: string }> {
  const links = await store.createLinks(
    Array.from({ length: LINKS }, (_, i) => ({
      userId: null,
      originalUrl: `https://example.com/article/${i}`,
      shortCode: `a${i}`,
      source: null,
      createdAt: Date.now() - 31 * DAY,
    })),
  );
  const ids = links.map((l) => (typeof l === 'object' ? l.id : 0));
  const hotId = ids[0] as number;
  for (const batch of clicks(ids.slice(1), hotId)) await store.recordClicks(batch);
  return { hotId, hotCode: 'a0' };
}

async function statsTimes(store: Store, code: string, rounds = 60): Promise<number[]> {
  const app = createApp({
    mode: 'open',
    store,
    jwtSecret: 'x'.repeat(32),
    tokenTtlSeconds: 60,
    baseUrl: () => 'http://localhost',
    domains: await DomainRegistry.open(store, () => 'http://localhost'),
  });
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const reply = await app.handle(new Request(`http://localhost/api/links/${code}/stats`));
    await reply.json();
    times.push(performance.now() - started);
    if (reply.status !== 200) throw new Error(`stats answered ${reply.status}`);
  }
  return times;
}

const GROUP_BY_LOG = [
  'SELECT user_agent, count(*) FROM clicks WHERE link_id = ? GROUP BY user_agent',
  'SELECT referrer, count(*) FROM clicks WHERE link_id = ? GROUP BY referrer',
  'SELECT source, count(*) FROM clicks WHERE link_id = ? GROUP BY source',
  'SELECT country, count(*) FROM clicks WHERE link_id = ? GROUP BY country',
  'SELECT created_at / 86400000, count(*) FROM clicks WHERE link_id = ? GROUP BY 1',
];

function report(name: string, total: number, logBytes: number, movedBytes: number) {
  console.log(`\n## ${name}: ${fmt(total)} clicks`);
  console.log(`  bytes per click, all in the log (baseline): ${fmt(logBytes / total, 1)}`);
  console.log(
    `  bytes per click, records + day rollups:       ${fmt(movedBytes / total, 1)}  (${fmt(movedBytes / logBytes, 2)} of the baseline)`,
  );
}

function reportStats(times: number[], baseline: number) {
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `  stats of the hot link (${fmt(HOT)} clicks, 30 days): p50 ${fmt(median(times), 2)} ms, p95 ${fmt(sorted[Math.floor(sorted.length * 0.95)] ?? 0, 2)} ms`,
  );
  console.log(`  baseline, GROUP BY over the log for the same link: ${fmt(baseline, 1)} ms`);
}

async function sqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-analytics-'));
  try {
    const store = openSqlite({
      path: join(dir, 'kurz.db'),
      durability: 'normal',
      moveClicks: false,
      rollup: { intervalMs: 0 },
    }) as SqliteStore;
    const started = performance.now();
    const { hotId, hotCode } = await seed(store);
    console.log(`(sqlite: wrote the clicks in ${fmt((performance.now() - started) / 1000, 1)} s)`);
    store.rollup.flush();
    const used = () => {
      const q = (pragma: string) =>
        (store.sqlite.query(`PRAGMA ${pragma}`).get() as Record<string, number>)[pragma] as number;
      return (q('page_count') - q('freelist_count')) * q('page_size');
    };
    const logBytes = used();
    const groupStarted = performance.now();
    for (const text of GROUP_BY_LOG) store.sqlite.query(text).all(hotId);
    const baseline = performance.now() - groupStarted;
    const moveStarted = performance.now();
    await store.rollUpClicks();
    const moveSeconds = (performance.now() - moveStarted) / 1000;
    const movedBytes = used();
    report('SQLite', HOT + OTHERS, logBytes, movedBytes);
    console.log(
      `  rollup: ${fmt(moveSeconds, 1)} s, ${fmt((moveSeconds * 1e6) / (HOT + OTHERS), 1)} µs per click`,
    );
    reportStats(await statsTimes(store, hotCode), baseline);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres() {
  const admin = new SQL(PG_URL);
  const name = `kurz_bench_${process.pid}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  try {
    const store = (await openPostgres({
      url: url.toString(),
      pool: 4,
      deadlineMs: 0,
      analyticsIntervalMs: 0,
    })) as PostgresStore;
    const started = performance.now();
    const { hotId, hotCode } = await seed(store);
    console.log(
      `(postgres: wrote the clicks in ${fmt((performance.now() - started) / 1000, 1)} s)`,
    );
    const tables = ['clicks', 'click_records', 'click_days', 'click_strings', 'click_agents'];
    const used = async () => {
      await store.client.unsafe(`VACUUM ANALYZE ${tables.join(', ')}`);
      const [row] = await store.client.unsafe(
        `SELECT (${tables.map((t) => `pg_total_relation_size('${t}')`).join(' + ')})::float8 AS bytes`,
      );
      return row.bytes as number;
    };
    const logBytes = await used();
    const groupStarted = performance.now();
    for (const text of GROUP_BY_LOG) await store.client.unsafe(text.replace('?', '$1'), [hotId]);
    const baseline = performance.now() - groupStarted;
    const moveStarted = performance.now();
    await store.rollUpClicks();
    const moveSeconds = (performance.now() - moveStarted) / 1000;
    // The log's pages are empty now; VACUUM FULL gives them back, as autovacuum's reuse would in time.
    await store.client.unsafe('VACUUM FULL clicks');
    const movedBytes = await used();
    report('PostgreSQL', HOT + OTHERS, logBytes, movedBytes);
    console.log(
      `  rollup: ${fmt(moveSeconds, 1)} s, ${fmt((moveSeconds * 1e6) / (HOT + OTHERS), 1)} µs per click`,
    );
    reportStats(await statsTimes(store, hotCode), baseline);
    await store.close();
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

console.log(
  `# Analytics: ${fmt(HOT)} clicks on one link and ${fmt(OTHERS)} over ${fmt(LINKS - 1)} others, 30 days, ${userAgents().length} user agents`,
);
await sqlite();
if (!argv.includes('--no-pg')) await postgres();
