// Memory and latency of GET /api/links (the whole list, streamed) with 1,000,000 links:
// one reader that reads it all, then 20 clients that ask and never read, while /health
// and a redirect are timed. Prints numbers beside the idle baseline of the same run.
// Usage: bun run build && bun bench/list-memory.ts [--links N] [--stalled N] [--seconds S]
//        [--binary PATH]

import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  BINARY as BUILT,
  fmt,
  KURZ_LINE,
  memoryOf,
  numberFlag,
  seededCode,
  seedLinks,
  serveArgs,
  startServer,
} from './harness.ts';

const args = process.argv.slice(2);
// Another build (an older one, say) can be measured the same way.
const BINARY = args.includes('--binary')
  ? resolve(String(args[args.indexOf('--binary') + 1]))
  : BUILT;
const LINKS = numberFlag(args, '--links', 1_000_000);
const STALLED = numberFlag(args, '--stalled', 20);
const SECONDS = numberFlag(args, '--seconds', 5);

const work = mkdtempSync(join(tmpdir(), 'kurz-list-bench-'));

/** Resident memory of a process, MiB: all of it, and its anonymous part (heap, buffers). */
function memory(pid: number) {
  const { total, anon } = memoryOf(pid);
  return { rss: total, anon };
}

function startKurz(db: string) {
  return startServer([BINARY, ...serveArgs(db)], KURZ_LINE, { cwd: work });
}

/** Samples a process's memory every 20 ms until stopped; returns the peaks. */
function peaks(pid: number) {
  const peak = memory(pid);
  const sample = () => {
    const now = memory(pid);
    peak.rss = Math.max(peak.rss, now.rss);
    peak.anon = Math.max(peak.anon, now.anon);
  };
  const timer = setInterval(sample, 20);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

type Memory = ReturnType<typeof memory>;
const growth = (from: Memory, to: Memory) =>
  `RSS ${fmt(to.rss, 1)} MiB (+${fmt(to.rss - from.rss, 1)}), of it anonymous ${fmt(to.anon, 1)} MiB (+${fmt(to.anon - from.anon, 1)})`;

/** Latencies (ms) of sequential GETs of each path, for `ms` milliseconds. */
async function latencies(url: string, paths: string[], ms: number) {
  const times: Record<string, number[]> = Object.fromEntries(paths.map((p) => [p, []]));
  const end = performance.now() + ms;
  while (performance.now() < end) {
    for (const path of paths) {
      const t0 = performance.now();
      const r = await fetch(url + path, { redirect: 'manual' });
      await r.arrayBuffer();
      (times[path] as number[]).push(performance.now() - t0);
    }
    await Bun.sleep(10);
  }
  return times;
}

function describe(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const q = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return `p50 ${fmt(q(0.5), 2).padStart(6)} ms   p99 ${fmt(q(0.99), 2).padStart(6)} ms   max ${fmt(q(1), 2).padStart(7)} ms   (${times.length} requests)`;
}

function printLatencies(title: string, times: Record<string, number[]>) {
  console.log(`  ${title}`);
  for (const [path, t] of Object.entries(times))
    console.log(`    GET ${path.padEnd(10)} ${describe(t)}`);
}

/** A client that sends the request and then never reads the answer. */
function stalledReader(port: number): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('GET /api/links HTTP/1.1\r\nHost: bench\r\n\r\n');
      socket.pause();
      done(socket);
    });
    socket.on('error', fail);
  });
}

const db = join(work, 'list.db');
let t0 = performance.now();
seedLinks(db, LINKS, BINARY);
console.log(
  `# GET /api/links with ${fmt(LINKS)} links (seeded in ${fmt((performance.now() - t0) / 1000, 1)} s)`,
);
let kurz = await startKurz(db);
const stop = (server: typeof kurz) => server.stop();
const paths = ['/health', `/${seededCode(Math.floor(LINKS / 2))}`];
try {
  await latencies(kurz.url, paths, 500); // warm-up
  const idle = memory(kurz.proc.pid);
  console.log(
    `\n  baseline: RSS idle ${fmt(idle.rss, 1)} MiB, of it anonymous ${fmt(idle.anon, 1)} MiB`,
  );
  printLatencies('baseline latencies, idle:', await latencies(kurz.url, paths, SECONDS * 1000));

  console.log('\n## one reader reads the whole list');
  const peak = peaks(kurz.proc.pid);
  t0 = performance.now();
  const reading = (async () => {
    const response = await fetch(`${kurz.url}/api/links`);
    let bytes = 0;
    let tail = '';
    for await (const chunk of response.body as ReadableStream<Uint8Array>) {
      bytes += chunk.byteLength;
      tail = new TextDecoder().decode(chunk.subarray(-1));
    }
    return {
      bytes,
      ms: performance.now() - t0,
      total: response.headers.get('x-total-count'),
      tail,
    };
  })();
  const during = latencies(kurz.url, paths, 1000);
  const read = await reading;
  const readPeak = peak();
  console.log(
    `  read ${fmt(read.bytes / 1048576, 1)} MiB (X-Total-Count ${read.total}, ends with "${read.tail}") in ${fmt(read.ms / 1000, 2)} s`,
  );
  console.log(`  peak: ${growth(idle, readPeak)} over idle`);
  printLatencies('latencies while it streams (first second):', await during);

  console.log(`\n## ${STALLED} clients send the request and never read (kurz restarted)`);
  await stop(kurz);
  kurz = await startKurz(db);
  await latencies(kurz.url, paths, 500); // warm-up
  const before = memory(kurz.proc.pid);
  const stalledPeak = peaks(kurz.proc.pid);
  const sockets = await Promise.all(
    Array.from({ length: STALLED }, () => stalledReader(kurz.port)),
  );
  const times = await latencies(kurz.url, paths, SECONDS * 1000);
  const after = memory(kurz.proc.pid);
  const worst = stalledPeak();
  console.log(
    `  before: RSS ${fmt(before.rss, 1)} MiB, of it anonymous ${fmt(before.anon, 1)} MiB`,
  );
  console.log(`  after ${SECONDS} s: ${growth(before, after)}`);
  console.log(`  peak: ${growth(before, worst)} (target: growth < 50 MiB)`);
  printLatencies('latencies meanwhile:', times);
  for (const socket of sockets) socket.destroy();
} finally {
  await stop(kurz);
  rmSync(work, { recursive: true, force: true });
}
