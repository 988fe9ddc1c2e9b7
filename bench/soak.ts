// The soak: dist/kurz under a steady mixed load for a minute, to show that memory
// settles (no leak) and that nothing fails under sustained use. A few concurrent
// in-process clients send creates, paged lists, redirects of known codes, unknown
// codes and health checks; kurz's RSS is sampled from /proc every few seconds, split
// into its anonymous part (heaps, SQLite's page caches) and file pages (the executable).
// Prints numbers and PASS/FAIL against the two criteria; never part of the test run.
//
//   bun run build && bun bench/soak.ts [--seconds 60] [--warmup 30] [--clients 8]
//
// PASS needs: RSS at the end within 10% of RSS after the warm-up, and no error
// response (every answer the one its request should get, no failed request).

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINARY, fmt, KURZ_LINE, memoryOf, numberFlag, serveArgs, startServer } from './harness.ts';

const argv = process.argv.slice(2);
const SECONDS = numberFlag(argv, '--seconds', 60);
const WARMUP = numberFlag(argv, '--warmup', 30);
const CLIENTS = numberFlag(argv, '--clients', 8);
const SAMPLE_EVERY_MS = 5000;
/** Codes created before the load; redirects pick among them. */
const KNOWN_CODES = 1000;

type Kind = 'create' | 'list' | 'redirect' | 'unknown' | 'health';
/** Share of each kind in the mix, and the status its request must get. */
const MIX: [Kind, number, number][] = [
  ['redirect', 0.6, 307],
  ['create', 0.15, 201],
  ['list', 0.1, 200],
  ['unknown', 0.1, 404],
  ['health', 0.05, 200],
];

const work = mkdtempSync(join(tmpdir(), 'kurz-soak-'));
// All the load comes from this one address; with the per-address rate limits on, most
// creates and unknown codes would be answered 429, which is not what a soak measures.
const args = serveArgs(join(work, 'kurz.db'), 'open', ['--rate-limits', 'off']);
console.log(`dist/kurz ${args.join(' ')}`);
console.log('(--rate-limits off: one address makes all the load)');
const kurz = await startServer([BINARY, ...args], KURZ_LINE, { cwd: work });
const { proc } = kurz;
const base = kurz.url;

function cleanUp() {
  proc.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
process.on('SIGINT', () => {
  cleanUp();
  process.exit(130);
});

/** kurz's resident memory in MiB: all of it, its own and file pages (see memoryOf). */
const rss = () => memoryOf(proc.pid);

const known: string[] = [];
for (let i = 0; i < KNOWN_CODES; i++) {
  const code = `soak${i}`;
  const r = await fetch(`${base}/api/shorten`, {
    method: 'POST',
    body: JSON.stringify({ url: `https://example.com/known/${i}`, custom_code: code }),
  });
  if (r.status !== 201) throw new Error(`setup create failed: ${r.status} ${await r.text()}`);
  known.push(code);
}

/** Counts by kind, then by status (or "failed" for a request that got no answer). */
const counts = new Map<Kind, Map<string, number>>(MIX.map(([kind]) => [kind, new Map()]));
const wrong: string[] = [];
let created = 0;
let total = KNOWN_CODES;

function pick(): [Kind, number] {
  let x = Math.random();
  for (const [kind, share, status] of MIX) {
    if (x < share) return [kind, status];
    x -= share;
  }
  return ['redirect', 307];
}

async function one(counting: boolean) {
  const [kind, expected] = pick();
  let request: Promise<Response>;
  switch (kind) {
    case 'create':
      request = fetch(`${base}/api/shorten`, {
        method: 'POST',
        body: JSON.stringify({ url: `https://example.com/new/${created++}` }),
      });
      break;
    case 'list': {
      const offset = Math.floor(Math.random() * total);
      request = fetch(`${base}/api/links?limit=50&offset=${offset}`);
      break;
    }
    case 'redirect':
      request = fetch(`${base}/${known[Math.floor(Math.random() * known.length)]}`, {
        redirect: 'manual',
      });
      break;
    case 'unknown':
      request = fetch(`${base}/missing${Math.floor(Math.random() * 1e9)}`, { redirect: 'manual' });
      break;
    case 'health':
      request = fetch(`${base}/health`);
      break;
  }
  let status: string;
  try {
    const response = await request;
    const body = await response.text();
    status = String(response.status);
    if (kind === 'create' && response.status === 201) total++;
    if (response.status !== expected && counting && wrong.length < 10)
      wrong.push(`${kind}: ${response.status} ${body.slice(0, 200)}`);
  } catch (error) {
    status = 'failed';
    if (counting && wrong.length < 10) wrong.push(`${kind}: ${error}`);
  }
  if (counting) {
    const byStatus = counts.get(kind) as Map<string, number>;
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }
}

async function load(seconds: number, counting: boolean) {
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < end) await one(counting);
    }),
  );
}

