// kurz on PostgreSQL, by the method of run.ts: in one run and interleaved rounds, a bare
// Bun.serve ceiling, kurz on SQLite, kurz on PostgreSQL and two kurz instances on one
// PostgreSQL database under the same total load; every figure also as a ratio to the
// ceiling, and every click counted in the database checked against the 307s received.
// Then creates, and a page of the list with 1,000,000 links. Prints numbers and ratios;
// never part of the test run.
//
//   bun run build && bun bench/postgres.ts [redirect|create|list|all] [--rounds N] [--seconds S]
//     [--pg postgres://postgres@127.0.0.1:5432] [--pool N] [--links N] [--synchronous-commit off]
//
// It creates its own databases (kurz_bench_<pid>_*) on that server and drops them at the
// end. kurz runs on CPU 0, wrk on CPU 1; PostgreSQL is a shared server and is not pinned,
// so its processes take CPU time on either core (printed per request beside kurz's).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import {
  BINARY,
  clicksOf,
  cpuTicksOf,
  createLink,
  fmt,
  KURZ_LINE,
  memoryOf,
  numberFlag,
  type Server,
  seedLinks,
  serveArgs,
  startServer,
} from './harness.ts';
import { median, summarise as summariseWrk, type WrkResult, wrk } from './wrk.ts';

const SERVER_CPU = 0;
const LOAD_CPU = 1;
const CONNECTIONS = 64;

const argv = process.argv.slice(2);
const ROUNDS = numberFlag(argv, '--rounds', 5);
const SECONDS = numberFlag(argv, '--seconds', 5);
const LINKS = numberFlag(argv, '--links', 1_000_000);
const POOL = numberFlag(argv, '--pool', 0);
const pgIndex = argv.indexOf('--pg');
const syncIndex = argv.indexOf('--synchronous-commit');
/** A diagnostic: `off` shows what waiting for the WAL flush costs (commits stay atomic, not durable). */
const SYNCHRONOUS_COMMIT = syncIndex === -1 ? undefined : String(argv[syncIndex + 1]);
if (SYNCHRONOUS_COMMIT !== undefined && !['on', 'off', 'local'].includes(SYNCHRONOUS_COMMIT))
  throw new Error('--synchronous-commit takes on, off or local');
/** The server's URL without a database name. */
const PG_BASE = (() => {
  const url = new URL(
    pgIndex === -1 ? 'postgres://postgres@127.0.0.1:5432' : String(argv[pgIndex + 1]),
  );
  url.pathname = '';
  return url.toString().replace(/\/$/, '');
})();
const sections = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
const KNOWN = ['redirect', 'create', 'list', 'all'];
for (const s of sections)
  if (!KNOWN.includes(s)) throw new Error(`unknown section ${s}; use ${KNOWN.join(', ')}`);
const wanted = (name: string) =>
  sections.length === 0 || sections.includes('all') || sections.includes(name);

const work = mkdtempSync(join(tmpdir(), 'kurz-bench-pg-'));
const PREFIX = `kurz_bench_${process.pid}`;
const admin = new SQL(`${PG_BASE}/postgres`, { max: 1 });
const created: string[] = [];

/** A fresh database of this run (dropped at the end), and its URL. */
async function createDatabase(suffix: string): Promise<string> {
  const name = `${PREFIX}_${suffix}`;
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  created.push(name);
  if (SYNCHRONOUS_COMMIT !== undefined) {
    // This database's sessions only; the server's configuration is left alone.
    await admin.unsafe(`ALTER DATABASE "${name}" SET synchronous_commit = ${SYNCHRONOUS_COMMIT}`);
  }
  return `${PG_BASE}/${name}`;
}

async function dropDatabases() {
  for (const name of created) await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  created.length = 0;
}

function startPinned(command: string[], pattern: RegExp) {
  return startServer(['taskset', '-c', String(SERVER_CPU), ...command], pattern, { cwd: work });
}

