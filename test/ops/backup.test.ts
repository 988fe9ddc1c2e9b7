// `kurz backup FILE`: a copy of the SQLite database of a kurz under load (clicks and
// creates running) is one snapshot that a second kurz starts from directly: every link
// in it redirects, its counts are the snapshot's (rebuilt without the counts file), the
// first kurz's tokens work on it, and it is owner-only and complete on its own. An
// existing FILE, a missing database and a PostgreSQL database are refused; a database
// is copied as it is, never migrated. For PostgreSQL, docs/production.md's pg_dump /
// pg_restore lines are run as written: a kurz on the restored database serves the same links and
// accepts the same tokens.

import { Database } from 'bun:sqlite';
import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  call,
  eventually,
  type Running,
  run,
  runKurz,
  startKurz,
  tempDir,
} from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';

// All the load comes from one address (this test): the rate limits would refuse it.
const ARGS = ['--mode', 'accounts', '--rate-limits', 'off'];
const PASSWORD = 'correct horse battery staple';
/** The page whose restore and pg_dump / pg_restore steps this file runs. */
const PAGE = resolve(import.meta.dir, '..', '..', 'docs', 'production.md');
const SUMMARY = /^kurz backup: wrote (\S+) \(\d+\.\d MiB\) from (\S+) in \d+\.\d+ s\n$/;

interface ListedLink {
  short_code: string;
  original_url: string;
  clicks: number;
}

async function register(url: string, email: string): Promise<string> {
  const answer = await call(url, 'POST', '/api/auth/register', {
    json: { email, password: PASSWORD },
  });
  expect(answer.status).toBe(200);
  return answer.json.token as string;
}

async function shorten(url: string, token: string, code: string): Promise<number> {
  const answer = await call(url, 'POST', '/api/shorten', {
    token,
    json: { url: `https://example.com/${code}`, custom_code: code },
  });
  return answer.status;
}

async function links(url: string, token: string): Promise<Map<string, ListedLink>> {
  const answer = await call(url, 'GET', '/api/links', { token });
  expect(answer.status).toBe(200);
  return new Map((answer.json as ListedLink[]).map((link) => [link.short_code, link]));
}

async function redirect(url: string, code: string): Promise<Response> {
  const response = await fetch(`${url}/${code}`, { redirect: 'manual' });
  await response.arrayBuffer();
  return response;
}

/** Every link listed redirects to its own target. */
async function expectAllRedirect(url: string, listed: Map<string, ListedLink>) {
  const wrong: string[] = [];
  for (const link of listed.values()) {
    const response = await redirect(url, link.short_code);
    if (response.status !== 307 || response.headers.get('location') !== link.original_url) {
      wrong.push(`${link.short_code}: ${response.status} ${response.headers.get('location')}`);
    }
  }
  expect(wrong).toEqual([]);
}

