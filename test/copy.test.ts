// `kurz copy`: a SQLite database copied to PostgreSQL and back arrives unchanged, row for
// row; a kurz on the copy accepts the source's tokens; a target holding data is refused.

import { Database } from 'bun:sqlite';
import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { createApp } from '../src/app.ts';
import { copyDatabase } from '../src/copy/copy.ts';
import { progressTo } from '../src/copy/progress.ts';
import { SqliteSide } from '../src/copy/sqlite-side.ts';
import { HealthCheck } from '../src/health/health-check.ts';
import { silentLogger } from '../src/logger.ts';
import { openStore } from '../src/store/open.ts';
import { attachCounts } from '../src/store/sqlite/click-counts.ts';
import { openSqlite } from '../src/store/sqlite/sqlite-store.ts';
import type { Click, Store } from '../src/store/store.ts';
import { BINARY, call, runKurz, startKurz, tempDir } from './support/binary.ts';
import { freshDatabase } from './support/postgres.ts';

const PASSWORD = 'correct horse battery staple';
const CHEAP = { algorithm: 'argon2id', memoryCost: 1024, timeCost: 1 } as const;
/** Any password passes the test server's trust authentication; it must never be printed. */
const URL_PASSWORD = 'pw-that-must-not-show';

function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = URL_PASSWORD;
  return parsed.toString();
}

function openIn(db: string): Promise<Store> {
  return openStore({ db, dbPool: 2, durability: 'normal', minFreeDiskBytes: 0 }, silentLogger);
}

const T0 = Date.UTC(2026, 10, 21, 9, 30);

/**
 * A SQLite database as a kurz that has run a while leaves it: users (one deleted, so
 * the id sequence is ahead of the rows), open and owned links with and without a source,
 * clicks of every shape, partly rolled up into the counts file, the token key, and
 * /health's probe row.
 */
async function seedSqlite(path: string) {
  const store = openSqlite({ path, durability: 'normal' });
  const hash = () => Bun.password.hash(PASSWORD, CHEAP);
  const ann = await store.createUser('ann@example.com', await hash());
  const bob = await store.createUser('bob@example.com', await hash());
  const gone = await store.createUser('gone@example.com', await hash());
  if (!ann || !bob || !gone) throw new Error('users not created');
  const link = (userId: number | null, code: string, source: string | null, i: number) => ({
    userId,
    originalUrl: `https://example.com/${code}?q=ä&x=${i}`,
    shortCode: code,
    source,
    createdAt: T0 + i * 1000,
  });
  const created = await store.createLinks([
    link(null, 'open1', 'flyer', 1),
    link(null, 'open2', null, 2),
    link(ann.id, 'ann-1', 'news', 3),
    link(ann.id, 'ann_2', null, 4),
    link(ann.id, 'Ann3', 'mail', 5),
    link(bob.id, 'bob1', null, 6),
    link(gone.id, 'gone1', 'x', 7),
    link(bob.id, 'noclick', null, 8),
  ]);
  const ids = created.map((c) => (c !== undefined && typeof c === 'object' ? c.id : 0));
  const clicks: Click[] = [];
  for (let i = 0; i < 60; i++) {
    clicks.push({
      linkId: ids[i % 7] as number,
      source: i % 2 ? 'news' : null,
      querySource: i % 3 ? null : `q${i}`,
      referrer: i % 4 ? `https://ref.example/${i}` : null,
      userAgent: i % 5 ? `Agent/${i} (ü)` : null,
      createdAt: T0 + 10_000 + i,
      address: null,
      country: i % 3 ? 'DE' : null,
      limited: false,
    });
  }
  await store.recordClicks(clicks.slice(0, 40));
  const secret = await store.setting('jwt_secret', () => 'k'.repeat(43));
  await store.replaceSetting('health_probe', new Date(T0).toISOString());
  await store.replaceSetting('operator_note', 'kept');
  await store.close();

  // The first 40 clicks folded into the counts file, as the rollup does; the rest stay
  // in the log's tail.
  const raw = new Database(path);
  raw.run('PRAGMA foreign_keys = ON');
  attachCounts(raw, `${path}-counts`);
  raw.run('DELETE FROM counts.link_clicks');
  raw.run(
    'INSERT INTO counts.link_clicks (link_id, clicks) SELECT link_id, count(*) FROM clicks GROUP BY link_id',
  );
  raw.run(
    'INSERT INTO counts.rollup (id, through) SELECT 1, max(id) FROM clicks WHERE true ON CONFLICT (id) DO UPDATE SET through = excluded.through',
  );
  // The last 20 after the rollup: read from the log's tail.
  const insert = raw.prepare(
    'INSERT INTO clicks (link_id, source, query_source, referrer, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const c of clicks.slice(40)) {
    insert.run(c.linkId, c.source, c.querySource, c.referrer, c.userAgent, c.createdAt);
  }
  insert.finalize();
  // A user who left: their link goes with them (its clicks stay in the log).
  raw.run('DELETE FROM users WHERE id = ?', [gone.id]);
  raw.close();
  return { ann, bob, secret };
}

