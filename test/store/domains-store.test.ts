// Short domains and tags in the store, on both databases: a code is unique per domain,
// links are found by (domain, code), a domain is removed only with its links when asked,
// tags are replaced whole and go with their link; every instance hears of changes to a
// domain's links and to the domains themselves. The upgrade from the schema before
// domains (0005) keeps every link on the default domain.

import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQL } from 'bun';
import { embeddedMigrations } from '../../src/store/embedded-migrations.ts';
import { applyMigrations as migratePostgres } from '../../src/store/postgres/migrate.ts';
import { applyMigrations as migrateSqlite } from '../../src/store/sqlite/migrate.ts';
import type { Link, NewDomain, NewLink, Store } from '../../src/store/store.ts';
import { eventually } from '../support/binary.ts';
import { tempDir } from '../support/cleanup.ts';
import { click } from '../support/clicks.ts';
import { freshDatabase, freshSchemaUrl } from '../support/postgres.ts';
import { testStore } from '../support/stores.ts';

const domain = (host: string, extra: Partial<NewDomain> = {}): NewDomain => ({
  baseUrl: `https://${host}`,
  host,
  rootRedirect: null,
  notFoundRedirect: null,
  createdAt: 1,
  ...extra,
});

const link = (shortCode: string, extra: Partial<NewLink> = {}): NewLink => ({
  userId: null,
  originalUrl: 'https://x.example',
  shortCode,
  source: null,
  createdAt: 5,
  ...extra,
});

async function make(store: Store, code: string, extra: Partial<NewLink> = {}): Promise<Link> {
  const [made] = await store.createLinks([link(code, extra)]);
  if (made === undefined || typeof made === 'string') throw new Error(`${code} not made`);
  return made;
}

describe.each(['sqlite', 'postgres'] as const)('domains and tags on %s', (backend) => {
  test('domains are added once per host, listed oldest first, changed and counted', async () => {
    const store = await testStore(backend);
    const go = await store.createDomain(domain('go.example.com'));
    expect(typeof go?.id).toBe('number');
    expect({ ...go }).toMatchObject({ host: 'go.example.com', rootRedirect: null });
    expect(
      await store.createDomain(domain('go.example.com', { baseUrl: 'http://go.example.com' })),
    ).toBeUndefined();
    const other = await store.createDomain(domain('s.example.org:8080'));
    expect((await store.listDomains()).map((d) => d.host)).toEqual([
      'go.example.com',
      's.example.org:8080',
    ]);
    const changed = await store.updateDomain(go?.id as number, {
      notFoundRedirect: 'https://www.example/',
    });
    expect(changed).toMatchObject({ rootRedirect: null, notFoundRedirect: 'https://www.example/' });
    expect(await store.updateDomain(9999, { rootRedirect: null })).toBeUndefined();
    await make(store, 'a');
    await make(store, 'a', { domainId: go?.id });
    await make(store, 'b', { domainId: go?.id });
    expect(await store.countLinksByDomain()).toEqual(
      new Map([
        [0, 1],
        [go?.id as number, 2],
      ]),
    );
    expect((await store.countLinksByDomain()).get(other?.id as number)).toBeUndefined();
  });

  test('a code is unique per domain: in one batch, across batches, and found by its domain', async () => {
    const store = await testStore(backend);
    const go = (await store.createDomain(domain('go.example.com')))?.id as number;
    const results = await store.createLinks([
      link('promo', { originalUrl: 'https://default.example' }),
      link('promo', { domainId: go, originalUrl: 'https://go.example' }),
      link('promo', { domainId: go, originalUrl: 'https://again.example' }),
    ]);
    expect(results.map((r) => (r as Link | undefined)?.domainId)).toEqual([0, go, undefined]);
    expect(await store.createLinks([link('promo', { domainId: go })])).toEqual([undefined]);
    expect((await store.findLinkByCode('promo'))?.originalUrl).toBe('https://default.example');
    expect((await store.findLinkByCode('promo', go))?.originalUrl).toBe('https://go.example');
    expect(await store.findLinkByCode('promo', go + 1)).toBeUndefined();
    expect((await store.findLinkDetail('promo', go))?.domainId).toBe(go);
    expect((await store.findLinksByCodes(['promo'], go)).map((h) => h.originalUrl)).toEqual([
      'https://go.example',
    ]);
  });

  test('tags are kept sorted, replaced whole by a change, and removed with their link', async () => {
    const store = await testStore(backend);
    const made = await make(store, 't', { tags: ['spring', 'mail'] });
    expect((await store.findLinkDetail('t'))?.tags).toEqual(['mail', 'spring']);
    expect((await store.updateLink(made.id, { tags: ['zz', 'aa'] }))?.tags).toEqual(['aa', 'zz']);
    expect((await store.findLinkDetail('t'))?.tags).toEqual(['aa', 'zz']);
    expect((await store.updateLink(made.id, { originalUrl: 'https://y.example' }))?.tags).toEqual([
      'aa',
      'zz',
    ]);
    await store.updateLink(made.id, { tags: [] });
    expect((await store.findLinkDetail('t'))?.tags).toEqual([]);
    await store.updateLink(made.id, { tags: ['kept'] });
    await store.deleteLink(made.id);
    // A new link never inherits the tags of an id before it.
    const next = await make(store, 't');
    expect((await store.findLinkDetail('t'))?.tags).toEqual([]);
    expect(next.id).not.toBe(made.id);
  });

  test('a domain with links is removed only with them, their clicks and tags too', async () => {
    const store = await testStore(backend);
    const go = (await store.createDomain(domain('go.example.com')))?.id as number;
    const kept = await make(store, 'x');
    const gone = await make(store, 'x', { domainId: go, tags: ['t'] });
    await store.recordClicks([click(gone.id), click(kept.id)]);
    expect(await store.deleteDomain(go, false)).toBe('in-use');
    expect((await store.listDomains()).length).toBe(1);
    expect(await store.deleteDomain(go, true)).toBe('removed');
    expect(await store.listDomains()).toEqual([]);
    expect(await store.findLinkByCode('x', go)).toBeUndefined();
    expect((await store.findLinkDetail('x'))?.clicks).toBe(1);
    expect(await store.clickRows(gone.id, 0, 10)).toEqual([]);
    expect(await store.deleteDomain(go, true)).toBe('missing');
    const empty = (await store.createDomain(domain('e.example')))?.id as number;
    expect(await store.deleteDomain(empty, false)).toBe('removed');
  });
});