function startKurz(db: string, mode = 'open', extra: string[] = []) {
  const pool = POOL > 0 && db.startsWith('postgres') ? ['--db-pool', String(POOL)] : [];
  return startPinned([BINARY, ...serveArgs(db, mode, [...pool, ...extra])], KURZ_LINE);
}

function startCeiling() {
  return startPinned(
    ['bun', join(import.meta.dir, 'ceiling.ts'), '0'],
    /listening on http:\/\/[^:]+:(\d+)/,
  );
}

/**
 * PostgreSQL's processes that work for one database: its backends (kurz's pool, the
 * listening connection) and the WAL writer, which flushes their commits. Other
 * databases' load on the shared WAL writer would count too; on a quiet server there is none.
 */
async function postgresPids(pg: SQL, db: string): Promise<number[]> {
  const rows: { pid: number }[] = await pg`
    SELECT pid FROM pg_stat_activity
    WHERE (datname = ${db} AND pid <> pg_backend_pid()) OR backend_type = 'walwriter'`;
  return rows.map((r) => r.pid);
}

/** Samples, a few times a second, what kurz's backends of `dbs` wait for. */
function sampleWaits(dbs: string[], everyMs = 200) {
  const pg = new SQL(`${PG_BASE}/postgres`, { max: 1 });
  let samples = 0;
  let withLockWaiter = 0;
  let lockWaiters = 0;
  let mostActive = 0;
  let oldestMs = 0;
  const events = new Map<string, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const rows: { wait: string | null; type: string | null; ms: number; state: string }[] =
        await pg`
        SELECT wait_event AS wait, wait_event_type AS type, state,
               (extract(epoch FROM clock_timestamp() - query_start) * 1000)::float8 AS ms
        FROM pg_stat_activity
        WHERE datname IN ${pg(dbs)} AND state IN ('active', 'idle in transaction') AND pid <> pg_backend_pid()
          AND query NOT LIKE 'LISTEN%'`;
      samples++;
      const active = rows.filter((r) => r.state === 'active');
      mostActive = Math.max(mostActive, active.length);
      for (const r of active) oldestMs = Math.max(oldestMs, r.ms);
      const locked = rows.filter((r) => r.type === 'Lock').length;
      if (locked > 0) withLockWaiter++;
      lockWaiters += locked;
      for (const r of rows) {
        // Idle in a transaction: waiting for kurz's next statement of it.
        const key =
          r.state !== 'active' ? 'idle in transaction' : r.type ? `${r.type}:${r.wait}` : 'CPU';
        events.set(key, (events.get(key) ?? 0) + 1);
      }
      await Bun.sleep(everyMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await pg.close();
      return { samples, withLockWaiter, lockWaiters, events, mostActive, oldestMs };
    },
  };
}

type Waits = Awaited<ReturnType<ReturnType<typeof sampleWaits>['stop']>>;

function mergeWaits(all: Waits[]): Waits {
  const events = new Map<string, number>();
  for (const w of all) for (const [e, n] of w.events) events.set(e, (events.get(e) ?? 0) + n);
  return {
    samples: all.reduce((a, w) => a + w.samples, 0),
    withLockWaiter: all.reduce((a, w) => a + w.withLockWaiter, 0),
    lockWaiters: all.reduce((a, w) => a + w.lockWaiters, 0),
    mostActive: Math.max(0, ...all.map((w) => w.mostActive)),
    oldestMs: Math.max(0, ...all.map((w) => w.oldestMs)),
    events,
  };
}

