// The Store contract, run against both databases: what the HTTP layer relies on must
// hold the same on SQLite and on PostgreSQL. Behaviour only one of them has (SQLite's
// files and PRAGMAs; PostgreSQL's several instances on one database) is tested below.

import { describe, expect, test } from 'bun:test';
import { LOG_COLUMNS, PendingTally } from '../../src/domain/clicks.ts';
import { linkEventRecord } from '../../src/domain/webhooks.ts';
import {
  type ApiKey,
  KEY_LIMIT_REACHED,
  LINKED_ELSEWHERE,
  type NewApiKey,
} from '../../src/store/accounts.ts';
import { embeddedMigrations } from '../../src/store/embedded-migrations.ts' with { type: 'macro' };
import { createdDetail } from '../../src/store/outbox.ts';
import { PostgresAnalytics } from '../../src/store/postgres/analytics.ts';
import { openPostgres, type PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteAnalytics } from '../../src/store/sqlite/analytics.ts';
import { openSqlite, type SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { SqliteTags } from '../../src/store/sqlite/tags.ts';
import {
  type Click,
  LINK_LIMIT_REACHED,
  type Link,
  type NewLink,
  type Store,
  type User,
} from '../../src/store/store.ts';
import { eventually } from '../support/binary.ts';
import { atCleanUp, tempDir } from '../support/cleanup.ts';
import { freshSchemaUrl } from '../support/postgres.ts';
import { stillStore, testStore } from '../support/stores.ts';

/** The click log as rows, oldest first, with the Click field names. */
async function clickRows(store: Store): Promise<Click[]> {
  const columns =
    'link_id AS "linkId", source, query_source AS "querySource", referrer, user_agent AS "userAgent", created_at AS "createdAt", NULL AS address, country, false AS limited';
  if (store.kind === 'sqlite') {
    return (
      (store as SqliteStore).sqlite
        .query(`SELECT ${columns} FROM clicks ORDER BY id`)
        .all() as Click[]
    ).map((row) => ({ ...row, limited: Boolean(row.limited) }));
  }
  const rows: Click[] = await (store as PostgresStore).client.unsafe(
    `SELECT ${columns.replace('created_at AS', 'created_at::float8 AS')} FROM clicks ORDER BY id`,
  );
  return rows.map((row) => ({ ...row }));
}

/** Runs a statement written with `?` placeholders on either database. */
async function run(store: Store, statement: string, params: (string | number)[]): Promise<void> {
  if (store.kind === 'sqlite') {
    (store as SqliteStore).sqlite.run(statement, params);
    return;
  }
  let n = 0;
  await (store as PostgresStore).client.unsafe(
    statement.replace(/\?/g, () => `$${++n}`),
    params,
  );
}

const link = (shortCode: string, extra: Partial<NewLink> = {}): NewLink => ({
  userId: null,
  originalUrl: 'https://x.example',
  shortCode,
  source: null,
  createdAt: 5,
  ...extra,
});

/** A webhook of `userId`'s that wants link.created, made at 1000. */
async function hookOf(store: Store, userId: number) {
  const hook = await store.createWebhook(
    {
      userId,
      url: 'https://hooks.example.com/',
      secret: 'whsec_YWJj',
      events: ['link.created'],
      createdAt: 1000,
    },
    20,
  );
  if (typeof hook === 'string') throw new Error(hook);
  return hook;
}

async function make(store: Store, code: string, extra: Partial<NewLink> = {}): Promise<Link> {
  const [made] = await store.createLinks([link(code, extra)]);
  if (made === undefined || made === LINK_LIMIT_REACHED) throw new Error(`${code} not made`);
  return made;
}

const click = (linkId: number, i = 0): Click => ({
  linkId,
  source: i % 2 ? `src${i}` : null,
  querySource: i % 5 ? `q${i}` : null,
  referrer: `https://ref.example/${i}`,
  userAgent: i % 7 ? `ua${i}` : null,
  createdAt: 1_795_000_000_000 + i,
  address: null,
  country: i % 3 ? 'FR' : null,
  limited: false,
});

const newLink = (userId: number | null, code: string): NewLink => ({
  userId,
  originalUrl: `https://example.com/${code}`,
  shortCode: code,
  source: null,
  createdAt: 1_795_000_000_000,
});

/** A user as listUsers shows a fresh account with a password. */
const account = (user: User, links: number) => ({
  id: user.id,
  email: user.email,
  createdAt: expect.any(Number),
  links,
  admin: false,
  disabledAt: null,
  password: true,
  oidc: false,
});

const newKey = (userId: number, secretHash: string): NewApiKey => ({
  userId,
  name: 'script',
  prefix: 'kurz_abcdefgh',
  secretHash,
  scope: 'read',
  createdAt: 1000,
  expiresAt: null,
});

describe.each(['sqlite', 'postgres'] as const)('Store contract on %s', (backend) => {
  test("a link.created message is the link's record, byte for byte, as linkEventRecord writes it", async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    await hookOf(store, ann.id);
    const domain = await store.createDomain({
      baseUrl: 'https://go.example',
      host: 'go.example',
      rootRedirect: null,
      notFoundRedirect: null,
      createdAt: 1000,
    });
    const links: NewLink[] = [
      {
        userId: ann.id,
        domainId: domain?.id,
        originalUrl: 'https://example.com/a?q="quoted"&b=\\back/ü/☃',
        shortCode: 'rec-1',
        source: 'news "letter"',
        createdAt: 1_795_000_000_123,
        expiresAt: 1_795_100_000_000,
        maxClicks: 5,
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
        tags: ['zeta', 'alpha', 'a-b_c'],
      },
      {
        userId: ann.id,
        originalUrl: 'https://example.com/plain',
        shortCode: 'rec-2',
        source: null,
        createdAt: 1_795_000_000_124,
      },
      // No one's link: no webhook of ann's hears of it.
      {
        userId: null,
        originalUrl: 'https://example.com/other',
        shortCode: 'rec-3',
        source: null,
        createdAt: 1_795_000_000_125,
      },
    ];
    const made = (await store.createLinks(links)) as Link[];
    const messages = await store.claimDeliveries(Date.now() + 1000, 10, 30_000);
    expect(messages.map((m) => m.payload)).toEqual(
      made
        .slice(0, 2)
        .map((link, i) => linkEventRecord(createdDetail(links[i] as NewLink, link.id))),
    );
  });

  test('users: created once per e-mail, found by e-mail with their hash, known by id', async () => {
    const store = await testStore(backend);
    const ann = await store.createUser('ann@example.com', 'hash-a');
    expect(ann).toEqual({ id: expect.any(Number), email: 'ann@example.com' });
    expect(await store.createUser('ann@example.com', 'hash-b')).toBeUndefined();
    expect(await store.findUserByEmail('ann@example.com')).toEqual({
      id: ann?.id as number,
      email: 'ann@example.com',
      passwordHash: 'hash-a',
      tokenVersion: 0,
      admin: false,
      disabledAt: null,
    });
    expect(await store.findUserByEmail('bob@example.com')).toBeUndefined();
    expect((await store.standing(ann?.id as number))?.version).toBe(0);
    expect(await store.standing(9999)).toBeUndefined();
  });

  test('a new password raises the token version; users are listed with their links', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'hash-a')) as User;
    const bob = (await store.createUser('bob@example.com', 'hash-b')) as User;
    await store.createLinks([newLink(ann.id, 'a1'), newLink(ann.id, 'a2'), newLink(null, 'o1')]);
    expect(await store.setPassword('ann@example.com', 'hash-new')).toBe(true);
    expect(await store.setPassword('nobody@example.com', 'hash-new')).toBe(false);
    expect(await store.findUserByEmail('ann@example.com')).toMatchObject({
      passwordHash: 'hash-new',
      tokenVersion: 1,
    });
    expect((await store.standing(ann.id))?.version).toBe(1);
    expect((await store.standing(bob.id))?.version).toBe(0);
    expect(await store.listUsers()).toEqual([
      { ...account(ann, 2), createdAt: expect.any(Number) },
      { ...account(bob, 0), createdAt: expect.any(Number) },
    ]);
  });

  test('OIDC accounts: made without a password, found by subject, linked by e-mail, and given the admin role', async () => {
    const store = await testStore(backend);
    const issuer = 'https://idp.example';
    const made = await store.createOidcUser('ann@example.com', { issuer, subject: 's-ann' }, false);
    expect(made).toEqual({
      id: expect.any(Number),
      email: 'ann@example.com',
      tokenVersion: 0,
      admin: false,
      disabledAt: null,
    });
    const ann = made as { id: number };
    // No password matches the empty hash; `kurz user passwd` may give one.
    expect(await store.findUserByEmail('ann@example.com')).toMatchObject({ passwordHash: '' });
    expect(await store.findUserByOidc({ issuer, subject: 's-ann' })).toEqual(made);
    expect(await store.findUserByOidc({ issuer, subject: 's-bob' })).toBeUndefined();
    expect(
      await store.findUserByOidc({ issuer: 'https://other.example', subject: 's-ann' }),
    ).toBeUndefined();
    // Taken e-mail, taken identity: no account.
    expect(
      await store.createOidcUser('ann@example.com', { issuer, subject: 's-2' }, false),
    ).toBeUndefined();
    expect(
      await store.createOidcUser('ann2@example.com', { issuer, subject: 's-ann' }, false),
    ).toBeUndefined();

    expect(await store.setUserAdmin(ann.id, true)).toBe(true);
    expect(await store.findUserByOidc({ issuer, subject: 's-ann' })).toMatchObject({ admin: true });
    expect(await store.setUserAdmin(ann.id, false)).toBe(true);
    expect(await store.setUserAdmin(9999, true)).toBe(false);

    const bob = (await store.createUser('bob@example.com', 'hash-b')) as User;
    expect(await store.linkOidc('nobody@example.com', { issuer, subject: 's-x' })).toBeUndefined();
    expect(await store.linkOidc('bob@example.com', { issuer, subject: 's-bob' })).toEqual({
      id: bob.id,
      email: 'bob@example.com',
      tokenVersion: 0,
      admin: false,
      disabledAt: null,
    });
    expect(await store.findUserByOidc({ issuer, subject: 's-bob' })).toMatchObject({ id: bob.id });
    // The password stays: both ways sign in.
    expect(await store.findUserByEmail('bob@example.com')).toMatchObject({
      passwordHash: 'hash-b',
    });
    // Another subject of the same issuer does not take the account over …
    expect(await store.linkOidc('bob@example.com', { issuer, subject: 's-mallory' })).toBe(
      LINKED_ELSEWHERE,
    );
    // … but another issuer's does (the operator changed providers).
    const moved = { issuer: 'https://new-idp.example', subject: 'n-bob' };
    expect(await store.linkOidc('bob@example.com', moved)).toMatchObject({ id: bob.id });
    expect(await store.findUserByOidc(moved)).toMatchObject({ id: bob.id });
    expect(await store.findUserByOidc({ issuer, subject: 's-bob' })).toBeUndefined();
    expect(
      await store.createOidcUser('cid@example.com', { issuer, subject: 's-cid' }, true),
    ).toMatchObject({
      admin: true,
    });
  });

  test('removing a user takes their keys, and their links with every click, or hands the links to no one', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    const bob = (await store.createUser('bob@example.com', 'h')) as User;
    const created = await store.createLinks([
      newLink(ann.id, 'a1'),
      newLink(ann.id, 'a2'),
      newLink(bob.id, 'b1'),
      newLink(bob.id, 'b2'),
      newLink(null, 'o1'),
    ]);
    const [a1, , b1] = created as Link[];
    await store.recordClicks([click(a1?.id as number, 0), click(b1?.id as number, 1)]);
    await store.rollUpClicks();
    await store.recordClicks([click(a1?.id as number, 2), click(b1?.id as number, 3)]);
    const key = await store.createApiKey(newKey(ann.id, 'a'.repeat(64)), 10);
    expect(key).toMatchObject({ name: 'script' });

    expect(await store.removeUser('ann@example.com', 'delete')).toEqual({ id: ann.id, links: 2 });
    expect(await store.removeUser('ann@example.com', 'delete')).toBeUndefined();
    expect(await store.standing(ann.id)).toBeUndefined();
    expect(await store.findApiKey('a'.repeat(64))).toBeUndefined();
    expect(await store.findLinkDetail('a1')).toBeUndefined();
    expect(await store.clickRows(a1?.id as number, 0, 10)).toEqual([]);
    expect((await store.listLinks({ owner: null, offset: 0 })).total).toBe(3);

    expect(await store.removeUser('bob@example.com', 'keep')).toEqual({ id: bob.id, links: 2 });
    const kept = await store.findLinkDetail('b1');
    expect(kept).toMatchObject({ userId: null, clicks: 2 });
    const open1 = await store.listLinks({ owner: null, offset: 0 });
    expect(open1.total).toBe(3);
    expect(await store.listUsers()).toEqual([]);
  });

  test('API keys: stored by hash, listed newest first without it, limited per user, revoked by their owner only', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    const bob = (await store.createUser('bob@example.com', 'h')) as User;
    const first = await store.createApiKey(newKey(ann.id, '1'.repeat(64)), 2);
    const second = await store.createApiKey(
      { ...newKey(ann.id, '2'.repeat(64)), scope: 'write', createdAt: 2000, expiresAt: 9000 },
      2,
    );
    expect(await store.createApiKey(newKey(ann.id, '3'.repeat(64)), 2)).toBe(KEY_LIMIT_REACHED);
    expect(second).toEqual({
      id: expect.any(Number),
      name: 'script',
      prefix: 'kurz_abcdefgh',
      scope: 'write',
      createdAt: 2000,
      expiresAt: 9000,
      lastUsedAt: null,
    });
    expect(await store.listApiKeys(ann.id)).toEqual([second as ApiKey, first as ApiKey]);
    expect(await store.listApiKeys(bob.id)).toEqual([]);
    const id = (first as ApiKey).id;
    expect(await store.findApiKey('1'.repeat(64))).toEqual({
      id,
      userId: ann.id,
      scope: 'read',
      expiresAt: null,
      lastUsedAt: null,
    });
    await store.touchApiKey(id, 5000);
    expect(await store.findApiKey('1'.repeat(64))).toMatchObject({ lastUsedAt: 5000 });
    expect(await store.deleteApiKey(bob.id, id)).toBe(false);
    expect(await store.deleteApiKey(ann.id, id)).toBe(true);
    expect(await store.deleteApiKey(ann.id, id)).toBe(false);
    expect(await store.findApiKey('1'.repeat(64))).toBeUndefined();
  });

  test('a batch of clicks is written whole, every field in its place, and counted per link', async () => {
    const store = await testStore(backend);
    const [a, b] = [await make(store, 'a'), await make(store, 'b', { createdAt: 6 })];
    const batch = Array.from({ length: 37 }, (_, i) => click((i % 3 === 0 ? b : a).id, i));
    await store.recordClicks(batch);
    expect(await clickRows(store)).toEqual(batch);
    const { links } = await store.listLinks({ owner: null, offset: 0 });
    expect(links.map((l) => [l.shortCode, l.clicks])).toEqual([
      ['b', 13],
      ['a', 24],
    ]);
  });

  test('imported clicks keep their time and fields, are counted, and are read back like any', async () => {
    const store = await testStore(backend);
    const [a, b] = [await make(store, 'a'), await make(store, 'b', { createdAt: 6 })];
    await store.recordClicks([click(a.id, 100)]);
    const old = Array.from({ length: 5 }, (_, i) => ({
      ...click(i < 3 ? a.id : b.id, i),
      createdAt: 1_600_000_000_000 + i,
    }));
    await store.importClicks(old);
    await store.importClicks([]);
    expect((await store.findLinkDetail('a'))?.clicks).toBe(4);
    expect((await store.findLinkDetail('b'))?.clicks).toBe(2);
    const rows = await store.clickRows(a.id, 0, 100);
    expect(rows.map((r) => r.createdAt)).toEqual([
      1_795_000_000_100, 1_600_000_000_000, 1_600_000_000_001, 1_600_000_000_002,
    ]);
    expect(rows[2]).toMatchObject({ source: 'src1', querySource: 'q1', country: 'FR' });
    await store.rollUpClicks();
    expect((await store.clickRows(b.id, 0, 100)).map((r) => r.createdAt)).toEqual([
      1_600_000_000_003, 1_600_000_000_004,
    ]);
    expect((await store.findLinkDetail('a'))?.clicks).toBe(4);
  });

  test('links are inserted in one batch; a code taken before or within it gives undefined', async () => {
    const store = await testStore(backend);
    await store.createLinks([link('old')]);
    const results = await store.createLinks([
      link('a'),
      link('old'),
      link('b'),
      link('a', { originalUrl: 'https://other.example' }),
    ]);
    expect(results.map((r) => (r as Link | undefined)?.shortCode)).toEqual([
      'a',
      undefined,
      'b',
      undefined,
    ]);
    expect(results[0]).toEqual({
      id: expect.any(Number),
      userId: null,
      domainId: 0,
      originalUrl: 'https://x.example',
      shortCode: 'a',
      createdAt: 5,
      clicks: 0,
    });
    expect((await store.findLinkByCode('a'))?.originalUrl).toBe('https://x.example');
    expect((await store.listLinks({ owner: null, offset: 0 })).total).toBe(3);
  });

  test('a batch of hundreds keeps its order: ids rise with it, codes taken anywhere give undefined, each link made has its tags', async () => {
    const store = await testStore(backend);
    await store.createLinks([link('old-150'), link('old-205'), link('old-232')]);
    // 234 links: stores may insert several rows a statement; taken codes fall in each part.
    const codes = Array.from({ length: 234 }, (_, i) => `c${i}`);
    codes[150] = 'old-150';
    codes[205] = 'old-205';
    codes[232] = 'old-232';
    codes[233] = 'c7';
    const results = await store.createLinks(
      codes.map((code, i) =>
        link(code, { originalUrl: `https://x.example/${i}`, tags: [`t${i}`] }),
      ),
    );
    const taken = new Set([150, 205, 232, 233]);
    expect(results.map((r, i) => (taken.has(i) ? r : (r as Link).originalUrl))).toEqual(
      codes.map((_, i) => (taken.has(i) ? undefined : `https://x.example/${i}`)),
    );
    const ids = results.filter((r): r is Link => r !== undefined).map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(230);
    expect((await store.findLinkDetail('c199'))?.tags).toEqual(['t199']);
    expect((await store.findLinkDetail('c231'))?.tags).toEqual(['t231']);
    expect((await store.findLinkDetail('c7'))?.originalUrl).toBe('https://x.example/7');
    expect((await store.listLinks({ owner: null, offset: 0, limit: 1 })).total).toBe(233);
  });

  test('a link is found by its exact code, with what a redirect needs', async () => {
    const store = await testStore(backend);
    const made = await make(store, 'Code_1', { source: 'newsletter' });
    expect(await store.findLinkByCode('Code_1')).toEqual({
      id: made.id,
      userId: null,
      originalUrl: 'https://x.example',
      source: 'newsletter',
      expiresAt: null,
      maxClicks: null,
      limitedClicks: 0,
      passwordHash: null,
      rules: null,
      variants: null,
      preview: null,
      disabledAt: null,
      disabledReason: null,
      ownerSince: null,
    });
    expect(await store.findLinkByCode('code_1')).toBeUndefined();
  });

  test('which links of a page have a password is told in one query', async () => {
    const store = await testStore(backend);
    const plain = await make(store, 'plain');
    const locked = await make(store, 'locked', { passwordHash: 'hash' });
    expect(await store.protectedLinkIds([plain.id, locked.id, 9999])).toEqual([locked.id]);
    expect(await store.protectedLinkIds([])).toEqual([]);
  });

  test("a user's link is found with the moment its owner's account was made", async () => {
    const store = await testStore(backend);
    const user = await store.createUser('owner@example.com', 'hash');
    if (user === undefined) throw new Error('no user');
    await make(store, 'owned', { userId: user.id });
    const since = (await store.findLinkByCode('owned'))?.ownerSince;
    expect(typeof since).toBe('number');
    expect(Math.abs((since as number) - Date.now())).toBeLessThan(60_000);
  });

  test("a link's rules, variants and preview are kept as given, found with it, changed and cleared", async () => {
    const store = await testStore(backend);
    const rules = JSON.stringify([
      { url: 'https://apps.apple.com/x', conditions: [{ type: 'os', value: 'ios' }] },
    ]);
    const variants = JSON.stringify([
      { url: 'https://example.com/a', weight: 40 },
      { url: 'https://example.com/b', weight: 60 },
    ]);
    const preview = JSON.stringify({ title: 'A "title"', description: null, image: null });
    const made = await make(store, 'routed', { rules, variants, preview });
    const wanted = { rules, variants, preview };
    expect(await store.findLinkByCode('routed')).toMatchObject(wanted);
    expect(await store.findLinkDetail('routed')).toMatchObject(wanted);
    const changed = await store.updateLink(made.id, { rules: null, preview: '{"auto":true}' });
    expect(changed).toMatchObject({ rules: null, variants, preview: '{"auto":true}' });
    expect(await store.findLinkDetail('routed')).toMatchObject({
      rules: null,
      variants,
      preview: '{"auto":true}',
    });
    const found = await store.searchLinkDetails({
      owner: null,
      sort: 'created',
      descending: true,
      limit: 5,
    });
    expect(found.links[0]).toMatchObject({ rules: null, variants, preview: '{"auto":true}' });
  });

  test('lists are newest first, paged, per owner, with totals that agree', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h'))?.id as number;
    const bob = (await store.createUser('bob@example.com', 'h'))?.id as number;
    for (let i = 0; i < 7; i++) {
      await make(store, `a${i}`, { userId: ann, createdAt: 100 + i });
      await make(store, `b${i}`, { userId: bob, createdAt: 100 + i });
    }
    await make(store, 'open', { createdAt: 50 });
    const page = await store.listLinks({ owner: ann, limit: 3, offset: 2 });
    expect(page.total).toBe(7);
    expect(page.links.map((l) => l.shortCode)).toEqual(['a4', 'a3', 'a2']);
    expect(page.links[0]).toEqual({
      id: expect.any(Number),
      userId: ann,
      domainId: 0,
      originalUrl: 'https://x.example',
      shortCode: 'a4',
      createdAt: 104,
      clicks: 0,
    });
    const all = await store.listLinks({ owner: null, offset: 0 });
    expect(all.total).toBe(15);
    expect(all.links.at(-1)?.shortCode).toBe('open');
    expect((await store.listLinks({ owner: ann, limit: 5, offset: 7 })).links).toEqual([]);
    // The same creation time: the higher id (made later) comes first.
    const tie = await store.listLinks({ owner: null, limit: 2, offset: 0 });
    expect(tie.links.map((l) => l.shortCode)).toEqual(['b6', 'a6']);
  });

  test('chunks after a cursor walk the same order as pages, with counts', async () => {
    const store = await testStore(backend);
    const made: Link[] = [];
    for (let i = 0; i < 10; i++)
      made.push(await make(store, `c${i}`, { createdAt: 10 + (i >> 1) }));
    await store.recordClicks([click((made[3] as Link).id), click((made[3] as Link).id)]);
    const whole = (await store.listLinks({ owner: null, offset: 0 })).links;
    const walked: Link[] = [];
    let after = { createdAt: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };
    for (;;) {
      const chunk = await store.listLinksAfter({ owner: null, after, limit: 3 });
      if (chunk.length === 0) break;
      walked.push(...chunk);
      const last = chunk.at(-1) as Link;
      after = { createdAt: last.createdAt, id: last.id };
    }
    expect(walked).toEqual(whole);
    expect(walked.find((l) => l.shortCode === 'c3')?.clicks).toBe(2);
  });

  test('detail chunks walk the same order with every setting, per owner or all', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h'))?.id as number;
    const kept = await make(store, 'kept', {
      userId: ann,
      createdAt: 30,
      source: 'mail',
      expiresAt: 9_000,
      maxClicks: 10,
      limitedClicks: 4,
      passwordHash: '$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA',
      tags: ['sale', 'mail'],
      variants:
        '[{"url":"https://example.com/a","weight":50},{"url":"https://example.com/b","weight":50}]',
    });
    await make(store, 'plain', { createdAt: 20 });
    await make(store, 'older', { userId: ann, createdAt: 10 });
    await store.recordClicks([click(kept.id), click(kept.id, 1)]);
    const top = { createdAt: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };
    const first = await store.listLinkDetailsAfter({ owner: null, after: top, limit: 2 });
    expect(first).toEqual([
      {
        id: kept.id,
        userId: ann,
        domainId: 0,
        originalUrl: 'https://x.example',
        shortCode: 'kept',
        createdAt: 30,
        clicks: 2,
        source: 'mail',
        expiresAt: 9_000,
        maxClicks: 10,
        limitedClicks: 4,
        passwordHash: '$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA',
        rules: null,
        variants:
          '[{"url":"https://example.com/a","weight":50},{"url":"https://example.com/b","weight":50}]',
        preview: null,
        disabledAt: null,
        disabledReason: null,
        tags: ['mail', 'sale'],
      },
      expect.objectContaining({ shortCode: 'plain', userId: null, limitedClicks: 0, tags: [] }),
    ]);
    const last = first.at(-1) as Link;
    const rest = await store.listLinkDetailsAfter({
      owner: null,
      after: { createdAt: last.createdAt, id: last.id },
      limit: 2,
    });
    expect(rest.map((l) => l.shortCode)).toEqual(['older']);
    const anns = await store.listLinkDetailsAfter({ owner: ann, after: top, limit: 10 });
    expect(anns.map((l) => l.shortCode)).toEqual(['kept', 'older']);
  });

  test('many codes are looked up at once: who holds each, and nothing for free ones', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h'))?.id as number;
    await make(store, 'taken', { userId: ann, createdAt: 7, originalUrl: 'https://a.example/' });
    await make(store, 'Taken', { createdAt: 8 });
    const codes = ['taken', 'free', 'Taken', ...Array.from({ length: 3000 }, (_, i) => `n${i}`)];
    const held = await store.findLinksByCodes(codes);
    expect(held.sort((a, b) => a.createdAt - b.createdAt)).toEqual([
      {
        domainId: 0,
        shortCode: 'taken',
        userId: ann,
        originalUrl: 'https://a.example/',
        createdAt: 7,
      },
      {
        domainId: 0,
        shortCode: 'Taken',
        userId: null,
        originalUrl: 'https://x.example',
        createdAt: 8,
      },
    ]);
    expect(await store.findLinksByCodes([])).toEqual([]);
  });

  test('links are found by owner and creation times, no one’s apart from an account’s', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h'))?.id as number;
    await make(store, 'a1', { userId: ann, createdAt: 1_700_000_000_001 });
    await make(store, 'a2', { userId: ann, createdAt: 1_700_000_000_002 });
    await make(store, 'o1', { createdAt: 1_700_000_000_001 });
    const times = [1_700_000_000_001, 1_700_000_000_003];
    expect(await store.findLinksCreatedAt(ann, times)).toEqual([
      {
        domainId: 0,
        shortCode: 'a1',
        userId: ann,
        originalUrl: 'https://x.example',
        createdAt: 1_700_000_000_001,
      },
    ]);
    expect((await store.findLinksCreatedAt(null, times)).map((l) => l.shortCode)).toEqual(['o1']);
    expect(await store.findLinksCreatedAt(ann, [])).toEqual([]);
  });

  test('the link quota holds for concurrent batches', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h'))?.id as number;
    const results = (
      await Promise.all(
        Array.from({ length: 6 }, (_, b) =>
          store.createLinks(
            Array.from({ length: 4 }, (_, i) =>
              link(`q${b}_${i}`, { userId: ann, ownerLimit: 10 }),
            ),
          ),
        ),
      )
    ).flat();
    expect(results.filter((r) => r !== LINK_LIMIT_REACHED && r !== undefined)).toHaveLength(10);
    expect(results.filter((r) => r === LINK_LIMIT_REACHED)).toHaveLength(14);
    expect((await store.listLinks({ owner: ann, offset: 0 })).total).toBe(10);
  });

  test('link totals follow inserts and deletes, those cascaded from a user too', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h'))?.id as number;
    const bob = (await store.createUser('bob@example.com', 'h'))?.id as number;
    await store.createLinks([
      ...Array.from({ length: 30 }, (_, i) => link(`a${i}`, { userId: ann })),
      ...Array.from({ length: 5 }, (_, i) => link(`b${i}`, { userId: bob })),
      link('open'),
    ]);
    const total = async (owner: number | null) =>
      (await store.listLinks({ owner, limit: 1, offset: 0 })).total;
    expect([await total(ann), await total(bob), await total(null)]).toEqual([30, 5, 36]);
    await run(store, 'DELETE FROM links WHERE short_code = ?', ['a0']);
    await run(store, 'DELETE FROM users WHERE id = ?', [bob]);
    expect([await total(ann), await total(bob), await total(null)]).toEqual([29, 0, 30]);
  });

  test('a setting is made once and then kept (first writer wins); replacing it replaces it', async () => {
    const store = await testStore(backend);
    expect(await store.setting('k', () => 'first')).toBe('first');
    expect(await store.setting('k', () => 'second')).toBe('first');
    await store.replaceSetting('k', 'third');
    expect(await store.setting('k', () => 'fourth')).toBe('third');
  });

  test('ping resolves while the database works', async () => {
    const store = await testStore(backend);
    await store.ping();
    await store.ping();
  });

  test('after close, every operation is unavailable', async () => {
    const store = await testStore(backend);
    await store.close();
    await expect(store.ping()).rejects.toThrow('Database unavailable');
    await expect(store.findLinkByCode('x')).rejects.toThrow('Database unavailable');
    await expect(store.recordClicks([click(1)])).rejects.toThrow('Database unavailable');
  });
});