describe('kurz backup of the SQLite database of a kurz under load', () => {
  const dir = tempDir('kurz-backup-');
  const db = join(dir, 'data', 'kurz.db');
  const backup = join(dir, 'kurz-backup.db');
  const SEEDS = Array.from({ length: 40 }, (_, i) => `seed-${i}`);
  let live: Running;
  let token: string;
  /** Codes whose create got a 201 before the backup started. */
  let createdBefore: string[] = [];
  /** The anchor link's clicks and the sequence links, made in turn by one client. */
  let sequenced = 0;

  beforeAll(async () => {
    live = await startKurz([...ARGS, '--db', db]);
    token = await register(live.url, 'ann@example.com');
    for (const code of [...SEEDS, 'anchor']) expect(await shorten(live.url, token, code)).toBe(201);
  });

  test('the copy is one snapshot, complete and owner-only; a kurz starts from it, with its links, counts and tokens', async () => {
    let running = true;
    const created: string[] = [];
    const unexpected: string[] = [];
    // Clients that follow seed links and create links, without pause.
    const loader = async (id: number) => {
      for (let n = 0; running; n++) {
        if (n % 4 === 3) {
          const code = `load-${id}-${n}`;
          const status = await shorten(live.url, token, code);
          if (status === 201) created.push(code);
          else unexpected.push(`create ${code}: ${status}`);
        } else {
          const code = SEEDS[(id * 7 + n) % SEEDS.length] as string;
          const status = (await redirect(live.url, code)).status;
          if (status !== 307) unexpected.push(`redirect ${code}: ${status}`);
        }
      }
    };
    // One client in turn: a click of `anchor` (its 307 means it is committed), then the
    // link `seq-i`. A snapshot holding seq-i holds the i + 1 clicks before it, and one
    // holding a click after seq-i holds seq-i.
    const sequencer = async () => {
      for (let i = 0; running; i++) {
        if ((await redirect(live.url, 'anchor')).status !== 307) unexpected.push('anchor');
        if ((await shorten(live.url, token, `seq-${i}`)) !== 201) unexpected.push(`seq-${i}`);
        sequenced = i + 1;
      }
    };
    const load = [...Array.from({ length: 4 }, (_, id) => loader(id)), sequencer()];
    await eventually(() => sequenced >= 20 && created.length >= 20, 'load under way', 10_000);

    createdBefore = [...created];
    const sequencedBefore = sequenced;
    const result = await runKurz(['backup', backup, '--db', db]);
    const sequencedAfter = sequenced;
    // The load goes on after the copy, so the live database moves past it.
    await eventually(() => sequenced >= sequencedAfter + 10, 'load after the backup', 10_000);
    running = false;
    await Promise.all(load);
    expect(unexpected).toEqual([]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(SUMMARY);
    expect(SUMMARY.exec(result.stdout)?.slice(1)).toEqual([backup, db]);
    // Owner-only, and complete on its own: no WAL beside it, no temporary file left.
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    for (const side of ['-wal', '-shm', '-counts', '.partial']) {
      expect(existsSync(backup + side)).toBe(false);
    }
    const check = new Database(backup, { readonly: true });
    expect(check.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    check.close();

    const liveLinks = await links(live.url, token);
    const copy = await startKurz([...ARGS, '--db', backup]);
    // The token key lives in the database: the first kurz's token works on the copy.
    const copied = await links(copy.url, token);

    for (const code of [...SEEDS, 'anchor', ...createdBefore]) expect(copied.has(code)).toBe(true);
    // Every count is at most the live one (it is an earlier moment of the same database),
    // and the load's clicks before the backup are in it.
    for (const [code, link] of copied) {
      expect(liveLinks.has(code)).toBe(true);
      expect(link.clicks).toBeLessThanOrEqual(liveLinks.get(code)?.clicks as number);
    }
    expect(SEEDS.reduce((sum, code) => sum + (copied.get(code)?.clicks ?? 0), 0)).toBeGreaterThan(
      0,
    );
    // One snapshot: the seq links in it are seq-0 … seq-k with no gap, and the anchor has
    // the k + 1 clicks made before seq-k, plus at most the one made after it.
    const seq = [...copied.keys()].filter((code) => code.startsWith('seq-'));
    const k = seq.length - 1;
    expect(seq.sort()).toEqual(Array.from({ length: k + 1 }, (_, i) => `seq-${i}`).sort());
    expect(k + 1).toBeGreaterThanOrEqual(sequencedBefore);
    expect(k + 1).toBeLessThan(sequenced);
    expect([k + 1, k + 2]).toContain(copied.get('anchor')?.clicks as number);

    await expectAllRedirect(copy.url, copied);
    expect(await copy.stop()).toBe(0);
  }, 60_000);

  test('a backup of the quiet database has exactly the live counts, rebuilt without the counts file', async () => {
    // Counts come from the daily counts of clicks the analytics moved, plus the log's
    // newest clicks: wait for a move, then click again, so the copy needs both.
    const moved = () => {
      const reader = new Database(db, { readonly: true });
      const row = reader
        .query<{ t: number }, []>('SELECT max(through) AS t FROM click_rollup')
        .get();
      reader.close();
      return row?.t ?? 0;
    };
    await eventually(() => moved() > 0, 'the live kurz moved clicks into daily counts', 10_000);
    for (const code of SEEDS.slice(0, 5)) expect((await redirect(live.url, code)).status).toBe(307);
    const quiet = join(dir, 'quiet.db');
    const result = await runKurz(['backup', quiet, '--db', `sqlite://${db}`]);
    expect(result.code).toBe(0);
    expect(existsSync(`${quiet}-counts`)).toBe(false);
    const liveLinks = await links(live.url, token);
    const copy = await startKurz([...ARGS, '--db', quiet]);
    const copied = await links(copy.url, token);
    expect(copied).toEqual(liveLinks);
    expect(await copy.stop()).toBe(0);
  }, 30_000);

  test('an existing FILE, or a side file of it, is refused and left as it was', async () => {
    const before = readFileSync(backup);
    const again = await runKurz(['backup', backup, '--db', db]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      `kurz backup: ${backup} already exists; remove it or choose another FILE\n`,
    );
    expect(readFileSync(backup).equals(before)).toBe(true);

    // A counts file left by another database would be read as the new file's.
    const other = join(dir, 'other.db');
    writeFileSync(`${other}-counts`, 'stale');
    const refused = await runKurz(['backup', other, '--db', db]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `kurz backup: ${other}-counts already exists; remove it or choose another FILE\n`,
    );
    expect(existsSync(other)).toBe(false);
  });

  test('a missing database is refused, and not created', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'copy.db');
    // The default database, ./data/kurz.db, in a folder without one.
    const missing = await runKurz(['backup', file], { cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('kurz backup: the database ./data/kurz.db does not exist\n');
    const named = await runKurz(['backup', file, '--db', join(cwd, 'nope.db')], { cwd });
    expect(named.code).toBe(1);
    expect(named.stderr).toBe(`kurz backup: the database ${join(cwd, 'nope.db')} does not exist\n`);
    for (const path of ['data', 'nope.db', 'copy.db', 'copy.db.partial']) {
      expect(existsSync(join(cwd, path))).toBe(false);
    }
  });

  test('a FILE in a folder that does not exist is refused', async () => {
    const file = join(dir, 'no-such-folder', 'copy.db');
    const result = await runKurz(['backup', file, '--db', db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `kurz backup: the folder ${join(dir, 'no-such-folder')} does not exist\n`,
    );
  });
});

test('a database of another schema is copied as it is: neither it nor the copy is migrated', async () => {
  const dir = tempDir();
  const old = join(dir, 'old.db');
  const raw = new Database(old);
  raw.run('PRAGMA journal_mode = WAL');
  raw.run('PRAGMA user_version = 7');
  raw.run('CREATE TABLE links (id INTEGER PRIMARY KEY, code TEXT)');
  raw.run("INSERT INTO links (code) VALUES ('a'), ('b')");
  raw.close();
  const file = join(dir, 'copy.db');
  const result = await runKurz(['backup', file, '--db', old]);
  expect(result.code).toBe(0);
  const tables = (path: string) => {
    const opened = new Database(path, { readonly: true });
    const names = opened
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
      )
      .all()
      .map((row) => row.name);
    const version = opened.query('PRAGMA user_version').get();
    const rows = opened.query('SELECT code FROM links ORDER BY id').all();
    opened.close();
    return { names, version, rows };
  };
  const expected = {
    names: ['links'],
    version: { user_version: 7 },
    rows: [{ code: 'a' }, { code: 'b' }],
  };
  expect(tables(old)).toEqual(expected);
  expect(tables(file)).toEqual(expected);
});

test('a PostgreSQL database is refused with exit 2, pointing to pg_dump, without its password', async () => {
  const dir = tempDir();
  const file = join(dir, 'kurz.dump');
  const given: { args: string[]; env: Record<string, string> }[] = [
    { args: ['--db', 'postgres://kurz:s3cret-pw@db.internal:5432/kurz'], env: {} },
    { args: [], env: { DATABASE_URL: 'postgresql://kurz:s3cret-pw@db.internal/kurz' } },
  ];
  for (const env of given) {
    const result = await runKurz(['backup', file, ...env.args], { env: env.env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`pg_dump --format=custom --file ${file} "$DATABASE_URL"`);
    expect(result.stderr).toContain('pg_restore');
    expect(result.stderr).toContain('kurz:***@db.internal');
    expect(result.stderr).not.toContain('s3cret-pw');
    expect(existsSync(file)).toBe(false);
  }
});

/**
 * The command blocks of docs/production.md marked as run by this file: each a fenced
 * block after a line `<!-- run by test/ops/backup.test.ts …`, as its lines.
 */
function pageBlocks(): string[][] {
  const lines = readFileSync(PAGE, 'utf8').split('\n');
  const blocks: string[][] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith('<!-- run by test/ops/backup.test.ts')) return;
    const end = lines.indexOf('```', i + 2);
    if (!lines[i + 1]?.startsWith('```') || end === -1)
      throw new Error(`docs/production.md:${i + 1}`);
    blocks.push(lines.slice(i + 2, end));
  });
  return blocks;
}

