// kurz export from one database, kurz import into another, SQLite to PostgreSQL and
// back: every link arrives with its code, URL, owner (by e-mail), creation time, source,
// expiry, click limit with the clicks counted against it, and password (a protected link
// stays protected), and with --clicks its click records; then the same through CSV.
// Each direction opens both stores itself, whatever KURZ_TEST_STORE says.

import { describe, expect, onTestFinished, test } from 'bun:test';
import { openPostgres } from '../../src/store/postgres/postgres-store.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import type { LinkDetail, Store } from '../../src/store/store.ts';
import { atCleanUp } from '../support/cleanup.ts';
import { freshSchemaUrl } from '../support/postgres.ts';
import { TestApp } from '../support/test-app.ts';
import { exportText, importText, summaryOf } from '../support/transfer.ts';

type Kind = 'sqlite' | 'postgres';

async function openKind(kind: Kind): Promise<Store> {
  const store =
    kind === 'sqlite'
      ? openSqlite({ path: ':memory:', durability: 'normal' })
      : await openPostgres({ url: await freshSchemaUrl(), pool: 2 });
  // Closed as soon as the test ends: PostgreSQL allows only so many connections at once.
  onTestFinished(() => store.close());
  atCleanUp(() => store.close());
  return store;
}

const FORM = 'application/x-www-form-urlencoded';
const HOUR = 3_600_000;

/** Everything kept of each link, ids aside and owners by e-mail, by code. */
async function linksOf(app: TestApp): Promise<Record<string, unknown>> {
  const emails = new Map((await app.store.listUsers()).map((u) => [u.id, u.email]));
  const links = await app.store.listLinkDetailsAfter({
    owner: null,
    after: { createdAt: Number.MAX_SAFE_INTEGER, id: 2 ** 31 - 1 },
    limit: 100,
  });
  return Object.fromEntries(
    links.map(({ id: _, userId, ...link }: LinkDetail) => [
      link.shortCode,
      { ...link, owner: userId === null ? null : emails.get(userId) },
    ]),
  );
}

/** A link's click records as they are kept, ids aside. */
async function recordsOf(app: TestApp, code: string) {
  const link = await app.store.findLinkDetail(code);
  const rows = await app.store.clickRows(link?.id ?? 0, 0, 1000);
  return rows.map(({ id: _, linkId: __, ...row }) => row);
}

describe.each([
  ['sqlite', 'postgres'],
  ['postgres', 'sqlite'],
] as const)('from %s to %s', (from, to) => {
  test('every link arrives as it was, with its click records, and again through CSV', async () => {
    const source = await TestApp.init('accounts', { store: await openKind(from) });
    const ann = await source.user('ann@example.com');
    const bob = await source.user('bob@example.com');
    await ann.link('https://example.com/ä?q=1', { custom_code: 'ann-1', source: 'newsletter' });
    await ann.link('https://example.com/limited', { custom_code: 'Ann_2', max_clicks: 5 });
    await ann.link('https://example.com/secret', {
      custom_code: 'locked',
      password: 'open sesame',
    });
    await bob.link('https://example.com/bob', {
      custom_code: 'bob',
      expires_at: new Date(Date.now() + 48 * HOUR).toISOString(),
    });
    // A link of no one, as open mode makes them, made long ago.
    await source.store.createLinks([
      {
        userId: null,
        originalUrl: 'https://example.com/open',
        shortCode: 'open1',
        source: null,
        createdAt: Date.UTC(2020, 0, 1),
      },
    ]);
    for (const code of ['ann-1', 'ann-1', 'Ann_2', 'Ann_2', 'Ann_2', 'open1']) {
      expect(
        (await source.get(`/${code}?source=qr`, { headers: { referer: 'https://ref.example/p' } }))
          .status,
      ).toBe(307);
    }

    const exported = await exportText(source.store, { clicks: true });
    const target = await TestApp.init('accounts', { store: await openKind(to) });
    await target.user('bob@example.com');
    await target.user('ann@example.com');
    const imported = await importText(target.store, exported);
    expect(imported).toEqual({
      summary: summaryOf({ read: 5, imported: 5, clicks: { read: 6, imported: 6 } }),
      reports: [],
    });
    expect(await linksOf(target)).toEqual(await linksOf(source));
    for (const code of ['ann-1', 'Ann_2', 'open1']) {
      expect(await recordsOf(target, code)).toEqual(await recordsOf(source, code));
    }
    // Still protected, by the same password, which neither file nor kurz ever saw.
    expect((await target.get('/locked')).status).toBe(200);
    const unlocked = await target.request('POST', '/locked', {
      raw: 'password=open+sesame',
      headers: { 'content-type': FORM },
    });
    expect([unlocked.status, unlocked.headers.get('location')]).toEqual([
      303,
      'https://example.com/secret',
    ]);
    // Two clicks left of five, as before the move.
    for (const expected of [307, 307, 410]) {
      expect((await target.get('/Ann_2')).status).toBe(expected);
    }

    // A second import finds everything there, click records included.
    expect((await importText(target.store, exported)).summary).toEqual(
      summaryOf({ read: 5, skipped: 5, clicks: { read: 6, skipped: 6 } }),
    );

    // CSV carries the same links (not their click records) back to the first kind.
    const csv = await exportText(source.store, { format: 'csv' });
    const back = await TestApp.init('accounts', { store: await openKind(from) });
    await back.user('ann@example.com');
    await back.user('bob@example.com');
    expect((await importText(back.store, csv)).summary).toEqual(
      summaryOf({ read: 5, imported: 5 }),
    );
    const withoutClicks = (links: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(links).map(([code, link]) => [code, { ...(link as object), clicks: 0 }]),
      );
    expect(await linksOf(back)).toEqual(withoutClicks(await linksOf(source)));
  });
});