/** Click batches so far: each batch adds its clicks of one link to one row of link_clicks. */
async function batchesOf(url: string) {
  const pg = new SQL(url, { max: 1 });
  try {
    const [row]: { clicks: number }[] = await pg`SELECT count(*)::float8 AS clicks FROM clicks`;
    const clicks = row?.clicks ?? 0;
    // A backend reports its table statistics when it exits, or up to 10 s after it goes idle.
    for (let i = 0; i < 80; i++) {
      const [s]: { inserted: number; batches: number }[] = await pg`
        SELECT (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'clicks')::float8 AS inserted,
               (SELECT n_tup_ins + n_tup_upd FROM pg_stat_user_tables WHERE relname = 'link_clicks')::float8 AS batches`;
      if (s && s.inserted >= clicks) return { clicks, batches: s.batches };
      await Bun.sleep(250);
    }
    return { clicks, batches: Number.NaN };
  } finally {
    await pg.close();
  }
}

/** Share of the samples per wait event ("CPU": active, waiting for nothing). */
function describeWaits(events: Map<string, number>): string {
  const seen = [...events.values()].reduce((a, b) => a + b, 0);
  return [...events]
    .sort((a, b) => b[1] - a[1])
    .map(([e, n]) => `${e} ${pct(n, seen)}`)
    .join(', ');
}

/** Transactions committed in a database so far, once its statistics count `links` inserted links. */
async function transactionsOf(url: string, links: number): Promise<number> {
  const pg = new SQL(url, { max: 1 });
  try {
    for (let i = 0; i < 80; i++) {
      const [s]: { inserted: number; commits: number }[] = await pg`
        SELECT (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'links')::float8 AS inserted,
               (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::float8 AS commits`;
      if (s && s.inserted >= links) return s.commits;
      await Bun.sleep(250);
    }
    return Number.NaN;
  } finally {
    await pg.close();
  }
}

async function sumClicks(url: string): Promise<{ counted: number; logged: number }> {
  const pg = new SQL(url, { max: 1 });
  try {
    const [row]: { counted: number; logged: number }[] = await pg`
      SELECT (SELECT coalesce(sum(clicks), 0) FROM link_clicks)::float8 AS counted,
             (SELECT count(*) FROM clicks)::float8 AS logged`;
    return row as { counted: number; logged: number };
  } finally {
    await pg.close();
  }
}

const pct = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;

interface Round extends WrkResult {
  /** PostgreSQL's CPU time per request (µs), when measured. */
  pgUs: number;
  /** kurz's CPU time over the round's wall time: 1.0 is CPU 0 fully busy. */
  busy: number;
}

function summarise(name: string, runs: Round[]) {
  return {
    ...summariseWrk(name, runs),
    pg: median(runs.map((r) => r.pgUs)),
    busy: median(runs.map((r) => r.busy)),
  };
}
type Summary = ReturnType<typeof summarise>;

function printRow(s: Summary) {
  const cpu = Number.isNaN(s.cpu)
    ? ''
    : `   kurz CPU ${fmt(s.cpu, 1).padStart(5)} µs/req${Number.isNaN(s.busy) ? '' : ` (CPU 0 ${(100 * s.busy).toFixed(0)}% busy)`}`;
  const pg = Number.isNaN(s.pg) ? '' : `   PostgreSQL CPU ${fmt(s.pg, 1).padStart(5)} µs/req`;
  console.log(
    `  ${s.name.padEnd(40)} ${fmt(s.rps).padStart(9)} req/s   p50 ${fmt(s.p50, 2).padStart(6)} ms   p99 ${fmt(s.p99, 2).padStart(6)} ms${cpu}${pg}${s.bad ? `   (${s.bad} errors/non-3xx)` : ''}`,
  );
}

/**
 * One round against one or more kurz instances: the connections split evenly among
 * them, one wrk each, all started together on the load CPU; their requests add up, p50
 * is the mean and p99 the worst of theirs (wrk reports no histogram to merge).
 */