describe.each(['sqlite', 'postgres'] as const)('Rollup of a backlog on %s', (backend) => {
  test('clicks another store wrote to the log (as `kurz import --clicks` does) are rolled up by a running store, no click of its own needed', async () => {
    const path = `${tempDir()}/kurz.db`;
    const url = backend === 'postgres' ? await freshSchemaUrl() : '';
    const opened = async (intervalMs: number): Promise<Store> => {
      const store =
        backend === 'sqlite'
          ? openSqlite({ path, durability: 'normal', rollup: { intervalMs } })
          : await openPostgres({ url, pool: 2, analyticsIntervalMs: intervalMs });
      atCleanUp(() => store.close());
      return store;
    };
    const server = await opened(20);
    const [a] = await server.createLinks([link('a')]);
    const id = (a as Link).id;
    const tool = await opened(0);
    await tool.importClicks([1, 2, 3, 4, 5].map((i) => click(id, i)));
    await tool.close();
    let logged = -1;
    await eventually(
      async () => {
        logged = (await clickRows(server)).length;
        return logged === 0;
      },
      () => `the log still holds ${logged} clicks`,
    );
    const rows = await server.clickRows(id, 0, 100);
    expect(rows.map((r) => r.referrer)).toEqual(
      [1, 2, 3, 4, 5].map((i) => `https://ref.example/${i}`),
    );
    expect((await server.findLinkDetail('a'))?.clicks).toBe(5);
  });
});