/** The one marked block with a line starting with `start`. */
function pageBlock(start: string): string[] {
  const found = pageBlocks().filter((block) => block.some((line) => line.startsWith(start)));
  if (found.length !== 1)
    throw new Error(`docs/production.md: ${found.length} blocks with "${start}"`);
  return found[0] as string[];
}

/** Runs each line with sh, as an operator would paste them; fails at the first that fails. */
async function runLines(
  lines: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
) {
  for (const line of lines) {
    const env = { PATH: process.env.PATH ?? '', ...options.env };
    const result = await run(['sh', '-c', line], { env, cwd: options.cwd });
    expect([line, result.stderr, result.code]).toEqual([line, '', 0]);
  }
}

test("SQLite: docs/production.md's restore brings the copy back, with the copy's counts, not the replaced database's", async () => {
  const machine = tempDir('kurz-machine-');
  const state = join(machine, 'state');
  const copies = join(machine, 'backups');
  mkdirSync(state, { mode: 0o700 });
  mkdirSync(copies, { mode: 0o700 });
  const db = join(state, 'kurz.db');
  const copy = join(copies, 'kurz-20261123-031500.db');
  const kurz = await startKurz([...ARGS, '--db', db]);
  const token = await register(kurz.url, 'cy@example.com');
  for (const code of ['kept-1', 'kept-2']) expect(await shorten(kurz.url, token, code)).toBe(201);
  for (let i = 0; i < 3; i++) expect((await redirect(kurz.url, 'kept-1')).status).toBe(307);
  expect((await runKurz(['backup', copy, '--db', db])).code).toBe(0);
  const atBackup = await links(kurz.url, token);

  // Afterwards: more clicks, counted into the counts file, and a link.
  for (let i = 0; i < 5; i++) expect((await redirect(kurz.url, 'kept-1')).status).toBe(307);
  expect(await shorten(kurz.url, token, 'later')).toBe(201);
  const counted = () => {
    const counts = new Database(`${db}-counts`, { readonly: true });
    const row = counts.query<{ t: number }, []>('SELECT max(through) AS t FROM rollup').get();
    counts.close();
    return row?.t ?? 0;
  };
  await eventually(() => counted() >= 8, 'the 8 clicks folded into the counts file', 10_000);
  expect(await kurz.stop()).toBe(0);

  const restore = pageBlock('sudo systemctl stop kurz');
  expect(restore[0]).toBe('sudo systemctl stop kurz');
  expect(restore.at(-1)).toBe('sudo systemctl start kurz');
  const owner = `-o ${process.getuid?.()} -g ${process.getgid?.()}`;
  await runLines(
    restore.slice(1, -1).map((line) =>
      line
        .replace(/^sudo /, '')
        .replaceAll('-o kurz -g kurz', owner)
        .replaceAll('/var/lib/kurz-backups/kurz-20261123-031500.db', copy)
        .replaceAll('/var/lib/kurz', state),
    ),
  );
  expect(existsSync(`${state}.replaced/kurz.db-counts`)).toBe(true);
  expect(statSync(state).mode & 0o777).toBe(0o700);
  expect(statSync(db).mode & 0o777).toBe(0o600);

  const back = await startKurz([...ARGS, '--db', db]);
  expect(await links(back.url, token)).toEqual(atBackup);
  expect(await back.stop()).toBe(0);
}, 30_000);

