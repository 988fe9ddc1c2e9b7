// What the scripts of bench/ share: the compiled kurz, a server process started and its
// port read from the line it prints, a database seeded fast, and a process's memory and CPU time.

import { Database } from 'bun:sqlite';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Subprocess } from 'bun';

export const BINARY = resolve(import.meta.dir, '..', 'dist', 'kurz');
export const KURZ_LINE = /kurz listening on http:\/\/[^:]+:(\d+) /;

/** A numeric flag of a script's command line (`--rounds 5`), or its default. */
export function numberFlag(argv: readonly string[], name: string, fallback: number): number {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : Number(argv[i + 1]);
}

/**
 * The PostgreSQL server a benchmark uses: `--pg URL`, else KURZ_TEST_POSTGRES_URL (as the
 * tests have it), else the local server's `database`.
 */
export function pgUrlFlag(argv: readonly string[], database = 'postgres'): string {
  const i = argv.indexOf('--pg');
  if (i !== -1) return argv[i + 1] as string;
  return process.env.KURZ_TEST_POSTGRES_URL ?? `postgres://postgres@127.0.0.1:5432/${database}`;
}

export interface Server {
  url: string;
  port: number;
  pid: number;
  proc: Subprocess<'ignore', 'pipe', 'inherit'>;
  stop(): Promise<void>;
}

/**
 * Starts `command` and waits for the line matching `pattern` (its first group the port);
 * its output is drained afterwards, so a full pipe never stalls it.
 */
export async function startServer(
  command: string[],
  pattern: RegExp,
  options: { cwd?: string } = {},
): Promise<Server> {
  const proc = Bun.spawn(command, { stdout: 'pipe', stderr: 'inherit', cwd: options.cwd });
  const reader = proc.stdout.getReader();
  let out = '';
  while (!pattern.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${command.join(' ')}\n${out}`);
    out += new TextDecoder().decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
  const port = Number(pattern.exec(out)?.[1]);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: proc.pid,
    proc,
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/** The arguments of `kurz serve` on 127.0.0.1 and a free port, with a database and a mode. */
export function serveArgs(db: string, mode = 'open', extra: readonly string[] = []): string[] {
  return ['serve', '--mode', mode, '--port', '0', '--host', '127.0.0.1', '--db', db, ...extra];
}

/** The code of the i-th seeded link. */
export function seededCode(i: number): string {
  return `c${i.toString(36).padStart(7, '0')}`;
}

/**
 * Migrates a database with the binary, then writes n links of no one straight into it,
 * oldest first (codes from seededCode); returns their codes.
 */
export function seedLinks(db: string, n: number, binary = BINARY): string[] {
  const migrate = Bun.spawnSync([binary, 'migrate', '--db', db]);
  if (migrate.exitCode !== 0) throw new Error(migrate.stderr.toString());
  const sqlite = new Database(db);
  sqlite.run('PRAGMA journal_mode = WAL');
  sqlite.run('PRAGMA synchronous = OFF');
  const insert = sqlite.prepare(
    'INSERT INTO links (user_id, original_url, short_code, source, created_at) VALUES (NULL, ?, ?, NULL, ?)',
  );
  const codes: string[] = [];
  const start = Date.now() - n;
  const chunk = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const code = seededCode(i);
      codes.push(code);
      insert.run(
        `https://example.com/article/${i}?utm_source=seed&utm_medium=bench`,
        code,
        start + i,
      );
    }
  });
  for (let i = 0; i < n; i += 50_000) chunk(i, Math.min(n, i + 50_000));
  sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)');
  sqlite.close();
  return codes;
}

/**
 * A process's resident memory in MiB (from /proc): all of it (VmRSS), its own
 * (RssAnon: heaps, buffers, caches) and file pages (RssFile: the executable, and any
 * file read through a memory map).
 */
export function memoryOf(pid: number): { total: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { total: kB('VmRSS') / 1024, anon: kB('RssAnon') / 1024, file: kB('RssFile') / 1024 };
}

/** A process's CPU time so far (user + system, all threads) in clock ticks (1/100 s); 0 once it is gone. */
export function cpuTicksOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Creates a link through the API (open mode); fails the run when it cannot. */
export async function createLink(base: string, body: object) {
  const r = await fetch(`${base}/api/shorten`, { method: 'POST', body: JSON.stringify(body) });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${await r.text()}`);
  return r.json() as Promise<{ short_code: string }>;
}

/** A link's clicks as `GET /api/links` lists them (open mode); -1 when it is not listed. */
export async function clicksOf(base: string, code: string): Promise<number> {
  const links = (await (await fetch(`${base}/api/links`)).json()) as {
    short_code: string;
    clicks: number;
  }[];
  return links.find((l) => l.short_code === code)?.clicks ?? -1;
}

/** A figure as the benchmarks print it: grouped thousands, `d` decimals. */
export const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