/** Moves the oldest `limit` clicks of the log, as one step of the rollup does. */
async function moveSome(store: Store, limit: number): Promise<void> {
  if (store.kind === 'sqlite') {
    const { sqlite, rollup } = store as SqliteStore;
    rollup.flush();
    const tags = new SqliteTags(sqlite);
    const analytics = new SqliteAnalytics(sqlite, tags);
    try {
      analytics.step(limit, rollup.counted);
    } finally {
      analytics.finalize();
      tags.finalize();
    }
    return;
  }
  await new PostgresAnalytics().step((store as PostgresStore).client, limit);
}

type Tallied = [linkId: number, day: number, column: string, value: string | null, clicks: number];

/**
 * pending_values (shards summed) and the same counts made from the log, read from one
 * snapshot, each sorted: the two must always be equal. Rows at zero or below are listed
 * apart: there must be none.
 */
async function talliesAndLog(store: Store) {
  const read = async (query: (sql: string) => Promise<Record<string, unknown>[]>) => {
    const kept = await query(
      `SELECT link_id AS "linkId", day, log_column AS code,
              CASE WHEN has_value = ${store.kind === 'sqlite' ? 1 : 'true'} THEN value END AS value,
              CAST(sum(clicks) AS INTEGER) AS clicks, CAST(min(clicks) AS INTEGER) AS least
       FROM pending_values GROUP BY link_id, day, log_column, has_value, value`,
    );
    const log = await query(
      `SELECT link_id AS "linkId", CAST(created_at AS ${store.kind === 'sqlite' ? 'INTEGER' : 'float8'}) AS "createdAt",
              source, query_source AS "querySource", referrer, user_agent AS "userAgent", country
       FROM clicks`,
    );
    return { kept, log };
  };
  const { kept, log } =
    store.kind === 'sqlite'
      ? await read(async (sql) => (store as SqliteStore).sqlite.query(sql).all() as never)
      : await (store as PostgresStore).client.begin('isolation level repeatable read', (tx) =>
          read((sql) => tx.unsafe(sql)),
        );
  const folded = new PendingTally();
  for (const row of log) folded.add(row as unknown as Click);
  const order = (rows: Tallied[]) =>
    rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return {
    tallies: order(
      kept.map((r) => [
        Number(r.linkId),
        Number(r.day),
        LOG_COLUMNS[Number(r.code)] as string,
        r.value as string | null,
        Number(r.clicks),
      ]),
    ),
    log: order(folded.rows().map((r) => [r.linkId, r.day, r.column, r.value, r.clicks])),
    empty: kept.filter((r) => Number(r.least) <= 0).length,
    logged: log.length,
  };
}

