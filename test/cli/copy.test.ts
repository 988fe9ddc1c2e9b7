// `kurz copy`: a SQLite database copied to PostgreSQL and back arrives unchanged, row for
// row, its short domains, tags, click log, click records and day counts included, ids and
// all; both copies show the same links (one code on two domains), tags, counts, stats and
// click rows; a kurz on the copy accepts the source's tokens and carries on numbering; a
// target holding data is refused.

import { Database } from 'bun:sqlite';
import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { DayTally, dayOf } from '../../src/analytics/fold.ts';
import { createApp } from '../../src/app.ts';
import { copyDatabase } from '../../src/copy/copy.ts';
import { progressTo } from '../../src/copy/progress.ts';
import { SqliteSide } from '../../src/copy/sqlite-side.ts';
import { COLUMNS } from '../../src/copy/tables.ts';

import type { DayCount } from '../../src/domain/clicks.ts';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { DomainRegistry } from '../../src/domains/registry.ts';
import { HealthCheck } from '../../src/health/health-check.ts';
import { silentLogger } from '../../src/logger.ts';
import { openStore } from '../../src/store/open.ts';
import { attachCounts } from '../../src/store/sqlite/click-counts.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import type { Click, NewLink, Store } from '../../src/store/store.ts';
import { BINARY, call, eventually, runKurz, startKurz, tempDir } from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';

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
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The days the seeded clicks fall on (one an hour, for 60 hours). */
const DAYS = [dayOf(T0), dayOf(T0 + 59 * HOUR)] as const;
const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1 (ü)',
  'Googlebot/2.1 (+http://www.google.com/bot.html)',
];
/** Every code seeded, the deleted user's link among them. */
const CODES = ['open1', 'open2', 'ann-1', 'ann_2', 'Ann3', 'bob1', 'gone1', 'noclick'];

/**
 * Moves the log into click records and day counts, as a kurz's rollup does. On SQLite,
 * the maintenance thread may hold the counts file a moment (SQLITE_BUSY, which the
 * store answers as unavailable): the rollup keeps its cycle and is tried again.
 */
async function rollUp(store: Store): Promise<number> {
  for (let tries = 1; ; tries++) {
    try {
      return await store.rollUpClicks();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || tries === 20) throw error;
      await Bun.sleep(50);
    }
  }
}

/**
 * A SQLite database as a kurz that has run a while leaves it: users (one deleted, so
 * the id sequence is ahead of the rows), a short domain besides the default one (and one
 * removed, so its sequence is ahead too), open and owned links with and without a source,
 * an expiry, a click limit, a password or tags, one code on both domains, clicks of every
 * shape (people and a bot, with and without a country), the first 40 moved by the
 * analytics rollup into click records and day counts and the last 20 still in the log,
 * the token key, and /health's probe row.
 */