async function round(
  servers: Server[],
  path: string,
  seconds: number,
  pg?: { client: SQL; db: string },
): Promise<Round> {
  const pids = pg ? await postgresPids(pg.client, pg.db) : [];
  const before = pids.reduce((a, pid) => a + cpuTicksOf(pid), 0);
  const cpuBefore = servers.reduce((a, s) => a + cpuTicksOf(s.pid), 0);
  const results = await Promise.all(
    servers.map((s) =>
      wrk({
        url: `${s.url}${path}`,
        seconds,
        cpu: LOAD_CPU,
        connections: CONNECTIONS / servers.length,
      }),
    ),
  );
  const cpuTicksUsed = servers.reduce((a, s) => a + cpuTicksOf(s.pid), 0) - cpuBefore;
  const pgTicks = pids.reduce((a, pid) => a + cpuTicksOf(pid), 0) - before;
  const requests = results.reduce((a, r) => a + r.requests, 0);
  return {
    busy: cpuTicksUsed / (seconds * 100),
    requests,
    rps: results.reduce((a, r) => a + r.rps, 0),
    p50ms: results.reduce((a, r) => a + r.p50ms, 0) / results.length,
    p99ms: Math.max(...results.map((r) => r.p99ms)),
    errors: results.reduce((a, r) => a + r.errors, 0),
    non2xx3xx: results.reduce((a, r) => a + r.non2xx3xx, 0),
    cpuUs: (cpuTicksUsed * 10_000) / Math.max(1, requests),
    pgUs: pg ? (pgTicks * 10_000) / Math.max(1, requests) : Number.NaN,
  };
}