/** Clicks whose values repeat, with nulls and empty strings apart, over two days. */
const varied = (linkId: number, n: number, from = 0): Click[] =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      ...click(linkId, i),
      source: [null, '', 'news'][i % 3] ?? null,
      querySource: i % 4 ? null : 'qr',
      referrer: [null, '', 'https://a.example/x', 'https://b.example/'][i % 4] ?? null,
      userAgent: [null, '', 'curl/8.5.0', 'Mozilla/5.0 (compatible; Googlebot/2.1)'][i % 4] ?? null,
      country: [null, 'FR', 'DE'][i % 3] ?? null,
      createdAt: 1_795_000_000_000 + (i % 2) * 86_400_000 + i,
    };
  });

describe.each(['sqlite', 'postgres'] as const)(
  'Counts of the log (pending_values) on %s',
  (backend) => {
    test('equal a fold of the log after clicks are written, the same keys again, and clicks imported', async () => {
      const store = await stillStore(backend);
      const [a, b] = [await make(store, 'a'), await make(store, 'b')];
      await store.recordClicks([...varied(a.id, 40), ...varied(b.id, 7)]);
      await store.recordClicks(varied(a.id, 40, 3));
      let now = await talliesAndLog(store);
      expect(now.logged).toBe(87);
      expect(now.tallies).toEqual(now.log);
      await store.importClicks(
        varied(b.id, 25, 100).map((c) => ({ ...c, createdAt: c.createdAt - 1e10 })),
      );
      now = await talliesAndLog(store);
      expect([now.logged, now.empty]).toEqual([112, 0]);
      expect(now.tallies).toEqual(now.log);
    });

    test('equal a fold of the log after a partial rollup, and are empty once it has all moved', async () => {
      const store = await stillStore(backend);
      const [a, b] = [await make(store, 'a'), await make(store, 'b')];
      await store.recordClicks([...varied(a.id, 30), ...varied(b.id, 30)]);
      await store.recordClicks(varied(a.id, 30, 30));
      await moveSome(store, 45);
      let now = await talliesAndLog(store);
      expect([now.logged, now.empty]).toEqual([45, 0]);
      expect(now.tallies).toEqual(now.log);
      await store.rollUpClicks();
      now = await talliesAndLog(store);
      expect([now.logged, now.tallies]).toEqual([0, []]);
    });

    test('count only the clicks a limited link keeps, not those it refuses', async () => {
      const store = await stillStore(backend);
      const [a, b] = [await make(store, 'a', { maxClicks: 3 }), await make(store, 'b')];
      const refused = await store.recordClicks([
        ...varied(a.id, 5).map((c) => ({ ...c, limited: true })),
        ...varied(b.id, 4),
      ]);
      expect(refused).toBeDefined();
      const now = await talliesAndLog(store);
      expect(now.logged).toBe(7);
      expect(now.tallies).toEqual(now.log);
      const ofA = now.tallies.filter(
        ([linkId, , column]) => linkId === a.id && column === 'userAgent',
      );
      expect(ofA.reduce((sum, row) => sum + row[4], 0)).toBe(3);
    });

    test('go with a deleted link, and its clicks committed after it leave none behind', async () => {
      const store = await stillStore(backend);
      const [a, b] = [await make(store, 'a'), await make(store, 'b')];
      await store.recordClicks([...varied(a.id, 20), ...varied(b.id, 20)]);
      expect(await store.deleteLink(a.id)).toBe(true);
      let now = await talliesAndLog(store);
      expect(now.tallies.some(([linkId]) => linkId === a.id)).toBe(false);
      expect(now.tallies).toEqual(now.log);
      // A batch resolved before the delete commits after it: the rollup drops its clicks.
      await store.recordClicks(varied(a.id, 6));
      now = await talliesAndLog(store);
      expect(now.tallies).toEqual(now.log);
      await store.rollUpClicks();
      now = await talliesAndLog(store);
      expect([now.logged, now.tallies, now.empty]).toEqual([0, [], 0]);
    });

    test('stats of a backlog fold them as the rollup folds the clicks', async () => {
      const store = await stillStore(backend);
      const a = await make(store, 'a');
      const clicks = [...varied(a.id, 60), ...varied(a.id, 60, 7)];
      await store.recordClicks(clicks);
      const day = Math.floor(1_795_000_000_000 / 86_400_000);
      const pending = (await store.linkTraffic(a.id, day, day + 1)).pending;
      await store.rollUpClicks();
      const traffic = await store.linkTraffic(a.id, day, day + 1);
      expect(traffic.pending).toEqual([]);
      const sorted = (rows: typeof pending) =>
        [...rows].sort(
          (x, y) => x.day - y.day || x.dimension - y.dimension || (x.value < y.value ? -1 : 1),
        );
      expect(sorted(pending)).toEqual(sorted(traffic.days));
    });
  },
);