/** Size of the database files (links, click log, counts, WALs). */
function dbMiB(): number {
  let bytes = 0;
  for (const name of readdirSync(work)) bytes += statSync(join(work, name)).size;
  return bytes / 1024 / 1024;
}

console.log(`\n# Warm-up: ${WARMUP} s of the mix, ${CLIENTS} clients (${KNOWN_CODES} known codes)`);
const show = (label: string, r: ReturnType<typeof rss>) =>
  console.log(
    `  ${label.padEnd(18)} RSS ${fmt(r.total, 1).padStart(6)} MiB  (anon ${fmt(r.anon, 1)}, file ${fmt(r.file, 1)})`,
  );
show('at start', rss());
await load(WARMUP, false);
const warm = rss();
show('after warm-up', warm);

console.log(`\n# Soak: ${SECONDS} s, ${CLIENTS} clients; RSS every ${SAMPLE_EVERY_MS / 1000} s`);
const started = Date.now();
const warmDb = dbMiB();
/** The lowest and highest RSS sampled during the soak, the end included. */
let low = warm.total;
let high = warm.total;
const sample = (label: string) => {
  const r = rss();
  low = Math.min(low, r.total);
  high = Math.max(high, r.total);
  show(label, r);
  return r;
};
const sampler = setInterval(() => {
  sample(`${Math.round((Date.now() - started) / 1000)} s`);
}, SAMPLE_EVERY_MS);
await load(SECONDS, true);
clearInterval(sampler);
const end = sample('at the end');
const ratio = end.total / warm.total;

console.log('\n# Requests');
let requests = 0;
let errors = 0;
for (const [kind, , expected] of MIX) {
  const byStatus = counts.get(kind) as Map<string, number>;
  const parts = [...byStatus].sort().map(([status, n]) => `${status}: ${fmt(n)}`);
  for (const [status, n] of byStatus) {
    requests += n;
    if (status !== String(expected)) errors += n;
  }
  console.log(`  ${kind.padEnd(9)} (expects ${expected})  ${parts.join(', ')}`);
}
console.log(`  total ${fmt(requests)} in ${SECONDS} s (${fmt(requests / SECONDS)} req/s)`);
for (const line of wrong) console.log(`  wrong: ${line}`);

const memoryOk = Math.abs(ratio - 1) <= 0.1;
const errorsOk = errors === 0;
console.log('\n# Result');
console.log(
  `  RSS after warm-up ${fmt(warm.total, 1)} MiB, at the end ${fmt(end.total, 1)} MiB: ratio ${fmt(ratio, 3)}  ${memoryOk ? 'PASS' : 'FAIL'} (within 10%)`,
);
// The database grows through the run (new links, the click log); kurz reads it with
// read() calls, not a memory map, so its pages stay in the kernel's cache and out of RSS.
console.log(
  `  of which anon ${fmt(warm.anon, 1)} → ${fmt(end.anon, 1)} MiB (ratio ${fmt(end.anon / warm.anon, 3)}), file ${fmt(warm.file, 1)} → ${fmt(end.file, 1)} MiB`,
);
console.log(
  `  RSS during the soak between ${fmt(low, 1)} and ${fmt(high, 1)} MiB; database ${fmt(warmDb, 1)} → ${fmt(dbMiB(), 1)} MiB`,
);
console.log(`  error responses ${fmt(errors)}  ${errorsOk ? 'PASS' : 'FAIL'} (none)`);
console.log(`  soak ${memoryOk && errorsOk ? 'PASS' : 'FAIL'}`);

proc.kill('SIGTERM');
const exit = await proc.exited;
if (exit !== 0) console.log(`  kurz exited ${exit} on SIGTERM`);
rmSync(work, { recursive: true, force: true });
process.exit(memoryOk && errorsOk && exit === 0 ? 0 : 1);
