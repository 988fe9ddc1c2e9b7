// kurz import of a large file, with the compiled binary, into a fresh SQLite file and a
// fresh PostgreSQL database:
//   bun run build && bun bench/import.ts [--rows 100000] [--rounds 3] [--pg URL]
// Generates a YOURLS CSV and, from the first import, kurz's own JSON Lines export; each
// round imports the file into a new database (the whole command: start, migrations,
// reading, checks, one lookup and one insert per batch, the summary), then once more
// into the same database (every row already there). Prints seconds and rows/s, medians
// of the rounds, beside the baseline measured in the same run: the same links put in
// by the store's createLinks alone, in batches of the same size, in process.
//
// --before PATH: an older build's imports of the same files in the same rounds.
//
// With --long-line MB, only this: a file with one line of MB MiB between short rows, as
// JSON Lines and as CSV, imported by dist/kurz (and by --before PATH, an older build):
// the seconds and the peak RSS (VmHWM) of each, beside a file of the short rows alone.
//   bun bench/import.ts --long-line 200 [--before /tmp/kurz-before]

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { silentLogger } from '../src/logger.ts';
import { openStore } from '../src/store/open.ts';
import type { NewLink } from '../src/store/store.ts';
import { IMPORT_BATCH } from '../src/transfer/importer.ts';
import { BINARY, fmt, numberFlag, pgUrlFlag } from './harness.ts';
import { median } from './wrk.ts';

const argv = process.argv.slice(2);
const ROWS = numberFlag(argv, '--rows', 100_000);
const ROUNDS = numberFlag(argv, '--rounds', 3);
const PG_URL = pgUrlFlag(argv);
const T0 = Date.UTC(2023, 0, 1);
const LONG_LINE_MIB = numberFlag(argv, '--long-line', 0);
const beforeAt = argv.indexOf('--before');
const BEFORE = beforeAt === -1 ? undefined : (argv[beforeAt + 1] as string);

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
async function importFile(
  file: string,
  db: string,
  binary = BINARY,
): Promise<{ seconds: number; summary: string }> {
  const started = performance.now();
  const proc = Bun.spawn([binary, 'import', file, '--db', db], {
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

/** Runs `binary import file` into a new SQLite file: seconds, and peak RSS in MiB. */
async function peakOfImport(
  binary: string,
  file: string,
): Promise<{ seconds: number; peak: number; summary: string }> {
  const started = performance.now();
  const proc = Bun.spawn([binary, 'import', file, '--db', await freshDb('sqlite')], {
    stdout: 'pipe',
    stderr: 'ignore',
  });
  let peak = 0;
  const sampling = (async () => {
    while (proc.exitCode === null) {
      try {
        const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
        peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
      } catch {
        // Gone between the check and the read.
      }
      await Bun.sleep(20);
    }
  })();
  const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited, sampling]);
  return { seconds: (performance.now() - started) / 1000, peak, summary: out.trim() };
}

async function longLine(): Promise<void> {
  const long = 'x'.repeat(LONG_LINE_MIB * 1024 * 1024);
  const rows = ['a', 'b', 'c'].map(
    (code) =>
      `{"code":"${code}","url":"https://example.com/${code}","created_at":"2026-01-01T00:00:00Z","password_hash":null}`,
  );
  const files: [string, string][] = [
    ['JSON Lines, short rows only', `{"kurz_export":1,"clicks":false}\n${rows.join('\n')}\n`],
    [
      `JSON Lines, a ${LONG_LINE_MIB} MiB line`,
      `{"kurz_export":1,"clicks":false}\n${rows[0]}\n${(rows[1] as string).replace('example.com/', `example.com/${long}`)}\n${rows[2]}\n`,
    ],
    [
      `CSV, a ${LONG_LINE_MIB} MiB line`,
      `keyword,url,title\na,https://example.com/a,t\nb,https://example.com/${long},t\nc,https://example.com/c,t\n`,
    ],
  ];
  console.log(`kurz import of a file with one ${LONG_LINE_MIB} MiB line (SQLite, whole command)`);
  for (const [label, text] of files) {
    const file = join(dir, `long-${files.findIndex(([l]) => l === label)}.txt`);
    await Bun.write(file, text);
    for (const [build, binary] of [
      ['dist/kurz', BINARY],
      ['before', BEFORE],
    ] as const) {
      if (binary === undefined) continue;
      const run = await peakOfImport(binary, file);
      console.log(
        `  ${label.padEnd(32)} ${build.padEnd(9)} ${fmt(run.seconds, 2).padStart(6)} s  peak RSS ${fmt(run.peak).padStart(5)} MiB  (${run.summary.replace(/^kurz: /, '')})`,
      );
    }
  }
}

/** The rounds: YOURLS CSV and kurz JSON Lines into new databases, beside the baseline. */
async function importRounds(): Promise<void> {
  console.log(
    `kurz import, ${fmt(ROWS)} rows, median of ${ROUNDS} rounds (dist/kurz, whole command)${BEFORE === undefined ? '' : `, and ${BEFORE} in the same rounds`}`,
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
    const csvBefore: number[] = [];
    const ownBefore: number[] = [];
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
      if (BEFORE !== undefined) {
        csvBefore.push((await importFile(yourls, await freshDb(kind), BEFORE)).seconds);
        ownBefore.push((await importFile(jsonl, await freshDb(kind), BEFORE)).seconds);
      }
    }
    const base = median(baseline);
    console.log(`${kind}:`);
    line(`baseline: createLinks, ${IMPORT_BATCH} a batch`, baseline);
    line('YOURLS CSV into an empty database', csv, base);
    line('the same again (all already there)', again, base);
    line('kurz JSON Lines into an empty one', own, base);
    if (BEFORE !== undefined) {
      line('before: YOURLS CSV, empty database', csvBefore, base);
      line('before: kurz JSON Lines, empty one', ownBefore, base);
    }
  }
}

try {
  if (LONG_LINE_MIB > 0) await longLine();
  else await importRounds();
} finally {
  await dropDatabases();
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
}