describe('SQLite: a tool importing clicks beside the server', () => {
  test('imported ids follow every id used, and the server carries on past them, counts exact', async () => {
    const path = `${tempDir()}/kurz.db`;
    const server = openSqlite({ path, durability: 'normal', rollup: { intervalMs: 0 } });
    atCleanUp(() => server.close());
    const [a] = await server.createLinks([link('a')]);
    const id = (a as Link).id;
    await server.recordClicks([click(id, 1), click(id, 2)]);
    // The tool opened now; the server goes on clicking, and its clicks move to records.
    const tool = openSqlite({ path, durability: 'normal', rollup: { intervalMs: 0 } });
    await server.recordClicks([click(id, 3)]);
    await server.rollUpClicks();
    await tool.importClicks([click(id, 4), click(id, 5)]);
    await server.recordClicks([click(id, 6), click(id, 7)]);
    await tool.close();
    await server.rollUpClicks();
    const rows = await server.clickRows(id, 0, 100);
    expect(rows.map((r) => r.referrer)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((i) => `https://ref.example/${i}`),
    );
    expect(new Set(rows.map((r) => r.id)).size).toBe(7);
    expect((await server.findLinkDetail('a'))?.clicks).toBe(7);
  });
});

describe('SQLite: the one sender of its outbox', () => {
  test('a sender that starts takes back what a killed one had leased, and what waits for a retry', async () => {
    const store = openSqlite({ path: ':memory:', durability: 'normal' });
    atCleanUp(() => store.close());
    const user = (await store.createUser('ann@example.com', 'h')) as User;
    const hook = await hookOf(store, user.id);
    await store.addDelivery(hook.id, 'ping', '{}', 1000);
    await store.addDelivery(hook.id, 'ping', '{}', 1000);
    const [leased, retried] = await store.claimDeliveries(2000, 10, 30_000);
    await store.finishDelivery({
      id: (retried as { id: number }).id,
      at: 2100,
      status: 503,
      error: 'HTTP 503',
      delivered: false,
      nextAttemptAt: 2100 + 3_600_000,
    });
    // The process holding the lease died: nothing is due for a while.
    expect(await store.claimDeliveries(3000, 10, 30_000)).toEqual([]);
    expect(await store.releaseDeliveries(3000)).toBe(2);
    const again = await store.claimDeliveries(3000, 10, 30_000);
    expect(again.map((d) => d.id).sort()).toEqual(
      [(leased as { id: number }).id, (retried as { id: number }).id].sort(),
    );
  });
});