async function seedSqlite(path: string) {
  // The rollup moves clicks when the test says so, not on its timer.
  const store = openSqlite({ path, durability: 'normal', moveClicks: false });
  const domain = (host: string, notFoundRedirect: string | null) =>
    store.createDomain({
      baseUrl: `https://${host}`,
      host,
      rootRedirect: null,
      notFoundRedirect,
      createdAt: T0,
    });
  const go = await domain('go.example.com', 'https://example.com/missing');
  const old = await domain('old.example.com', null);
  if (!go || !old) throw new Error('domains not created');
  expect(await store.deleteDomain(old.id, false)).toBe('removed');
  const hash = () => Bun.password.hash(PASSWORD, CHEAP);
  const ann = await store.createUser('ann@example.com', await hash());
  const bob = await store.createUser('bob@example.com', await hash());
  const gone = await store.createUser('gone@example.com', await hash());
  if (!ann || !bob || !gone) throw new Error('users not created');
  const link = (
    userId: number | null,
    code: string,
    source: string | null,
    i: number,
    more: Partial<NewLink> = {},
  ): NewLink => ({
    userId,
    originalUrl: `https://example.com/${code}?q=ä&x=${i}`,
    shortCode: code,
    source,
    createdAt: T0 + i * 1000,
    ...more,
  });
  const created = await store.createLinks([
    link(null, 'open1', 'flyer', 1, { expiresAt: T0 + 365 * DAY }),
    link(null, 'open2', null, 2),
    link(ann.id, 'ann-1', 'news', 3, { passwordHash: await hash() }),
    link(ann.id, 'ann_2', null, 4, { maxClicks: 100 }),
    link(ann.id, 'Ann3', 'mail', 5, { tags: ['mail'] }),
    link(bob.id, 'bob1', null, 6, { expiresAt: T0 - DAY }),
    link(gone.id, 'gone1', 'x', 7),
    link(bob.id, 'noclick', null, 8, { maxClicks: 5, passwordHash: await hash() }),
    // The same code on the other domain: another link.
    link(ann.id, 'ann-1', null, 9, {
      domainId: go.id,
      tags: ['promo', 'q1'],
      rules: ROUTED.rules,
      variants: ROUTED.variants,
      preview: ROUTED.preview,
    }),
  ]);
  const ids = created.map((c) => (c !== undefined && typeof c === 'object' ? c.id : 0));
  const limited = ids[3];
  const clicks: Click[] = [];
  for (let i = 0; i < 60; i++) {
    const linkId = ids[i % 7] as number;
    clicks.push({
      linkId,
      source: i % 2 ? 'news' : null,
      querySource: i % 3 ? null : `q${i % 9}`,
      referrer: i % 4 ? `https://ref.example/${i % 6}?ü` : null,
      userAgent: i % 5 ? (AGENTS[i % 3] as string) : null,
      createdAt: T0 + i * HOUR,
      address: null,
      country: i % 3 ? (i % 2 ? 'DE' : 'FR') : null,
      route: i % 4 === 1 ? 'rule:0' : i % 4 === 2 ? 'variant:1' : null,
      // ann_2 has a limit (100): its clicks are counted against it.
      limited: linkId === limited,
    });
  }
  await store.recordClicks(clicks.slice(0, 40));
  expect(await rollUp(store)).toBe(40);
  // The rollup left the log empty, and SQLite numbers a row of an empty rowid table 1:
  // a placeholder at the last id moved keeps the next clicks' ids above it.
  store.sqlite.run('INSERT INTO clicks (id, link_id, created_at) VALUES (40, 0, 0)');
  await store.recordClicks(clicks.slice(40));
  store.sqlite.run('DELETE FROM clicks WHERE id = 40');
  const secret = await store.setting('jwt_secret', () => 'k'.repeat(43));
  await store.replaceSetting('health_probe', new Date(T0).toISOString());
  await store.replaceSetting('operator_note', 'kept');
  await store.close();

  // A user who left: their link goes with them (its clicks, records and day counts stay).
  const raw = new Database(path);
  raw.run('PRAGMA foreign_keys = ON');
  // Operations: a password changed once, API keys (the one of the user who left goes with
  // them), webhooks of a user and of open mode, a delivery made and one still due.
  raw.run('UPDATE users SET token_version = 2 WHERE id = ?', [ann.id]);
  // Moderation: an admin signed in through OIDC, a disabled user, a disabled link, reports
  // (one resolved, one removed so the id sequence is ahead) and the blocklist's hosts.
  raw.run(
    `UPDATE users SET admin = 1, oidc_issuer = 'https://id.example', oidc_subject = 'sub-1'
     WHERE id = ?`,
    [ann.id],
  );
  raw.run('UPDATE users SET disabled_at = ? WHERE id = ?', [T0 + DAY, bob.id]);
  raw.run(
    "UPDATE links SET disabled_at = ?, disabled_reason = 'Phishing' WHERE short_code = 'bob1'",
    [T0 + 2 * DAY],
  );
  const report = raw.prepare(
    `INSERT INTO reports (link_id, domain_id, short_code, reason, details, created_at,
       resolved_at, resolution, resolved_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  report.run(6, 0, 'bob1', 'phishing', 'fake bank ä', T0, T0 + DAY, 'disable_link', ann.id);
  report.run(99, 0, 'gone', 'spam', null, T0 + 1, null, null, null);
  report.run(1, 0, 'open1', 'other', null, T0 + 2, null, null, null);
  raw.run('DELETE FROM reports WHERE id = 3');
  raw.run(
    `INSERT INTO blocked_hosts (host, reason, created_at, added_by) VALUES
       ('evil.example', 'phishing', ?, ?), ('spam.example', NULL, ?, NULL)`,
    [T0, ann.id, T0 + 1],
  );
  const key = raw.prepare(
    `INSERT INTO api_keys (user_id, name, prefix, secret_hash, scope, created_at, expires_at, last_used_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  key.run(ann.id, 'deploy script', 'kurz_a1b2c3d4', 'a'.repeat(64), 'write', T0, null, T0 + HOUR);
  key.run(gone.id, 'old', 'kurz_e5f6a7b8', 'b'.repeat(64), 'read', T0, T0 + DAY, null);
  key.run(bob.id, 'reports', 'kurz_c9d0e1f2', 'c'.repeat(64), 'read', T0 + 1, T0 + 30 * DAY, null);
  const hook = raw.prepare(
    'INSERT INTO webhooks (user_id, url, secret, events, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  hook.run(
    ann.id,
    'https://hooks.example/ann',
    'whsec_YW5uLXNlY3JldA==',
    'link.created,clicks',
    T0,
  );
  hook.run(null, 'https://hooks.example/open', 'whsec_b3Blbi1zZWNyZXQ=', 'link.deleted', T0);
  const delivery = raw.prepare(
    `INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, attempts,
       next_attempt_at, delivered_at, last_status, last_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  delivery.run(1, 'link.created', '{"code":"ann-1"}', T0, 1, null, T0 + 5, 200, null);
  delivery.run(
    1,
    'clicks',
    '{"clicks":[{"code":"ann-1"}]}',
    T0,
    3,
    T0 + HOUR,
    null,
    503,
    'HTTP 503',
  );
  delivery.run(2, 'link.deleted', '{"code":"gone1"}', T0, 0, T0, null, null, null);
  raw.run('DELETE FROM users WHERE id = ?', [gone.id]);
  raw.close();
  return { ann, bob, secret, go };
}

/** Every row kurz keeps in a SQLite database, as plain values, in key order. */
function dumpSqlite(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const all = (sql: string) => db.query(sql).values();
    return {
      users: all('SELECT * FROM users ORDER BY id'),
      domains: all('SELECT * FROM domains ORDER BY id'),
      links: all('SELECT * FROM links ORDER BY id'),
      linkTags: all('SELECT * FROM link_tags ORDER BY link_id, tag'),
      clicks: all('SELECT * FROM clicks ORDER BY id'),
      clickStrings: all('SELECT * FROM click_strings ORDER BY id'),
      clickAgents: all('SELECT * FROM click_agents ORDER BY id'),
      clickRecords: all('SELECT * FROM click_records ORDER BY id'),
      clickDays: all('SELECT * FROM click_days ORDER BY link_id, day, dimension, value'),
      clickRollup: all('SELECT * FROM click_rollup'),
      apiKeys: all('SELECT * FROM api_keys ORDER BY id'),
      webhooks: all('SELECT * FROM webhooks ORDER BY id'),
      webhookDeliveries: all('SELECT * FROM webhook_deliveries ORDER BY id'),
      reports: all('SELECT * FROM reports ORDER BY id'),
      blockedHosts: all('SELECT * FROM blocked_hosts ORDER BY host'),
      settings: all("SELECT * FROM settings WHERE key <> 'health_probe' ORDER BY key"),
      linkTotals: all('SELECT * FROM link_totals WHERE links <> 0 ORDER BY owner'),
      sequences: all('SELECT name, seq FROM sqlite_sequence ORDER BY name'),
    };
  } finally {
    db.close();
  }
}

/** The same rows of a PostgreSQL database, in the same shape (bigints as numbers, bot as 0/1). */
/** The rules, split and preview one copied link carries, as the store keeps them. */
const ROUTED = {
  rules: '[{"url":"https://example.com/ios","conditions":[{"type":"os","value":"ios"}]}]',
  variants:
    '[{"url":"https://example.com/a","weight":50},{"url":"https://example.com/b","weight":50}]',
  preview:
    '{"mode":"manual","status":"ready","title":"Card","description":null,"image":null,"error":null}',
};

async function dumpPostgres(url: string) {
  const client = new SQL(url, { max: 1 });
  try {
    const all = (sql: string) => client.unsafe(sql).values();
    return {
      users: await all(
        `SELECT id, email, password_hash, created_at::float8, token_version, admin::int,
           disabled_at::float8, oidc_issuer, oidc_subject FROM users ORDER BY id`,
      ),
      domains: await all(`SELECT id, base_url, host, root_redirect, not_found_redirect,
          created_at::float8 FROM domains ORDER BY id`),
      links: await all(`SELECT id, user_id, original_url, short_code, source, created_at::float8,
          expires_at::float8, max_clicks, limited_clicks, password_hash, domain_id, rules,
          variants, preview, disabled_at::float8, disabled_reason FROM links ORDER BY id`),
      linkTags: await all('SELECT link_id, tag FROM link_tags ORDER BY link_id, tag'),
      clicks: await all(`SELECT id::float8, link_id, source, query_source, referrer, user_agent,
          created_at::float8, country, route FROM clicks ORDER BY id`),
      clickStrings: await all('SELECT id, value FROM click_strings ORDER BY id'),
      clickAgents: await all(
        'SELECT id, value, browser, os, device, bot::int FROM click_agents ORDER BY id',
      ),
      clickRecords: await all(`SELECT id::float8, link_id, created_at::float8, source,
          query_source, referrer, agent, country, route FROM click_records ORDER BY id`),
      clickDays: await all(`SELECT link_id, day, dimension, value, clicks::float8 FROM click_days
          ORDER BY link_id, day, dimension, value`),
      apiKeys: await all(`SELECT id, user_id, name, prefix, secret_hash, scope, created_at::float8,
          expires_at::float8, last_used_at::float8 FROM api_keys ORDER BY id`),
      webhooks: await all(
        'SELECT id, user_id, url, secret, events, created_at::float8 FROM webhooks ORDER BY id',
      ),
      webhookDeliveries:
        await all(`SELECT id::float8, webhook_id, type, payload, created_at::float8,
          attempts, next_attempt_at::float8, delivered_at::float8, last_status, last_error
          FROM webhook_deliveries ORDER BY id`),
      reports: await all(`SELECT id, link_id, domain_id, short_code, reason, details,
          created_at::float8, resolved_at::float8, resolution, resolved_by FROM reports ORDER BY id`),
      blockedHosts: await all(`SELECT host, reason, created_at::float8, added_by FROM blocked_hosts
          ORDER BY host COLLATE "C"`),
      settings: await all(
        "SELECT key, value FROM settings WHERE key <> 'health_probe' ORDER BY key",
      ),
      linkTotals: await all(
        'SELECT owner, links::float8 FROM link_totals WHERE links <> 0 ORDER BY owner',
      ),
    };
  } finally {
    await client.close();
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

/**
 * What stats, the CSV export and the link page read of every seeded link: its detail,
 * its traffic over the seeded days (in a fixed order: neither store promises one), and
 * its click rows, whole and four at a time.
 */
async function analytics(db: string) {
  const store = await openIn(db);
  try {
    const links = [];
    for (const [i, code] of CODES.entries()) {
      const id = i + 1;
      const traffic = await store.linkTraffic(id, DAYS[0], DAYS[1]);
      const rows = await store.clickRows(id, 0, 1000);
      const paged = [];
      for (let page = await store.clickRows(id, 0, 4); page.length > 0; ) {
        paged.push(...page);
        page = await store.clickRows(id, (page.at(-1) as { id: number }).id, 4);
      }
      links.push({
        code,
        detail: await store.findLinkDetail(code),
        days: traffic.days.toSorted(
          (a, b) => a.day - b.day || a.dimension - b.dimension || a.value.localeCompare(b.value),
        ),
        pending: traffic.pending.toSorted(
          (a, b) => a.day - b.day || a.dimension - b.dimension || a.value.localeCompare(b.value),
        ),
        rows,
        paged,
      });
    }
    return links;
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
    const { clickStrings, clickAgents, clickDays } = dumpSqlite(original);
    for (const run of [there, back]) {
      expect(run.code).toBe(0);
      expect(lines(run.stdout)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^kurz copy: copied (SQLite|PostgreSQL) .+ to (SQLite|PostgreSQL) .+ in [\\d.]+ s: 2 users, 1 domain, 8 links, 3 link tags, 20 clicks in the log, ${clickStrings.length} click strings, ${clickAgents.length} user agents, 40 click records, ${clickDays.length} daily counts, 2 API keys, 2 webhooks, 3 webhook deliveries, 2 reports, 2 blocked hosts, 2 settings$`,
          ),
        ),
        'kurz copy: verified: the same rows in every table, the same links per owner and per domain and the same click count for each of the 8 links',
      ]);
      expect(run.stdout + run.stderr).not.toContain(URL_PASSWORD);
    }
    expect(there.stdout).toContain(':***@127.0.0.1');
  });

  test('without a terminal, progress is plain lines: one when each table starts and one when it ends, then the check', () => {
    const before = dumpSqlite(original);
    const tables: [string, number][] = [
      ['users', 2],
      ['domains', 1],
      ['links', 8],
      ['link_tags', 3],
      ['clicks', 20],
      ['click_strings', before.clickStrings.length],
      ['click_agents', before.clickAgents.length],
      ['click_records', 40],
      ['click_days', before.clickDays.length],
      ['api_keys', 2],
      ['webhooks', 2],
      ['webhook_deliveries', 3],
      ['reports', 2],
      ['blocked_hosts', 2],
      ['settings', 2],
    ];
    expect(lines(there.stderr)).toEqual([
      ...tables.flatMap(([table, n]) => {
        const rows = `${n} ${n === 1 ? 'row' : 'rows'}`;
        return [
          `kurz copy: ${table}: ${rows} to copy`,
          expect.stringMatching(
            new RegExp(`^kurz copy: ${table}: ${rows} copied in [\\d.]+ s \\([\\d,]+ rows/s\\)$`),
          ),
        ];
      }),

      'kurz copy: comparing the copy with the source',
    ]);
  });

  test('the round trip gives back the original, row for row and id for id, without the health probe', () => {
    const before = dumpSqlite(original);
    expect(before.users).toHaveLength(2);
    expect(before.links.map((l) => l.slice(6))).toEqual([
      // expires_at, max_clicks, limited_clicks, password_hash, domain_id, rules, variants,
      // preview, disabled_at, disabled_reason
      [T0 + 365 * DAY, null, 0, null, 0, null, null, null, null, null],
      [null, null, 0, null, 0, null, null, null, null, null],
      [null, null, 0, expect.stringMatching(/^\$argon2id\$/), 0, null, null, null, null, null],
      [null, 100, 9, null, 0, null, null, null, null, null],
      [null, null, 0, null, 0, null, null, null, null, null],
      [T0 - DAY, null, 0, null, 0, null, null, null, T0 + 2 * DAY, 'Phishing'],
      [null, 5, 0, expect.stringMatching(/^\$argon2id\$/), 0, null, null, null, null, null],
      [
        null,
        null,
        0,
        null,
        seeded.go.id,
        ROUTED.rules,
        ROUTED.variants,
        ROUTED.preview,
        null,
        null,
      ],
    ]);
    // users: admin, disabled_at, oidc_issuer, oidc_subject
    expect(before.users.map((u) => u.slice(5))).toEqual([
      [1, null, 'https://id.example', 'sub-1'],
      [0, T0 + DAY, null, null],
    ]);
    expect(before.reports.map((r) => r[0])).toEqual([1, 2]);
    expect(before.blockedHosts).toHaveLength(2);
    expect(before.domains).toEqual([
      [
        seeded.go.id,
        'https://go.example.com',
        'go.example.com',
        null,
        'https://example.com/missing',
        T0,
      ],
    ]);
    expect(before.linkTags).toEqual([
      [5, 'mail'],
      [9, 'promo'],
      [9, 'q1'],
    ]);
    // The first 40 clicks moved into records (those of the deleted link too), the rest in the log.
    expect(before.clicks.map((c) => c[0])).toEqual(Array.from({ length: 20 }, (_, i) => 41 + i));
    expect(before.clicks.map((c) => c[7])).toContain('FR');
    expect(before.clickRecords.map((r) => r[0])).toEqual(
      Array.from({ length: 40 }, (_, i) => 1 + i),
    );
    expect(before.clickRollup).toEqual([[1, 40]]);
    expect(before.clickAgents.map((a) => a[5])).toEqual(expect.arrayContaining([0, 1]));
    expect(before.settings).toEqual([
      ['jwt_secret', seeded.secret],
      ['operator_note', 'kept'],
    ]);
    expect(before.sequences).toEqual([
      ['api_keys', 3],
      ['domains', 2],
      ['links', 9],
      ['reports', 3],
      ['users', 3],
      ['webhook_deliveries', 3],
      ['webhooks', 2],
    ]);
    // The key of the user who left went with them.
    expect(before.apiKeys.map((k) => k[2])).toEqual(['deploy script', 'reports']);
    expect(dumpSqlite(final)).toEqual(before);
    const settings = new Database(final, { readonly: true });
    expect(
      settings.query("SELECT count(*) AS n FROM settings WHERE key = 'health_probe'").get(),
    ).toEqual({ n: 0 });
    settings.close();
  });

  // Before any kurz opens the copy: its rollup would fold the log into the counts file.
  test('on the SQLite copy, the copied records count as rolled up and the counts file holds them', () => {
    const db = new Database(final);
    try {
      attachCounts(db, `${final}-counts`);
      expect(db.query('SELECT id, through FROM counts.rollup').values()).toEqual([[1, 40]]);
      // The first 40 clicks, per link: one link in seven, from open1 (id 1) on.
      expect(
        db.query('SELECT link_id, clicks FROM counts.link_clicks ORDER BY 1').values(),
      ).toEqual([
        [1, 6],
        [2, 6],
        [3, 6],
        [4, 6],
        [5, 6],
        [6, 5],
        [7, 5],
      ]);
    } finally {
      db.close();
    }
  });

  test('PostgreSQL holds the same rows, with the same ids, in every table', async () => {
    const { clickRollup: _, sequences: __, ...before } = dumpSqlite(original);
    expect(await dumpPostgres(postgres)).toEqual(before);
  });

  test('every link has the same click count and every owner the same total on all three', async () => {
    const owners = [seeded.ann.id, seeded.bob.id];
    const source = await listed(original, owners);
    expect(source.all.total).toBe(8);
    expect(source.totals).toEqual([4, 2]);
    expect(source.all.links.map((l) => [l.shortCode, l.domainId, l.clicks])).toEqual([
      ['ann-1', seeded.go.id, 0],
      ['noclick', 0, 0],
      ['bob1', 0, 8],
      ['Ann3', 0, 8],
      ['ann_2', 0, 9],
      ['ann-1', 0, 9],
      ['open2', 0, 9],
      ['open1', 0, 9],
    ]);
    expect(await listed(postgres, owners)).toEqual(source);
    expect(await listed(final, owners)).toEqual(source);
  });

  test('every link has the same detail, traffic by day and click rows on all three', async () => {
    const source = await analytics(original);
    const open1 = source[0];
    // Both halves are read: rolled-up days and records, and the log's clicks.
    expect(open1?.detail?.clicks).toBe(9);
    expect(open1?.days.length).toBeGreaterThan(0);
    const pendingClicks = open1?.pending
      .filter((row) => row.dimension <= 1)
      .reduce((sum, row) => sum + row.clicks, 0);
    expect(pendingClicks).toBe(3);
    expect(open1?.rows.map((r) => r.id)).toEqual([1, 8, 15, 22, 29, 36, 43, 50, 57]);
    expect(open1?.paged).toEqual(open1?.rows);
    expect(open1?.rows.map((r) => r.country)).toEqual(expect.arrayContaining(['DE', 'FR', null]));
    expect(await analytics(postgres)).toEqual(source);
    expect(await analytics(final)).toEqual(source);
  });

  test('on all three, one code on two domains is two links, each with its tags, and a tag’s stats are the same; a new domain is numbered past the removed one', async () => {
    const tagsOf: unknown[] = [];
    for (const db of [original, postgres, final]) {
      // No rollup of its own: the tests after this one look at the copies' click log.
      const store = await openStore(
        { db, dbPool: 2, durability: 'normal', minFreeDiskBytes: 0 },
        silentLogger,
        { background: false },
      );
      try {
        const onDefault = await store.findLinkDetail('ann-1');
        const onGo = await store.findLinkDetail('ann-1', seeded.go.id);
        expect([onDefault?.id, onDefault?.domainId, onDefault?.tags, onDefault?.clicks]).toEqual([
          3,
          0,
          [],
          9,
        ]);
        expect([onGo?.id, onGo?.domainId, onGo?.tags, onGo?.clicks]).toEqual([
          9,
          seeded.go.id,
          ['promo', 'q1'],
          0,
        ]);
        const ann3 = await store.findLinkDetail('Ann3');
        expect(ann3?.tags).toEqual(['mail']);
        // A tag's sums are made again from the copied day counts: `mail` has Ann3's traffic.
        const tag = await store.tagTraffic('mail', seeded.ann.id, DAYS[0], DAYS[1]);
        const own = await store.linkTraffic(ann3?.id ?? 0, DAYS[0], DAYS[1]);
        const fold = (counts: readonly DayCount[]) => {
          const tally = new DayTally();
          for (const row of counts) tally.addCount({ ...row, linkId: 0 });
          return tally.rows();
        };
        expect(own.days.length).toBeGreaterThan(0);
        expect([tag?.links, tag?.clicks]).toEqual([1, ann3?.clicks]);
        expect(fold([...(tag?.days ?? []), ...(tag?.pending ?? [])])).toEqual(
          fold([...own.days, ...own.pending]),
        );
        // The copies' tag sums are made from their day counts and tags, as the source's were.
        const mail = await store.tagTraffic('mail', null, DAYS[0], DAYS[1]);
        tagsOf.push({
          tags: await store.listTags(null),
          mail: { ...mail, days: mail?.days.map((d) => JSON.stringify(d)).sort() },
        });
        expect(await store.findLinkDetail('open1', seeded.go.id)).toBeUndefined();
        expect((await store.listDomains()).map((d) => [d.id, d.host, d.notFoundRedirect])).toEqual([
          [seeded.go.id, 'go.example.com', 'https://example.com/missing'],
        ]);
        if (db === original) continue;
        const added = await store.createDomain({
          baseUrl: 'https://new.example.com',
          host: 'new.example.com',
          rootRedirect: null,
          notFoundRedirect: null,
          createdAt: T0,
        });
        expect(added?.id).toBe(3);
        expect(await store.deleteDomain(added?.id ?? 0, false)).toBe('removed');
      } finally {
        await store.close();
      }
    }
    expect(tagsOf[0]).toMatchObject({
      tags: [
        { tag: 'mail', links: 1, clicks: 8 },
        { tag: 'promo', links: 1, clicks: 0 },
        { tag: 'q1', links: 1, clicks: 0 },
      ],
      mail: { links: 1, clicks: 8 },
    });
    expect((tagsOf[0] as { mail: { days: string[] } }).mail.days.length).toBeGreaterThan(0);
    expect(tagsOf[1]).toEqual(tagsOf[0]);
    expect(tagsOf[2]).toEqual(tagsOf[0]);
  });

  test('on both copies, a new report is numbered past the removed one, as on the original', async () => {
    const sqlite = new Database(final);
    try {
      const made = sqlite
        .query(
          "INSERT INTO reports (short_code, reason, created_at) VALUES ('x', 'spam', 1) RETURNING id",
        )
        .get() as { id: number };
      expect(made.id).toBe(4);
      sqlite.run('DELETE FROM reports WHERE id = 4');
    } finally {
      sqlite.close();
    }
    const client = new SQL(postgres, { max: 1 });
    try {
      const [made] = await client`INSERT INTO reports (short_code, reason, created_at)
        VALUES ('x', 'spam', 1) RETURNING id`;
      expect(made.id).toBe(4);
      await client`DELETE FROM reports WHERE id = 4`;
    } finally {
      await client.close();
    }
  });

  test('on PostgreSQL each clicked link has one count row: its day counts and its clicks in the log', async () => {
    const client = new SQL(postgres, { max: 1 });
    try {
      const rows = await client`
        SELECT c.link_id, c.shard, c.clicks::int AS clicks,
               ((SELECT coalesce(sum(d.clicks), 0) FROM click_days d
                 WHERE d.link_id = c.link_id AND d.dimension IN (0, 1))
                + (SELECT count(*) FROM clicks k WHERE k.link_id = c.link_id))::int AS kept
        FROM link_clicks c ORDER BY c.link_id`;
      // The deleted link's clicks stay, and are counted as on SQLite.
      expect(rows.map((row: { link_id: number }) => row.link_id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      for (const row of rows) {
        expect(row.shard).toBe(0);
        expect(row.clicks).toBe(row.kept);
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
        domains: await DomainRegistry.open(store, () => 'http://localhost'),
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
    expect(sourceList.total).toBe('4');

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
      expect(link.id).toBe(10);

      // In the log, or already moved into a record by the kurz's rollup.
      const [click] = await client`
        SELECT id::int AS id FROM clicks WHERE link_id = ${link.id}
        UNION ALL SELECT id::int FROM click_records WHERE link_id = ${link.id}`;
      expect(click.id).toBe(61);
    } finally {
      await client.close();
    }
  }, 30_000);

  test('on both copies, new clicks get new ids and the rollup moves the copied log after the copied records', async () => {
    for (const db of [postgres, final]) {
      const store = await openIn(db);
      try {
        const agent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/140.0 Safari/537.36';
        await store.recordClicks([
          {
            linkId: 1,
            source: 'flyer',
            querySource: 'after',
            referrer: 'https://new.example/',
            userAgent: agent,
            createdAt: T0 + 60 * HOUR,
            address: null,
            country: 'NL',
            limited: false,
          },
        ]);
        // New strings and agents need ids past the copied ones, or this fails.
        await rollUp(store);
        const detail = await store.findLinkDetail('open1');
        expect(detail?.clicks).toBe(10);
        const rows = await store.clickRows(1, 0, 1000);
        const ids = rows.map((r) => r.id);
        expect(ids.slice(0, 9)).toEqual([1, 8, 15, 22, 29, 36, 43, 50, 57]);
        expect(ids[9]).toBeGreaterThan(60);
        expect(rows[9]).toMatchObject({ userAgent: agent, querySource: 'after', country: 'NL' });
        const traffic = await store.linkTraffic(1, DAYS[0], DAYS[1] + 1);
        expect(traffic.pending).toEqual([]);
        const total = traffic.days
          .filter((d) => d.dimension <= 1)
          .reduce((sum, d) => sum + d.clicks, 0);
        expect(total).toBe(10);
      } finally {
        await store.close();
      }
    }
  }, 30_000);
});

/**
 * Every click a database holds, whichever half it is in (records, through their strings,
 * or the log), of the links that exist, in id order.
 */
const EVERY_CLICK = (number: (column: string) => string) => `
  SELECT ${number('r.id')} AS id, r.link_id, s.value AS source, q.value AS query_source,
         f.value AS referrer, a.value AS user_agent, ${number('r.created_at')} AS created_at, r.country
  FROM click_records r
  LEFT JOIN click_strings s ON s.id = r.source
  LEFT JOIN click_strings q ON q.id = r.query_source
  LEFT JOIN click_strings f ON f.id = r.referrer
  LEFT JOIN click_agents a ON a.id = r.agent
  WHERE r.link_id IN (SELECT id FROM links)
  UNION ALL
  SELECT ${number('id')}, link_id, source, query_source, referrer, user_agent,
         ${number('created_at')}, country
  FROM clicks WHERE link_id IN (SELECT id FROM links)
  ORDER BY 1`;

describe('kurz copy from a kurz that is serving', () => {
  test('copies the moment it started: every click up to it, once, and none after', async () => {
    const source = join(tempDir(), 'live.db');
    await seedSqlite(source);
    const target = await freshDatabase();
    const kurz = await startKurz(['--db', source, '--mode', 'open', '--rate-limits', 'off']);
    let clicking = true;
    let rounds = 0;
    const traffic = (async () => {
      while (clicking) {
        await Promise.all(Array.from({ length: 8 }, () => call(kurz.url, 'GET', '/open1')));
        rounds++;
      }
    })();
    try {
      await eventually(() => rounds >= 5, 'clicks arriving');
      const run = await runKurz(['copy', '--from', source, '--to', target]);
      expect(run.stderr).not.toContain('mismatch');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('kurz copy: verified:');
    } finally {
      clicking = false;
      await traffic;
      expect(await kurz.stop()).toBe(0);
    }
    const db = new Database(source, { readonly: true });
    const original = db.query(EVERY_CLICK((column) => column)).values();
    db.close();
    const client = new SQL(target, { max: 1 });
    try {
      const copied = await client.unsafe(EVERY_CLICK((column) => `${column}::float8`)).values();
      // Clicks kept coming after the copy began, and the rollup kept moving them out of
      // the log: the copy holds a prefix of all of them, wherever each was.
      expect(copied.length).toBeGreaterThan(57);
      expect(original.length).toBeGreaterThan(copied.length);
      expect(copied).toEqual(original.slice(0, copied.length));
      const [counted] = await client`
        SELECT sum(clicks)::int AS n FROM link_clicks WHERE link_id IN (SELECT id FROM links)`;
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
        'clicks: 20 in the source, 19 in the target',
        'click counts differ for 1 link (source vs target: link 4: 9 vs 8)',
      ]);
    } finally {
      await source.close();
      await target.close();
    }
  });

  test('a copy that moved links to another domain is reported, though every table has its rows', async () => {
    const dir = tempDir();
    const sourcePath = join(dir, 'source.db');
    await seedSqlite(sourcePath);
    const source = new SqliteSide(openSqlite({ path: sourcePath, durability: 'normal' }));
    const target = new SqliteSide(openSqlite({ path: join(dir, 't.db'), durability: 'normal' }));
    const insert = target.target.insert;
    const domainColumn = COLUMNS.links.indexOf('domain_id');
    // A faulty target: the links of domain 1 land on a domain 5 that does not exist.
    target.target.insert = (table, rows) =>
      insert(
        table,
        table === 'links'
          ? rows.map((row) => (row[domainColumn] === 1 ? row.with(domainColumn, 5) : row))
          : rows,
      );
    try {
      const outcome = await copyDatabase(source, target, progressTo({ write() {} }));
      expect(outcome.kind).toBe('copied');
      if (outcome.kind !== 'copied') return;
      expect(outcome.problems).toEqual([
        'links per domain differ for 2 domains (domain 1: 1 vs 0, domain 5: 0 vs 1)',
      ]);
    } finally {
      await source.close();
      await target.close();
    }
  });

  test('a copy whose counts were not made from its clicks is reported, naming the links', async () => {
    const dir = tempDir();
    const sourcePath = join(dir, 'source.db');
    await seedSqlite(sourcePath);
    const source = new SqliteSide(openSqlite({ path: sourcePath, durability: 'normal' }));
    const target = new SqliteSide(openSqlite({ path: join(dir, 't.db'), durability: 'normal' }));
    // A faulty target: the counts file is left empty, so only the log is counted.
    target.target.countClicks = async () => {};
    try {
      const outcome = await copyDatabase(source, target, progressTo({ write() {} }));
      expect(outcome.kind).toBe('copied');
      if (outcome.kind !== 'copied') return;
      expect(outcome.problems).toEqual([
        'the target shows click counts other than its clicks for 6 links (clicks vs shown: link 1: 9 vs 3, link 2: 9 vs 3, link 3: 9 vs 3, link 4: 9 vs 3, link 5: 8 vs 2, and 1 more)',
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
      'clicks        [------------------------] 0 / 1,000  ',
      'clicks        [############------------] 500 / 1,000  1,000 rows/s',
      'clicks        [########################] 1,000 / 1,000  1,000 rows/s',
      'clicks        [########################] 1,000 / 1,000  1,000 rows/s\n',
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