async function benchRedirect() {
  console.log(
    `\n# Redirect with durable click: ceiling, SQLite, PostgreSQL, two instances on one PostgreSQL database (${ROUNDS} interleaved rounds of ${SECONDS}s, ${CONNECTIONS} connections in all)`,
  );
  const oneUrl = await createDatabase('one');
  const twoUrl = await createDatabase('two');
  const oneDb = `${PREFIX}_one`;
  const twoDb = `${PREFIX}_two`;
  const monitor = new SQL(`${PG_BASE}/postgres`, { max: 1 });

  const ceiling = await startCeiling();
  const sqlite = await startKurz(join(work, 'redirect.db'));
  const one = await startKurz(oneUrl);
  // The second instance of a pair starts once the first has migrated the database.
  const twoA = await startKurz(twoUrl);
  const twoB = await startKurz(twoUrl);
  for (const s of [sqlite, one, twoA]) {
    await createLink(s.url, { url: 'https://example.com/bench', custom_code: 'bench' });
  }
  const path = '/bench';
  const kinds = [
    { key: 'ceiling', label: 'ceiling (Bun.serve + Map, 307)', servers: [ceiling] },
    { key: 'sqlite', label: 'kurz on SQLite', servers: [sqlite] },
    {
      key: 'one',
      label: 'kurz on PostgreSQL',
      servers: [one],
      pg: { client: monitor, db: oneDb },
    },
    {
      key: 'two',
      label: '2 × kurz on one PostgreSQL database',
      servers: [twoA, twoB],
      pg: { client: monitor, db: twoDb },
    },
  ] as const;
  const received = { ceiling: 0, sqlite: 0, one: 0, two: 0 };
  const runs: Record<string, Round[]> = { ceiling: [], sqlite: [], one: [], two: [] };
  // Warm-up: JIT, caches, connections of the pools.
  for (const k of kinds) received[k.key] += (await round([...k.servers], path, 2)).requests;
  const waits: Record<string, Waits[]> = { one: [], two: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of kinds) {
      const pg = 'pg' in k ? k.pg : undefined;
      const sampler = pg ? sampleWaits([pg.db]) : undefined;
      const result = await round([...k.servers], path, SECONDS, pg);
      if (sampler) waits[k.key]?.push(await sampler.stop());
      received[k.key] += result.requests;
      runs[k.key]?.push(result);
    }
  }
  const s = Object.fromEntries(kinds.map((k) => [k.key, summarise(k.label, runs[k.key] ?? [])]));
  const c = s.ceiling as Summary;
  for (const k of kinds) printRow(s[k.key] as Summary);
  console.log('  ratios to the ceiling (target for PostgreSQL, one instance: ≥ 0.50 throughput):');
  for (const k of kinds.slice(1)) {
    const x = s[k.key] as Summary;
    const cpu = Number.isNaN(x.pg) ? x.cpu : x.cpu + x.pg;
    console.log(
      `    ${x.name.padEnd(38)} throughput ${(x.rps / c.rps).toFixed(3)}, by kurz CPU per request ${(c.cpu / x.cpu).toFixed(3)}${Number.isNaN(x.pg) ? '' : `, by kurz + PostgreSQL CPU ${(c.cpu / cpu).toFixed(3)}`}; p99 ${(x.p99 / c.p99).toFixed(2)}x`,
    );
  }
  console.log(
    `  RSS after load: ceiling ${fmt(memoryOf(ceiling.pid).total, 1)} MiB, SQLite ${fmt(memoryOf(sqlite.pid).total, 1)} MiB, PostgreSQL ${fmt(memoryOf(one.pid).total, 1)} MiB, pair ${fmt(memoryOf(twoA.pid).total, 1)} + ${fmt(memoryOf(twoB.pid).total, 1)} MiB`,
  );

  // wrk does not count responses still in flight when it stops, so clicks may exceed
  // the 307s it read by at most the connections of each run; fewer is a lost click.
  const slack = CONNECTIONS * (ROUNDS + 1);
  const check = (name: string, clicks: number, got: number) => {
    const ok = clicks >= got && clicks - got <= slack;
    console.log(
      `  ${name.padEnd(40)} clicks recorded ${fmt(clicks)} vs 307s received ${fmt(got)} (+${fmt(clicks - got)}): ${ok ? 'OK' : 'MISMATCH'}`,
    );
  };
  check('kurz on SQLite (GET /api/links)', await clicksOf(sqlite.url, 'bench'), received.sqlite);
  for (const [key, url, server] of [
    ['one', oneUrl, one],
    ['two', twoUrl, twoB],
  ] as const) {
    const label = (s[key] as Summary).name;
    const api = await clicksOf(server.url, 'bench');
    const { counted, logged } = await sumClicks(url);
    check(`${label} (SQL sum of link_clicks)`, counted, received[key] as number);
    console.log(
      `    GET /api/links says ${fmt(api)}; click log (count of clicks) ${fmt(logged)}${api === counted && logged === counted ? '' : ' — DIFFERENT'}`,
    );
  }

  // Stopped first: a backend that exits reports its statistics (the batch count) at once.
  for (const server of [twoB, twoA, one, sqlite, ceiling]) await server.stop();
  for (const [key, url] of [
    ['one', oneUrl],
    ['two', twoUrl],
  ] as const) {
    const label = (s[key] as Summary).name;
    const { clicks, batches } = await batchesOf(url);
    const { samples, withLockWaiter, events } = mergeWaits(waits[key] ?? []);
    console.log(
      `  ${label}: ${fmt(batches)} click batches for ${fmt(clicks)} clicks, ${fmt(clicks / batches, 1)} clicks per batch (one statement and commit each)`,
    );
    console.log(
      `    lock waits: ${withLockWaiter} of ${samples} samples (${pct(withLockWaiter, samples)}) had a backend waiting on a lock; kurz's backends (active or idle in a transaction) seen in: ${describeWaits(events)}`,
    );
  }
  await monitor.close();
}