describe('PostgreSQL: several stores on one database', () => {
  test('a host blocked on one store is told to the others', async () => {
    const url = await freshSchemaUrl();
    const [one, two] = [await testStore('postgres', url), await testStore('postgres', url)];
    let told = 0;
    two.watchBlockedHosts(() => told++);
    await one.addBlockedHost({ host: 'evil.example', reason: null, createdAt: 1, addedBy: null });
    await eventually(() => told === 1, 'the other store told');
    expect(await two.listBlockedHosts()).toEqual([
      { host: 'evil.example', reason: null, createdAt: 1, addedBy: null },
    ]);
  });

  test('stores opened at once migrate once and share the first setting stored', async () => {
    const url = await freshSchemaUrl();
    const stores = await Promise.all(
      Array.from({ length: 3 }, () => testStore('postgres', url) as Promise<PostgresStore>),
    );
    const values = await Promise.all(stores.map((s, i) => s.setting('jwt_secret', () => `k${i}`)));
    expect(new Set(values).size).toBe(1);
    const schema = new URL(url).searchParams.get('schema');
    const applied = await (stores[0] as PostgresStore).client.unsafe(
      `SELECT count(*)::int AS n FROM "${schema}".__drizzle_migrations`,
    );
    expect(applied[0].n).toBe(embeddedMigrations('postgres').length);
  });

  test('counts stay exact when several stores write clicks of the same links at once', async () => {
    const url = await freshSchemaUrl();
    const [a, b] = [await testStore('postgres', url), await testStore('postgres', url)];
    const hot = await make(a as Store, 'hot');
    const cold = await make(a as Store, 'cold');
    const batches = Array.from({ length: 40 }, (_, i) =>
      Array.from({ length: 25 }, (_, j) => click(j % 5 === 0 ? cold.id : hot.id, i + j)),
    );
    await Promise.all(batches.map((batch, i) => ((i % 2 ? a : b) as Store).recordClicks(batch)));
    const counts = (await (b as Store).listLinks({ owner: null, offset: 0 })).links.map((l) => [
      l.shortCode,
      l.clicks,
    ]);
    // Made in the same millisecond: the later one (cold) lists first.
    expect(counts).toEqual([
      ['cold', 200],
      ['hot', 800],
    ]);
    expect(await clickRows(a as Store)).toHaveLength(1000);
  });

  test('a code taken on one store is told to the others; the race for a code has one winner', async () => {
    const url = await freshSchemaUrl();
    const [a, b] = [await testStore('postgres', url), await testStore('postgres', url)];
    const told: string[] = [];
    (b as Store).watchLinks(
      (code) => told.push(code),
      () => {},
    );
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ((i % 2 ? a : b) as Store).createLinks([
          link('contested', { originalUrl: `https://${i}.example` }),
        ]),
      ),
    );
    const winners = results.flat().filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    await eventually(
      () => told.length > 0,
      () => 'a notice of the new code',
    );
    expect(told).toEqual(['contested']);
    // A code that was not taken is not told.
    await (a as Store).createLinks([link('contested')]);
    await Bun.sleep(100);
    expect(told).toEqual(['contested']);
  });

  test('settle() resolves only once every change committed before it was told', async () => {
    const url = await freshSchemaUrl();
    const [a, b] = [await testStore('postgres', url), await testStore('postgres', url)];
    const told = new Set<string>();
    (b as Store).watchLinks(
      (code) => told.add(code),
      () => {},
    );
    for (let i = 0; i < 30; i++) {
      await (a as Store).createLinks([link(`s${i}`)]);
      await (b as Store).settle?.();
      expect(told.has(`s${i}`)).toBe(true);
    }
    // Calls made together share one marker, and each resolves.
    await Promise.all(Array.from({ length: 50 }, () => (b as Store).settle?.()));
  });
});