describe('PostgreSQL: several stores hear of domains and of links on them', () => {
  test('a link on a domain is told with its domain; a change to the domains is told to every store', async () => {
    const url = await freshSchemaUrl();
    const [a, b] = [await testStore('postgres', url), await testStore('postgres', url)];
    const told: [string, number][] = [];
    b.watchLinks(
      (code, domainId) => told.push([code, domainId]),
      () => {},
    );
    let domainChanges = 0;
    b.watchDomains(() => domainChanges++);
    const go = (await a.createDomain(domain('go.example.com')))?.id as number;
    await eventually(
      () => domainChanges > 0,
      () => 'a notice of the new domain',
    );
    const made = await make(a, 'common', { domainId: go });
    await make(a, 'common');
    await eventually(
      () => told.length === 2,
      () => `notices of both links, got ${JSON.stringify(told)}`,
    );
    expect(told.sort()).toEqual([
      ['common', 0],
      ['common', go],
    ]);
    await a.updateLink(made.id, { tags: ['x'] });
    await a.deleteLink(made.id);
    await eventually(
      () => told.length === 4,
      () => `notices of the change and removal, got ${JSON.stringify(told)}`,
    );
    expect(told.slice(2)).toEqual([
      ['common', go],
      ['common', go],
    ]);
    const before = domainChanges;
    await a.updateDomain(go, { rootRedirect: 'https://www.example/' });
    await a.deleteDomain(go, false);
    await eventually(
      () => domainChanges >= before + 2,
      () => 'notices of the change and removal of the domain',
    );
  });
});

describe('SQLite: a tool changing the domains beside the server', () => {
  test('another connection adding a domain is heard through data_version', async () => {
    const path = join(tempDir(), 'kurz.db');
    const server = await testStore('sqlite', path);
    let heard = 0;
    server.watchDomains(() => heard++);
    const tool = await testStore('sqlite', path);
    await tool.createDomain(domain('go.example.com'));
    await eventually(
      () => heard > 0,
      () => 'the server hearing of the domain',
    );
    expect((await server.listDomains()).map((d) => d.host)).toEqual(['go.example.com']);
  });
});

/** The migrations before 0006 (domains and tags). */
const BEFORE_DOMAINS = 6;
const OLD_LINKS = [
  "INSERT INTO links (original_url, short_code, created_at) VALUES ('https://a.example', 'promo', 0)",
  "INSERT INTO links (original_url, short_code, created_at) VALUES ('https://b.example', 'other', 1)",
];

describe.each(['sqlite', 'postgres'] as const)('migration 0006 (%s)', (engine) => {
  test('links from before domains belong to the default domain, and their codes may be taken on another', async () => {
    const earlier = embeddedMigrations(engine).slice(0, BEFORE_DOMAINS);
    expect(earlier.at(-1)?.tag).toBe('0005_pending_values');
    let store: Store;
    if (engine === 'sqlite') {
      const path = join(tempDir(), 'kurz.db');
      const db = new Database(path, { create: true });
      migrateSqlite(db, earlier);
      for (const statement of OLD_LINKS) db.run(statement);
      db.close();
      store = await testStore('sqlite', path);
    } else {
      const url = await freshDatabase();
      const sql = new SQL(url, { max: 1 });
      await migratePostgres(sql, undefined, earlier);
      for (const statement of OLD_LINKS) await sql.unsafe(statement);
      await sql.close();
      store = await testStore('postgres', url);
    }
    expect(await store.findLinkDetail('promo')).toMatchObject({ id: 1, domainId: 0, tags: [] });
    expect(
      (await store.listLinks({ owner: null, offset: 0 })).links.map((l) => l.domainId),
    ).toEqual([0, 0]);
    expect(await store.createLinks([link('promo')])).toEqual([undefined]);
    const go = (await store.createDomain(domain('go.example.com')))?.id as number;
    const [onGo] = await store.createLinks([link('promo', { domainId: go })]);
    expect(onGo).toMatchObject({ shortCode: 'promo', domainId: go });
  });
});