async function benchCreate() {
  console.log(
    `\n# Create in open mode, SQLite and PostgreSQL (POST /api/shorten, ${ROUNDS} interleaved rounds of ${SECONDS}s, ${CONNECTIONS} connections; --rate-limits off, since one address makes every create)`,
  );
  const url = await createDatabase('create');
  const pg = await startKurz(url, 'open', ['--rate-limits', 'off']);
  const sqlite = await startKurz(join(work, 'create.db'), 'open', ['--rate-limits', 'off']);
  const script = join(work, 'create.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"
wrk.body = '{"url": "https://example.com/a/fairly/typical/path?utm_source=bench"}'
wrk.headers["Content-Type"] = "application/json"
`,
  );
  const runs: Record<'sqlite' | 'pg', Round[]> = { sqlite: [], pg: [] };
  const waits: Waits[] = [];
  const once = async (server: Server, seconds: number): Promise<Round> => ({
    ...(await wrk({
      url: `${server.url}/api/shorten`,
      seconds,
      cpu: LOAD_CPU,
      script,
      pid: server.pid,
    })),
    pgUs: Number.NaN,
    busy: Number.NaN,
  });
  await once(sqlite, 2);
  await once(pg, 2);
  for (let r = 0; r < ROUNDS; r++) {
    runs.sqlite.push(await once(sqlite, SECONDS));
    const sampler = sampleWaits([`${PREFIX}_create`]);
    runs.pg.push(await once(pg, SECONDS));
    waits.push(await sampler.stop());
  }
  const l = summarise('kurz POST /api/shorten (SQLite)', runs.sqlite);
  const p = summarise('kurz POST /api/shorten (PostgreSQL)', runs.pg);
  printRow(l);
  printRow(p);
  const total = Number((await fetch(`${pg.url}/api/links?limit=1`)).headers.get('x-total-count'));
  // Stopped first: a backend that exits reports its statistics (the transactions) at once.
  await sqlite.stop();
  await pg.stop();
  console.log(
    `  links created: PostgreSQL ${fmt(p.rps)}/s, ${(p.rps / l.rps).toFixed(3)} of SQLite's ${fmt(l.rps)}/s (target on SQLite: ≥ 10,000/s); PostgreSQL: ${fmt(total)} links, ${fmt(total / (await transactionsOf(url, total)), 1)} per transaction`,
  );
  console.log(`  PostgreSQL backends of kurz, sampled: ${describeWaits(mergeWaits(waits).events)}`);
}

/**
 * Migrates a PostgreSQL database with the binary and writes n links of no one straight
 * into it in one statement (codes and times as seedLinks), a click count for one link in
 * ten (over 4 shards), then ANALYZE.
 */
async function seedPostgres(url: string, n: number) {
  const migrate = Bun.spawnSync([BINARY, 'migrate', '--db', url]);
  if (migrate.exitCode !== 0) throw new Error(migrate.stderr.toString());
  const pg = new SQL(url, { max: 1 });
  try {
    const start = Date.now() - n;
    await pg.begin(async (tx) => {
      // No triggers for the bulk insert; the one total they would keep is written below.
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`
        INSERT INTO links (user_id, original_url, short_code, source, created_at)
        SELECT NULL, 'https://example.com/article/' || i || '?utm_source=seed&utm_medium=bench',
               'c' || lpad(to_base36(i), 7, '0'), NULL, ${start}::bigint + i
        FROM generate_series(0, ${n - 1}) AS i`;
      await tx`INSERT INTO link_totals (owner, links) VALUES (0, ${n})`;
      await tx`
        INSERT INTO link_clicks (link_id, shard, clicks)
        SELECT id, s, 1 + (id % 7) FROM links, generate_series(0, 3) AS s WHERE id % 10 = 0`;
    });
    await pg`ANALYZE`;
  } finally {
    await pg.close();
  }
}