describe.each(['sqlite', 'postgres'] as const)('Moderation in the store on %s', (backend) => {
  test('an admin is told by standing; a disabled user has no standing, token version or key', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    await store.createApiKey(newKey(ann.id, 'd'.repeat(64)), 10);
    expect(await store.standing(ann.id)).toEqual({ version: 0, admin: false });
    expect(await store.setUserAdmin(ann.id, true)).toBe(true);
    expect(await store.setUserAdmin(9999, true)).toBe(false);
    expect(await store.standing(ann.id)).toEqual({ version: 0, admin: true });
    expect(await store.findUserByEmail(ann.email)).toMatchObject({ admin: true, disabledAt: null });

    expect(await store.setUserDisabled(ann.id, 1234)).toBe(true);
    expect(await store.setUserDisabled(9999, 1234)).toBe(false);
    expect(await store.standing(ann.id)).toBeUndefined();
    expect(await store.findApiKey('d'.repeat(64))).toBeUndefined();
    expect(await store.findUserByEmail(ann.email)).toMatchObject({ disabledAt: 1234 });
    expect(await store.findUser(ann.id)).toEqual({
      ...account(ann, 0),
      admin: true,
      disabledAt: 1234,
    });

    expect(await store.setUserDisabled(ann.id, null)).toBe(true);
    expect(await store.standing(ann.id)).toEqual({ version: 0, admin: true });
    expect(await store.findApiKey('d'.repeat(64))).toMatchObject({ userId: ann.id });
    expect(await store.setUserAdmin(ann.id, false)).toBe(true);
    expect(await store.listUsers()).toEqual([account(ann, 0)]);
  });

  test('users are searched by e-mail, oldest first, in pages with their total', async () => {
    const store = await testStore(backend);
    const users: User[] = [];
    for (const name of ['ann', 'bob', 'anna', 'cid']) {
      users.push((await store.createUser(`${name}@example.com`, 'h')) as User);
    }
    const [ann, , anna] = users as [User, User, User, User];
    await store.createLinks([newLink(ann.id, 'a1')]);
    expect(await store.searchUsers({ text: 'AN', limit: 10, offset: 0 })).toEqual({
      users: [account(ann, 1), account(anna, 0)],
      total: 2,
    });
    expect(await store.searchUsers({ limit: 2, offset: 1 })).toMatchObject({
      users: [{ email: 'bob@example.com' }, { email: 'anna@example.com' }],
      total: 4,
    });
    expect(await store.searchUsers({ text: '%', limit: 10, offset: 0 })).toEqual({
      users: [],
      total: 0,
    });
    expect(await store.findUser(9999)).toBeUndefined();
  });

  test('a link disabled and enabled: read back everywhere, told to its webhooks and to every instance', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    const hook = await store.createWebhook(
      {
        userId: ann.id,
        url: 'https://hooks.example.com/',
        secret: 'whsec_YWJj',
        events: ['link.updated'],
        createdAt: 1000,
      },
      20,
    );
    if (typeof hook === 'string') throw new Error(hook);
    const [made] = (await store.createLinks([newLink(ann.id, 'bad')])) as Link[];
    const id = (made as Link).id;
    // The notice of its creation is heard before the watch begins.
    await store.settle?.();
    const heard: string[] = [];
    store.watchLinks(
      (code) => heard.push(code),
      () => {},
    );

    const disabled = await store.setLinkDisabled(id, { at: 5000, reason: 'phishing' });
    expect(disabled).toMatchObject({
      id,
      shortCode: 'bad',
      disabledAt: 5000,
      disabledReason: 'phishing',
    });
    expect(await store.findLinkByCode('bad')).toMatchObject({
      disabledAt: 5000,
      disabledReason: 'phishing',
    });
    expect(await store.findLinkDetail('bad')).toEqual(disabled);
    const full = await store.searchLinkDetails({
      owner: ann.id,
      sort: 'created',
      descending: true,
      limit: 10,
    });
    expect(full.links[0]).toMatchObject({ disabledAt: 5000, disabledReason: 'phishing' });
    const [message] = await store.listDeliveries(hook.id, 10);
    expect(message).toMatchObject({ type: 'link.updated' });

    expect(await store.setLinkDisabled(id, null)).toMatchObject({
      disabledAt: null,
      disabledReason: null,
    });
    expect(await store.findLinkByCode('bad')).toMatchObject({
      disabledAt: null,
      disabledReason: null,
    });
    expect(await store.listDeliveries(hook.id, 10)).toHaveLength(2);
    expect(await store.setLinkDisabled(9999, { at: 1, reason: null })).toBeUndefined();
    // PostgreSQL announces both changes to every instance; SQLite has one server process.
    await store.settle?.();
    expect(heard.filter((code) => code === 'bad')).toHaveLength(backend === 'postgres' ? 2 : 0);
  });

  test("every owner's links are searched by text, owner's e-mail, domain and state, newest first", async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    const bob = (await store.createUser('bob@example.com', 'h')) as User;
    const made = (await store.createLinks([
      { ...newLink(ann.id, 'a1'), createdAt: 1 },
      { ...newLink(ann.id, 'a2'), createdAt: 2, originalUrl: 'https://evil.example/x' },
      { ...newLink(bob.id, 'b1'), createdAt: 3 },
      { ...newLink(null, 'o1'), createdAt: 4, domainId: 7 },
    ])) as Link[];
    await store.recordClicks([click((made[0] as Link).id, 0), click((made[0] as Link).id, 1)]);
    await store.setLinkDisabled((made[1] as Link).id, { at: 9, reason: null });
    const codes = async (search: Partial<Parameters<Store['searchAllLinks']>[0]>) => {
      const page = await store.searchAllLinks({ limit: 10, offset: 0, ...search });
      return { codes: page.links.map((l) => l.shortCode), total: page.total };
    };
    expect(await codes({})).toEqual({ codes: ['o1', 'b1', 'a2', 'a1'], total: 4 });
    expect(await codes({ text: 'EVIL' })).toEqual({ codes: ['a2'], total: 1 });
    expect(await codes({ text: 'b1' })).toEqual({ codes: ['b1'], total: 1 });
    expect(await codes({ ownerEmail: 'ANN@' })).toEqual({ codes: ['a2', 'a1'], total: 2 });
    expect(await codes({ domainId: 7 })).toEqual({ codes: ['o1'], total: 1 });
    expect(await codes({ disabled: true })).toEqual({ codes: ['a2'], total: 1 });
    expect(await codes({ disabled: false, ownerEmail: 'ann' })).toEqual({
      codes: ['a1'],
      total: 1,
    });
    expect(await codes({ limit: 2, offset: 1 })).toEqual({ codes: ['b1', 'a2'], total: 4 });
    const all = await store.searchAllLinks({ limit: 10, offset: 0 });
    expect(all.links[3]).toEqual({
      id: (made[0] as Link).id,
      userId: ann.id,
      domainId: 0,
      originalUrl: 'https://example.com/a1',
      shortCode: 'a1',
      createdAt: 1,
      clicks: 2,
      ownerEmail: 'ann@example.com',
      disabledAt: null,
      disabledReason: null,
    });
    expect(all.links[0]).toMatchObject({ ownerEmail: null, userId: null });
    expect(all.links[2]).toMatchObject({ disabledAt: 9, disabledReason: null });
  });

  test("the blocklist's hosts: added once, listed in order, removed, each change told", async () => {
    const store = await testStore(backend);
    let told = 0;
    store.watchBlockedHosts(() => told++);
    const entry = { host: 'evil.example', reason: 'phishing', createdAt: 10, addedBy: null };
    expect(await store.addBlockedHost(entry)).toBe(true);
    expect(await store.addBlockedHost({ ...entry, reason: 'again' })).toBe(false);
    expect(
      await store.addBlockedHost({ host: 'bad.example', reason: null, createdAt: 11, addedBy: 3 }),
    ).toBe(true);
    expect(await store.listBlockedHosts()).toEqual([
      { host: 'bad.example', reason: null, createdAt: 11, addedBy: 3 },
      entry,
    ]);
    expect(await store.removeBlockedHost('evil.example')).toBe(true);
    expect(await store.removeBlockedHost('evil.example')).toBe(false);
    expect((await store.listBlockedHosts()).map((h) => h.host)).toEqual(['bad.example']);
    // Three changes (a host already there, or already gone, changes nothing).
    await eventually(
      () => told === 3,
      () => `told ${told} times`,
    );
  });

  test("the overview's figures: links, today's clicks rolled up or not, users, reports, disabled links, blocked hosts", async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    const made = (await store.createLinks([newLink(ann.id, 'a1'), newLink(null, 'o1')])) as Link[];
    const since = 1_795_000_000_000 - (1_795_000_000_000 % 86_400_000);
    const at = (i: number) => ({ ...click((made[0] as Link).id, i), createdAt: since + 1000 + i });
    await store.recordClicks([at(0), at(1), { ...at(2), createdAt: since - 1 }]);
    await store.rollUpClicks();
    await store.recordClicks([at(3)]);
    await store.setLinkDisabled((made[1] as Link).id, { at: 1, reason: null });
    await store.addBlockedHost({ host: 'x.example', reason: null, createdAt: 1, addedBy: null });
    await run(store, 'INSERT INTO reports (short_code, reason, created_at) VALUES (?, ?, ?)', [
      'o1',
      'spam',
      1,
    ]);
    await run(
      store,
      'INSERT INTO reports (short_code, reason, created_at, resolved_at) VALUES (?, ?, ?, ?)',
      ['o1', 'spam', 1, 2],
    );
    expect(await store.figures(since)).toEqual({
      links: 2,
      clicksToday: 3,
      users: 1,
      reportsWaiting: 1,
      disabledLinks: 1,
      blockedHosts: 1,
    });
  });
});

