// POST /api/links/bulk against single creates, with the compiled binary:
//   bun run build && bun bench/bulk.ts [--rounds 7] [--items 1000] [--pg URL] [--binary PATH]
// On a fresh SQLite file, and with --pg on a fresh PostgreSQL database of that server:
// kurz in open mode with --rate-limits off (one address makes every create), pinned to
// CPU 0, this client to CPU 1. In each round, ITEMS single POST /api/shorten calls one after the other from one
// client, as a script would, then one POST /api/links/bulk of as many links (the two in
// alternating order round by round, so drift hits both alike); each timed from the first
// request to the last answer read, and kurz's CPU time for it read from /proc (all its
// threads, and its event loop's alone: on a busy machine a 30 ms burst may wait for a
// core many times its length, which wall time shows and CPU time does not). Prints every
// round, the medians and their ratios (the aim: the bulk call at least 20 times faster).
// Asserts nothing.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SQL } from 'bun';
import {
  BINARY,
  cpuTicksOf,
  fmt,
  KURZ_LINE,
  numberFlag,
  type Server,
  serveArgs,
  startServer,
} from './harness.ts';
import { median } from './wrk.ts';

const argv = process.argv.slice(2);
const ROUNDS = numberFlag(argv, '--rounds', 7);
const ITEMS = numberFlag(argv, '--items', 1000);
/** Rounds of both, unmeasured, first. */
const WARMUP = 3;
const pgIndex = argv.indexOf('--pg');
const PG_URL = pgIndex === -1 ? undefined : String(argv[pgIndex + 1]);
const binaryAt = argv.indexOf('--binary');
/** Another build than dist/kurz (a copy, or the build before a change). */
const KURZ = binaryAt === -1 ? BINARY : resolve(String(argv[binaryAt + 1]));
const SERVER_CPU = 0;
const CLIENT_CPU = 1;

const work = mkdtempSync(join(tmpdir(), 'kurz-bench-bulk-'));
// The client (this process, every thread of it) on the other CPU, as wrk is in run.ts.
Bun.spawnSync(['taskset', '-a', '-cp', String(CLIENT_CPU), String(process.pid)]);

/**
 * kurz's CPU time so far in ms: all its threads (from /proc/PID/stat, in clock ticks of 10
 * ms, counting threads that have ended), and its main thread, the event loop (schedstat:
 * nanoseconds on a CPU).
 */
function cpuOf(pid: number): { all: number; main: number } {
  const main = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  return { all: cpuTicksOf(pid) * 10, main };
}

interface Side {
  /** Wall seconds. */
  seconds: number;
  /** kurz's CPU milliseconds, all threads and the event loop's. */
  cpu: number;
  loop: number;
}

/** Times `work` from outside and by kurz's CPU. */
async function timed(pid: number, work: () => Promise<void>): Promise<Side> {
  const before = cpuOf(pid);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const after = cpuOf(pid);
  return { seconds, cpu: after.all - before.all, loop: after.main - before.main };
}

/** The links of one side of a round: distinct URLs of a realistic length, codes generated. */
function bodies(round: number, side: string) {
  return Array.from({ length: ITEMS }, (_, i) => ({
    url: `https://example.com/articles/${round}/${side}/${i}?utm_source=newsletter&utm_medium=email`,
  }));
}

/** ITEMS single creates in a row. */
async function singles(base: string, round: number): Promise<void> {
  for (const link of bodies(round, 'single')) {
    const r = await fetch(`${base}/api/shorten`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(link),
    });
    if (r.status !== 201) throw new Error(`create failed: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }
}

/** One bulk call of ITEMS links. */
async function bulk(base: string, round: number): Promise<void> {
  const r = await fetch(`${base}/api/links/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ links: bodies(round, 'bulk') }),
  });
  const answer = (await r.json()) as { results: { status: number }[] };
  const made = answer.results?.filter((result) => result.status === 201).length;
  if (r.status !== 200 || made !== ITEMS) throw new Error(`bulk failed: ${r.status}, ${made} made`);
}

const ms = (seconds: number) => `${fmt(seconds * 1000, 1)} ms`;

function line(label: string, side: Side, per: string) {
  return `${label} ${per.padStart(11)} wall, kurz CPU ${fmt(side.cpu, 0).padStart(5)} ms (event loop ${fmt(side.loop, 0).padStart(5)} ms)`;
}

async function measure(label: string, db: string): Promise<void> {
  const server: Server = await startServer(
    ['taskset', '-c', String(SERVER_CPU), KURZ, ...serveArgs(db, 'open', ['--rate-limits', 'off'])],
    KURZ_LINE,
    { cwd: work },
  );
  try {
    // Warm-up: the JIT's top tier for both paths, connections, caches.
    for (let round = -WARMUP; round < 0; round++) {
      await singles(server.url, round);
      await bulk(server.url, round);
    }
    const single: Side[] = [];
    const many: Side[] = [];
    const pid = server.pid;
    console.log(`\n# ${label}: ${fmt(ITEMS)} links, ${ROUNDS} rounds`);
    for (let round = 0; round < ROUNDS; round++) {
      const one = () => timed(pid, () => singles(server.url, round));
      const all = () => timed(pid, () => bulk(server.url, round));
      if (round % 2 === 0) {
        single.push(await one());
        many.push(await all());
      } else {
        many.push(await all());
        single.push(await one());
      }
      const s = single[round] as Side;
      const b = many[round] as Side;
      console.log(
        `  round ${round + 1}: singles ${ms(s.seconds)}, bulk ${ms(b.seconds)}: ${fmt(s.seconds / b.seconds, 1)}x wall, ${fmt(s.cpu / b.cpu, 1)}x CPU, ${fmt(s.loop / b.loop, 1)}x event loop`,
      );
    }
    const med = (sides: Side[]): Side => ({
      seconds: median(sides.map((x) => x.seconds)),
      cpu: median(sides.map((x) => x.cpu)),
      loop: median(sides.map((x) => x.loop)),
    });
    const s = med(single);
    const b = med(many);
    console.log('  medians:');
    console.log(line(`    ${fmt(ITEMS)} single calls`, s, ms(s.seconds)));
    console.log(line('    one bulk call     ', b, ms(b.seconds)));
    console.log(
      `    bulk faster: ${fmt(s.seconds / b.seconds, 1)}x wall, ${fmt(s.cpu / b.cpu, 1)}x kurz CPU, ${fmt(s.loop / b.loop, 1)}x event loop (aim: ≥ 20x); fastest rounds ${fmt(Math.min(...single.map((x) => x.seconds)) / Math.min(...many.map((x) => x.seconds)), 1)}x wall`,
    );
  } finally {
    await server.stop();
  }
}

try {
  await measure('SQLite', join(work, 'bulk.db'));
  if (PG_URL !== undefined) {
    const admin = new SQL(PG_URL, { max: 1 });
    const name = `kurz_bench_bulk_${process.pid}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(PG_URL);
      url.pathname = `/${name}`;
      await measure('PostgreSQL', url.toString());
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