async function benchList() {
  console.log(
    `\n# GET /api/links?limit=100 with ${fmt(LINKS)} links, SQLite and PostgreSQL (${ROUNDS} interleaved rounds of ${SECONDS}s, 8 connections)`,
  );
  const url = await createDatabase('list');
  // to_base36 for the seeded codes (harness.ts seededCode), in this database only.
  const client = new SQL(url, { max: 1 });
  await client.unsafe(`
    CREATE FUNCTION to_base36(n bigint) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE digits text := '0123456789abcdefghijklmnopqrstuvwxyz'; out text := '';
    BEGIN
      IF n = 0 THEN RETURN '0'; END IF;
      WHILE n > 0 LOOP out := substr(digits, (n % 36)::int + 1, 1) || out; n := n / 36; END LOOP;
      RETURN out;
    END $$`);
  await client.close();
  let t0 = performance.now();
  await seedPostgres(url, LINKS);
  console.log(
    `  seeded ${fmt(LINKS)} links into PostgreSQL in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );
  t0 = performance.now();
  seedLinks(join(work, 'million.db'), LINKS);
  console.log(
    `  seeded ${fmt(LINKS)} links into SQLite in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );
  const pg = await startKurz(url);
  const sqlite = await startKurz(join(work, 'million.db'));
  const deepOffset = Math.floor(LINKS / 2);
  for (const [label, path] of [
    ['limit=100', '/api/links?limit=100'],
    [`limit=100&offset=${deepOffset}`, `/api/links?limit=100&offset=${deepOffset}`],
  ] as const) {
    const once = async (server: Server, seconds: number): Promise<Round> => ({
      ...(await wrk({
        url: `${server.url}${path}`,
        seconds,
        cpu: LOAD_CPU,
        connections: 8,
        pid: server.pid,
      })),
      pgUs: Number.NaN,
      busy: Number.NaN,
    });
    await once(sqlite, 1);
    await once(pg, 1);
    const runs: Record<'sqlite' | 'pg', Round[]> = { sqlite: [], pg: [] };
    const waits: Waits[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      runs.sqlite.push(await once(sqlite, SECONDS));
      const sampler = sampleWaits([`${PREFIX}_list`]);
      runs.pg.push(await once(pg, SECONDS));
      waits.push(await sampler.stop());
    }
    const l = summarise(`SQLite ${label}`, runs.sqlite);
    const p = summarise(`PostgreSQL ${label}`, runs.pg);
    printRow(l);
    printRow(p);
    const seen = mergeWaits(waits);
    console.log(
      `    PostgreSQL: p50 ${(p.p50 / l.p50).toFixed(2)}x, p99 ${(p.p99 / l.p99).toFixed(2)}x SQLite's; statements of kurz running at once: at most ${seen.mostActive} (wrk: 8 connections), the longest seen ${fmt(seen.oldestMs)} ms (kurz answers 503 after 1,500 ms)${p.bad ? `; ${fmt(p.bad)} of ${fmt(p.requests)} answers were not 200 (503: the latency is the deadline's)` : ''}`,
    );
  }
  await sqlite.stop();
  await pg.stop();
}

console.log(
  `kurz on PostgreSQL — ${new Date().toISOString()} — ${cpus()[0]?.model}, ${cpus().length} CPUs, Bun ${Bun.version}`,
);
const [server]: { version: string; sync: string }[] =
  await admin`SELECT version() AS version, current_setting('synchronous_commit') AS sync`;
console.log(
  `  ${server?.version.split(' on ')[0]}, synchronous_commit ${server?.sync}${SYNCHRONOUS_COMMIT === undefined ? '' : ` (${SYNCHRONOUS_COMMIT} in this run's databases: a diagnostic)`}; kurz pool ${POOL > 0 ? POOL : 'default'}; kurz on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPU}, PostgreSQL unpinned`,
);
// Ctrl-C: the servers (children) stop with it; the databases are dropped first.
process.on('SIGINT', async () => {
  await dropDatabases().catch(() => {});
  process.exit(130);
});
let failed = false;
try {
  if (wanted('redirect')) await benchRedirect();
  if (wanted('create')) await benchCreate();
  if (wanted('list')) await benchList();
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await dropDatabases();
  await admin.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