describe.each(['sqlite', 'postgres'] as const)('Reports in the store on %s', (backend) => {
  const report = (linkId: number | null, code: string, createdAt: number) => ({
    linkId,
    domainId: 0,
    shortCode: code,
    reason: 'phishing' as const,
    details: 'asks for a bank password',
    createdAt,
  });

  test('a report is kept with its link as it is now, and listed newest first by status', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    const link = await make(store, 'bad', {
      userId: ann.id,
      originalUrl: 'https://evil.example/x',
    });
    const first = await store.createReport(report(link.id, 'bad', 1000));
    expect(first).toEqual({
      id: first.id,
      linkId: link.id,
      domainId: 0,
      shortCode: 'bad',
      reason: 'phishing',
      details: 'asks for a bank password',
      createdAt: 1000,
      resolvedAt: null,
      resolution: null,
      resolvedBy: null,
      link: {
        originalUrl: 'https://evil.example/x',
        disabled: false,
        owner: { id: ann.id, email: 'ann@example.com' },
        clicks: 0,
      },
    });
    const second = await store.createReport({ ...report(null, 'gone', 2000), details: null });
    expect(second.link).toBeNull();
    expect(await store.listReports({ status: 'waiting', offset: 0 })).toEqual({
      reports: [second, first],
      total: 2,
    });
    expect(
      (await store.listReports({ status: 'all', offset: 1, limit: 1 })).reports.map((r) => r.id),
    ).toEqual([first.id]);

    const resolved = await store.resolveReport(first.id, {
      at: 3000,
      action: 'dismiss',
      by: ann.id,
    });
    expect(resolved).toMatchObject({ resolvedAt: 3000, resolution: 'dismiss', resolvedBy: ann.id });
    expect(await store.resolveReport(first.id, { at: 4000, action: 'dismiss', by: null })).toBe(
      'already-resolved',
    );
    expect(await store.resolveReport(9999, { at: 4000, action: 'dismiss', by: null })).toBe(
      undefined,
    );
    expect((await store.listReports({ status: 'waiting', offset: 0 })).total).toBe(1);
    expect(
      (await store.listReports({ status: 'resolved', offset: 0 })).reports.map((r) => r.id),
    ).toEqual([first.id]);

    // The link disabled, then removed: the report stays, its link shown as it is.
    await store.setLinkDisabled(link.id, { at: 5000, reason: null });
    expect((await store.findReport(first.id))?.link?.disabled).toBe(true);
    await store.deleteLink(link.id);
    expect((await store.findReport(first.id))?.link).toBeNull();
    expect(await store.findReport(9999)).toBeUndefined();
  });

  test('report.created goes to the webhooks of enabled admins and of no one, in the same transaction', async () => {
    const store = await testStore(backend);
    const ann = (await store.createUser('ann@example.com', 'h')) as User;
    const bob = (await store.createUser('bob@example.com', 'h')) as User;
    const cat = (await store.createUser('cat@example.com', 'h')) as User;
    await store.setUserAdmin(ann.id, true);
    await store.setUserAdmin(cat.id, true);
    await store.setUserDisabled(cat.id, 1);
    const hook = (userId: number | null) =>
      store.createWebhook(
        {
          userId,
          url: 'https://hooks.example/in',
          secret: 'whsec_x',
          events: ['report.created'],
          createdAt: 1,
        },
        20,
      ) as Promise<{ id: number }>;
    const annHook = await hook(ann.id);
    await hook(bob.id);
    await hook(cat.id);
    const openHook = await hook(null);
    const link = await make(store, 'bad', { userId: bob.id });
    const made = await store.createReport(report(link.id, 'bad', 1000));
    const messages = await store.claimDeliveries(Date.now() + 1000, 10, 30_000);
    expect(messages.map((m) => m.webhookId).sort((a, b) => a - b)).toEqual([
      annHook.id,
      openHook.id,
    ]);
    for (const message of messages) {
      expect(message.type).toBe('report.created');
      expect(JSON.parse(message.payload)).toEqual({
        id: made.id,
        domainId: 0,
        shortCode: 'bad',
        reason: 'phishing',
        details: 'asks for a bank password',
        createdAt: 1000,
        link: {
          originalUrl: 'https://x.example',
          disabled: false,
          owner: { id: bob.id, email: 'bob@example.com' },
          clicks: 0,
        },
      });
    }
  });
});