const PG_TOOLS = Bun.which('pg_dump') !== null && Bun.which('pg_restore') !== null;
if (!PG_TOOLS) {
  console.log(
    'backup: pg_dump or pg_restore is not installed: the PostgreSQL procedure is skipped',
  );
}

test.skipIf(!PG_TOOLS)(
  "PostgreSQL: docs/production.md's pg_dump and pg_restore bring a kurz's database back, links, counts, tokens and all",
  async () => {
    const dump = pageBlock('pg_dump ');
    const restore = pageBlock('pg_restore ');
    const source = await freshDatabase();
    const kurz = await startKurz([...ARGS, '--db', source]);
    const token = await register(kurz.url, 'bob@example.com');
    for (const code of ['pg-1', 'pg-2', 'pg-3'])
      expect(await shorten(kurz.url, token, code)).toBe(201);
    for (let i = 0; i < 5; i++) expect((await redirect(kurz.url, 'pg-2')).status).toBe(307);
    const before = await links(kurz.url, token);

    // Dumped while kurz serves (pg_dump reads one snapshot); restored into an empty database.
    const cwd = tempDir();
    await runLines(dump, { cwd, env: { DATABASE_URL: source } });
    expect(await kurz.stop()).toBe(0);
    const target = await freshDatabase();
    await runLines(restore, { cwd, env: { DATABASE_URL: target } });

    const back = await startKurz([...ARGS, '--db', target]);
    const after = await links(back.url, token);
    expect(after).toEqual(before);
    await expectAllRedirect(back.url, after);
    // Ids go on from where they were: a new link is made.
    expect(await shorten(back.url, token, 'pg-4')).toBe(201);
    expect(await back.stop()).toBe(0);
  },
  60_000,
);
