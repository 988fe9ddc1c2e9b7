// kurz import of a large file, with the compiled binary, into a fresh SQLite file and a
// fresh PostgreSQL database:
//   bun run build && bun bench/import.ts [--rows 100000] [--rounds 3] [--pg URL]
// Generates a YOURLS CSV and, from the first import, kurz's own JSON Lines export; each
// round imports the file into a new database (the whole command: start, migrations,
// reading, checks, one lookup and one insert per batch, the summary), then once more
// into the same database (every row already there). Prints seconds and rows/s, medians
// of the rounds, beside the baseline measured in the same run: the same links put in
// by the store's createLinks alone, in batches of the same size, in process.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { silentLogger } from '../src/logger.ts';
import { openStore } from '../src/store/open.ts';
import type { NewLink } from '../src/store/store.ts';
import { IMPORT_BATCH } from '../src/transfer/importer.ts';
import { BINARY, fmt, numberFlag } from './harness.ts';
import { median } from './wrk.ts';

const argv = process.argv.slice(2);
const ROWS = numberFlag(argv, '--rows', 100_000);
const ROUNDS = numberFlag(argv, '--rounds', 3);
const pgAt = argv.indexOf('--pg');
const PG_URL =
  pgAt === -1
    ? (process.env.KURZ_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres')
    : (argv[pgAt + 1] as string);
const T0 = Date.UTC(2023, 0, 1);

const dir = mkdtempSync(join(tmpdir(), 'kurz-bench-import-'));
const admin = new SQL(PG_URL, { max: 1 });
let databases = 0;

/** A new database of a kind: a SQLite path or a PostgreSQL URL (dropped at the end). */
async function freshDb(kind: 'sqlite' | 'postgres'): Promise<string> {
  const n = ++databases;
  if (kind === 'sqlite') return join(dir, `import-${n}.db`);
  const name = `kurz_bench_import_${process.pid}_${n}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabases(): Promise<void> {
  for (let n = 1; n <= databases; n++) {
    await admin.unsafe(
      `DROP DATABASE IF EXISTS kurz_bench_import_${process.pid}_${n} WITH (FORCE)`,
    );
  }
}

/** A YOURLS table of ROWS links as CSV, with a header. */
async function yourlsFile(): Promise<string> {
  const path = join(dir, 'yourls.csv');
  const lines = ['keyword,url,title,timestamp,ip,clicks'];
  for (let i = 0; i < ROWS; i++) {
    const at = new Date(T0 + i * 1000).toISOString().slice(0, 19).replace('T', ' ');
    lines.push(
      `y${i.toString(36)},https://example.com/articles/${i}?utm_source=news&ref=${(i * 7919) % 10007},"Article ${i}, part ${i % 9}",${at},192.0.2.${i % 250},${i % 1000}`,
    );
  }
  await Bun.write(path, `${lines.join('\n')}\n`);
  return path;
}

/** Runs dist/kurz import; its wall time in seconds and its summary line. */
async function importFile(file: string, db: string): Promise<{ seconds: number; summary: string }> {
  const started = performance.now();
  const proc = Bun.spawn([BINARY, 'import', file, '--db', db], {
    stdout: 'pipe',
    stderr: 'ignore',
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`kurz import exited ${code}: ${out}`);
  return { seconds, summary: out.trim() };
}

/** The baseline: the same number of links through createLinks alone, in batches. */
async function rawInsert(db: string): Promise<number> {
  const store = await openStore(
    { db, dbPool: 4, durability: 'normal', minFreeDiskBytes: 0 },
    silentLogger,
    { background: false, deadlineMs: 0 },
  );
  const started = performance.now();
  for (let i = 0; i < ROWS; i += IMPORT_BATCH) {
    const batch: NewLink[] = [];
    for (let j = i; j < Math.min(ROWS, i + IMPORT_BATCH); j++) {
      batch.push({
        userId: null,
        originalUrl: `https://example.com/articles/${j}?utm_source=news&ref=${(j * 7919) % 10007}`,
        shortCode: `y${j.toString(36)}`,
        source: null,
        createdAt: T0 + j * 1000,
      });
    }
    await store.createLinks(batch);
  }
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return seconds;
}

function line(label: string, seconds: number[], baseline?: number): void {
  const s = median(seconds);
  const vs = baseline === undefined ? '' : `   ${fmt(s / baseline, 1)}x the baseline`;
  console.log(
    `  ${label.padEnd(34)} ${fmt(s, 2).padStart(6)} s  ${fmt(ROWS / s).padStart(9)} rows/s${vs}`,
  );
}

try {
  console.log(
    `kurz import, ${fmt(ROWS)} rows, median of ${ROUNDS} rounds (dist/kurz, whole command)`,
  );
  const yourls = await yourlsFile();
  // kurz's own export of the same links, made once from an imported database.
  const source = await freshDb('sqlite');
  await importFile(yourls, source);
  const jsonl = join(dir, 'kurz.jsonl');
  const exported = Bun.spawnSync([BINARY, 'export', jsonl, '--db', source]);
  if (exported.exitCode !== 0) throw new Error('kurz export failed');
  for (const kind of ['sqlite', 'postgres'] as const) {
    const baseline: number[] = [];
    const csv: number[] = [];
    const again: number[] = [];
    const own: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      baseline.push(await rawInsert(await freshDb(kind)));
      const db = await freshDb(kind);
      const first = await importFile(yourls, db);
      if (!first.summary.includes(`imported ${ROWS},`)) throw new Error(first.summary);
      csv.push(first.seconds);
      const second = await importFile(yourls, db);
      if (!second.summary.includes(`skipped ${ROWS} `)) throw new Error(second.summary);
      again.push(second.seconds);
      own.push((await importFile(jsonl, await freshDb(kind))).seconds);
    }
    const base = median(baseline);
    console.log(`${kind}:`);
    line(`baseline: createLinks, ${IMPORT_BATCH} a batch`, baseline);
    line('YOURLS CSV into an empty database', csv, base);
    line('the same again (all already there)', again, base);
    line('kurz JSON Lines into an empty one', own, base);
  }
} finally {
  await dropDatabases();
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
}