/** Every row kurz keeps in a SQLite database, as plain values, in id order. */
function dumpSqlite(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const all = (sql: string) => db.query(sql).values();
    return {
      users: all('SELECT * FROM users ORDER BY id'),
      links: all('SELECT * FROM links ORDER BY id'),
      clicks: all('SELECT * FROM clicks ORDER BY id'),
      settings: all("SELECT * FROM settings WHERE key <> 'health_probe' ORDER BY key"),
      linkTotals: all('SELECT * FROM link_totals WHERE links <> 0 ORDER BY owner'),
      sequences: all(
        "SELECT name, seq FROM sqlite_sequence WHERE name IN ('users', 'links') ORDER BY name",
      ),
    };
  } finally {
    db.close();
  }
}

/** What the API shows of a database: every link with its count, and each owner's total. */
async function listed(db: string, owners: number[]) {
  const store = await openIn(db);
  try {
    const all = await store.listLinks({ owner: null, offset: 0 });
    const totals = [];
    for (const owner of owners) totals.push((await store.listLinks({ owner, offset: 0 })).total);
    return { all, totals };
  } finally {
    await store.close();
  }
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

describe('kurz copy, SQLite to PostgreSQL and back', () => {
  const dir = tempDir();
  const original = join(dir, 'original.db');
  const final = join(dir, 'final.db');
  let postgres = '';
  let seeded: Awaited<ReturnType<typeof seedSqlite>>;
  let there: Awaited<ReturnType<typeof runKurz>>;
  let back: Awaited<ReturnType<typeof runKurz>>;

  beforeAll(async () => {
    seeded = await seedSqlite(original);
    postgres = await freshDatabase();
    // A kurz started once on the target leaves /health's probe row: that is not data.
    const target = await openIn(postgres);
    await new HealthCheck(target).check();
    await target.close();
    there = await runKurz(['copy', '--from', original, '--to', withPassword(postgres)]);
    // The addresses may come from the environment instead (keeps a password out of ps).
    back = await runKurz(['copy'], {
      env: { KURZ_COPY_FROM: withPassword(postgres), KURZ_COPY_TO: `sqlite://${final}` },
    });
  }, 60_000);

  test('both copies succeed, say what they copied and verified, and never print the password', () => {
    for (const run of [there, back]) {
      expect(run.code).toBe(0);
      expect(lines(run.stdout)).toEqual([
        expect.stringMatching(
          /^kurz copy: copied (SQLite|PostgreSQL) .+ to (SQLite|PostgreSQL) .+ in [\d.]+ s: 2 users, 7 links, 60 clicks, 2 settings$/,
        ),
        'kurz copy: verified: the same rows in every table, the same links per owner and the same click count for each of the 7 links',
      ]);
      expect(run.stdout + run.stderr).not.toContain(URL_PASSWORD);
    }
    expect(there.stdout).toContain(':***@127.0.0.1');
  });

  test('without a terminal, progress is plain lines: one when each table starts and one when it ends, then the check', () => {
    expect(lines(there.stderr)).toEqual([
      'kurz copy: users: 2 rows to copy',
      expect.stringMatching(/^kurz copy: users: 2 rows copied in [\d.]+ s \([\d,]+ rows\/s\)$/),
      'kurz copy: links: 7 rows to copy',
      expect.stringMatching(/^kurz copy: links: 7 rows copied in [\d.]+ s/),
      'kurz copy: clicks: 60 rows to copy',
      expect.stringMatching(/^kurz copy: clicks: 60 rows copied in [\d.]+ s/),
      'kurz copy: settings: 2 rows to copy',
      expect.stringMatching(/^kurz copy: settings: 2 rows copied in [\d.]+ s/),
      'kurz copy: comparing the copy with the source',
    ]);
  });

  test('the round trip gives back the original, row for row, without the health probe', () => {
    const before = dumpSqlite(original);
    expect(before.users).toHaveLength(2);
    expect(before.clicks).toHaveLength(60);
    expect(before.settings).toEqual([
      ['jwt_secret', seeded.secret],
      ['operator_note', 'kept'],
    ]);
    expect(before.sequences).toEqual([
      ['links', 8],
      ['users', 3],
    ]);
    expect(dumpSqlite(final)).toEqual(before);
    const settings = new Database(final, { readonly: true });
    expect(
      settings.query("SELECT count(*) AS n FROM settings WHERE key = 'health_probe'").get(),
    ).toEqual({ n: 0 });
    settings.close();
  });

  test('every link has the same click count and every owner the same total on all three', async () => {
    const owners = [seeded.ann.id, seeded.bob.id];
    const source = await listed(original, owners);
    expect(source.all.total).toBe(7);
    expect(source.totals).toEqual([3, 2]);
    expect(source.all.links.map((l) => [l.shortCode, l.clicks])).toEqual([
      ['noclick', 0],
      ['bob1', 8],
      ['Ann3', 8],
      ['ann_2', 9],
      ['ann-1', 9],
      ['open2', 9],
      ['open1', 9],
    ]);
    expect(await listed(postgres, owners)).toEqual(source);
    expect(await listed(final, owners)).toEqual(source);
  });

  test('on PostgreSQL each clicked link has one count row, the number of its clicks', async () => {
    const client = new SQL(postgres, { max: 1 });
    try {
      const rows = await client`
        SELECT c.link_id, c.shard, c.clicks::int AS clicks,
               (SELECT count(*)::int FROM clicks k WHERE k.link_id = c.link_id) AS records
        FROM link_clicks c ORDER BY c.link_id`;
      // The deleted link's clicks stay in the log, and are counted as on SQLite.
      expect(rows).toHaveLength(7);
      for (const row of rows) {
        expect(row.shard).toBe(0);
        expect(row.clicks).toBe(row.records);
      }
    } finally {
      await client.close();
    }
  });

  test('a kurz on the copy accepts a token issued by the source and lists the same links', async () => {
    // The token is issued by the original database's app, with its stored key.
    const store = await openIn(original);
    let token: string;
    let sourceList: { status: number; json: unknown; total: string | null };
    try {
      const app = createApp({
        mode: 'accounts',
        store,
        jwtSecret: await store.setting('jwt_secret', () => 'unused'),
        tokenTtlSeconds: 3600,
        baseUrl: () => 'http://localhost',
        log: silentLogger,
      });
      const ask = (path: string, init: RequestInit = {}) =>
        app.handle(new Request(`http://localhost${path}`, init));
      const login = await ask('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ann@example.com', password: PASSWORD }),
      });
      expect(login.status).toBe(200);
      token = ((await login.json()) as { token: string }).token;
      const list = await ask('/api/links', { headers: { authorization: `Bearer ${token}` } });
      sourceList = {
        status: list.status,
        json: await list.json(),
        total: list.headers.get('x-total-count'),
      };
    } finally {
      await store.close();
    }
    expect(sourceList.total).toBe('3');

    const kurz = await startKurz(['--db', postgres, '--rate-limits', 'off']);
    try {
      const list = await call(kurz.url, 'GET', '/api/links', { token });
      expect({
        status: list.status,
        json: list.json,
        total: list.headers.get('x-total-count'),
      }).toEqual(sourceList);

      // New rows get ids past every id the source handed out, the deleted user's too.
      const registered = await call(kurz.url, 'POST', '/api/auth/register', {
        json: { email: 'new@example.com', password: PASSWORD },
      });
      expect(registered.status).toBe(200);
      const shortened = await call(kurz.url, 'POST', '/api/shorten', {
        json: { url: 'https://example.com/new' },
        token,
      });
      expect(shortened.status).toBe(201);
      expect((await call(kurz.url, 'GET', `/${shortened.json.short_code}`)).status).toBe(307);
    } finally {
      expect(await kurz.stop()).toBe(0);
    }
    const client = new SQL(postgres, { max: 1 });
    try {
      const [user] = await client`SELECT id FROM users WHERE email = 'new@example.com'`;
      const [link] =
        await client`SELECT id FROM links WHERE original_url = 'https://example.com/new'`;
      expect(user.id).toBe(4);
      expect(link.id).toBe(9);
      const [click] = await client`SELECT id::int AS id FROM clicks WHERE link_id = ${link.id}`;
      expect(click.id).toBe(61);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('kurz copy from a kurz that is serving', () => {
  test('copies the moment it started: every click up to it, once, and none after', async () => {
    const source = join(tempDir(), 'live.db');
    await seedSqlite(source);
    const target = await freshDatabase();
    const kurz = await startKurz(['--db', source, '--mode', 'open', '--rate-limits', 'off']);
    let clicking = true;
    const traffic = (async () => {
      while (clicking) {
        await Promise.all(Array.from({ length: 8 }, () => call(kurz.url, 'GET', '/open1')));
      }
    })();
    try {
      await Bun.sleep(200);
      const run = await runKurz(['copy', '--from', source, '--to', target]);
      expect(run.stderr).not.toContain('mismatch');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('kurz copy: verified:');
    } finally {
      clicking = false;
      await traffic;
      expect(await kurz.stop()).toBe(0);
    }
    const original = dumpSqlite(source);
    const client = new SQL(target, { max: 1 });
    try {
      const copied = await client`
        SELECT id::int, link_id, source, query_source, referrer, user_agent, created_at::float8
        FROM clicks ORDER BY id`.values();
      // Clicks kept coming after the copy began: the copy holds a prefix of the log.
      expect(copied.length).toBeGreaterThan(60);
      expect(original.clicks.length).toBeGreaterThan(copied.length);
      expect(copied).toEqual(original.clicks.slice(0, copied.length));
      const [counted] = await client`SELECT sum(clicks)::int AS n FROM link_clicks`;
      expect(counted.n).toBe(copied.length);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('kurz copy refuses', () => {
  test('a SQLite target that holds a setting, and changes nothing', async () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    await seedSqlite(source);
    const target = join(dir, 'target.db');
    const store = openSqlite({ path: target, durability: 'normal' });
    await store.setting('jwt_secret', () => 'the target key, kept as it is....');
    await store.close();
    const before = dumpSqlite(target);
    const run = await runKurz(['copy', '--from', source, '--to', target]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([
      `kurz copy: the target SQLite ${target} is not empty (1 setting); kurz copy only writes into an empty database, and changed nothing`,
    ]);
    expect(dumpSqlite(target)).toEqual(before);
  });

  test('a PostgreSQL target that holds a user, and changes nothing', async () => {
    const source = join(tempDir(), 'source.db');
    await seedSqlite(source);
    const target = await freshDatabase();
    const store = await openIn(target);
    await store.createUser('someone@example.com', 'hash');
    await store.close();
    const client = new SQL(target, { max: 1 });
    const dump = async () => ({
      users: await client`SELECT * FROM users`.values(),
      links: await client`SELECT count(*)::int FROM links`.values(),
      settings: await client`SELECT * FROM settings`.values(),
    });
    try {
      const before = await dump();
      const run = await runKurz(['copy', '--from', source, '--to', withPassword(target)]);
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        expect.stringMatching(
          /^kurz copy: the target PostgreSQL postgres:\/\/postgres:\*\*\*@.+ is not empty \(1 user\); kurz copy only writes into an empty database, and changed nothing$/,
        ),
      ]);
      expect(await dump()).toEqual(before);
    } finally {
      await client.close();
    }
  });

  test('a source that does not exist (and does not create it), the same database twice, a missing flag', async () => {
    const dir = tempDir();
    const missing = join(dir, 'typo.db');
    const run = await runKurz(['copy', '--from', missing, '--to', join(dir, 'to.db')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`kurz copy: the source database ${missing} does not exist\n`);
    expect(existsSync(missing)).toBe(false);

    const same = await runKurz(['copy', '--from', join(dir, 'a.db'), '--to', 'sqlite://a.db'], {
      cwd: dir,
    });
    expect(same.code).toBe(1);
    expect(same.stderr).toContain('--from and --to name the same database');

    const noTarget = await runKurz(['copy', '--from', missing]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toBe(
      'kurz: copy needs --to (or KURZ_COPY_TO): a SQLite path or a postgres:// URL\n',
    );
    const badFlag = await runKurz(['copy', '--from', missing, '--to', 'x.db', '--port', '1']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toBe('kurz: unknown flag --port for copy (see --help)\n');
  });
});

describe('verification', () => {
  test('a copy that lost a click is reported as a mismatch, naming the link', async () => {
    const dir = tempDir();
    const sourcePath = join(dir, 'source.db');
    await seedSqlite(sourcePath);
    const source = new SqliteSide(openSqlite({ path: sourcePath, durability: 'normal' }));
    const target = new SqliteSide(openSqlite({ path: join(dir, 't.db'), durability: 'normal' }));
    const insert = target.target.insert;
    // A faulty target: the last click of every chunk is dropped on the way.
    target.target.insert = (table, rows) =>
      insert(table, table === 'clicks' ? rows.slice(0, -1) : rows);
    try {
      const outcome = await copyDatabase(source, target, progressTo({ write() {} }));
      expect(outcome.kind).toBe('copied');
      if (outcome.kind !== 'copied') return;
      expect(outcome.problems).toEqual([
        'clicks: 60 in the source, 59 in the target',
        'click counts differ for 1 link (source vs target: link 4: 9 vs 8)',
      ]);
    } finally {
      await source.close();
      await target.close();
    }
  });
});

describe('progress', () => {
  test('on a terminal, a bar per table redrawn in place', () => {
    let now = 0;
    let out = '';
    const progress = progressTo(
      { isTTY: true, write: (text: string) => (out += text) },
      { now: () => now },
    );
    const bar = progress.table('clicks', 1000);
    now = 500;
    bar.advance(500);
    now = 1000;
    bar.advance(500);
    bar.done();
    const frames = out.split('\r\x1b[2K').filter((frame) => frame !== '');
    expect(frames).toEqual([
      'clicks   [------------------------] 0 / 1,000  ',
      'clicks   [############------------] 500 / 1,000  1,000 rows/s',
      'clicks   [########################] 1,000 / 1,000  1,000 rows/s',
      'clicks   [########################] 1,000 / 1,000  1,000 rows/s\n',
    ]);
  });

  test('in a log, a line every interval with the share done and the rate', () => {
    let now = 0;
    let out = '';
    const progress = progressTo(
      { write: (text: string) => (out += text) },
      {
        now: () => now,
        intervalMs: 5000,
      },
    );
    const table = progress.table('clicks', 1_000_000);
    for (let i = 1; i <= 10; i++) {
      now = i * 1000;
      table.advance(100_000);
    }
    table.done();
    expect(lines(out)).toEqual([
      'kurz copy: clicks: 1,000,000 rows to copy',
      'kurz copy: clicks: 500,000 of 1,000,000 rows (50%), 100,000 rows/s',
      'kurz copy: clicks: 1,000,000 of 1,000,000 rows (100%), 100,000 rows/s',
      'kurz copy: clicks: 1,000,000 rows copied in 10.0 s (100,000 rows/s)',
    ]);
  });
});
