// kurz export and import with several short domains: a link goes out with its domain
// (null for the default one) and its tags, and comes back on the domain of the same host
// (whatever its id there) with the same code, one code on two domains being two links,
// click records with the right one; a default-domain link lands on the importing kurz's
// default domain. Shlink and Bitly files name their domains too: a domain the importing
// kurz does not have is refused, whole and before anything is stored, with its rows
// counted, unless --domain-map places it; a registered one takes its links. In process
// from SQLite to PostgreSQL and back, then through dist/kurz on both.

import { beforeAll, describe, expect, onTestFinished, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/logger.ts';
import { openStore } from '../../src/store/open.ts';
import { openPostgres } from '../../src/store/postgres/postgres-store.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import type { Click, Domain, LinkDetail, Store } from '../../src/store/store.ts';
import { DomainMap, parseDomainMap } from '../../src/transfer/domain-map.ts';
import { BINARY, runKurz, tempDir } from '../support/binary.ts';
import { atCleanUp } from '../support/cleanup.ts';
import { freshDatabase, freshSchemaUrl } from '../support/postgres.ts';
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

const T0 = Date.UTC(2026, 10, 1);

async function addDomain(store: Store, host: string): Promise<Domain> {
  const domain = await store.createDomain({
    baseUrl: `https://${host}`,
    host,
    rootRedirect: null,
    notFoundRedirect: null,
    createdAt: T0,
  });
  if (domain === undefined) throw new Error(`${host} not added`);
  return domain;
}

function click(linkId: number, at: number, referrer: string): Click {
  return {
    linkId,
    source: null,
    querySource: null,
    referrer,
    userAgent: null,
    createdAt: at,
    address: null,
    country: null,
    limited: false,
  };
}

/** Every link as kept, by domain host (`default` for the default one) and code, ids aside. */
async function linksOf(store: Store): Promise<Record<string, unknown>> {
  const hosts = new Map((await store.listDomains()).map((d) => [d.id, d.host]));
  const links = await store.listLinkDetailsAfter({
    owner: null,
    after: { createdAt: Number.MAX_SAFE_INTEGER, id: 2 ** 31 - 1 },
    limit: 100,
  });
  return Object.fromEntries(
    links.map(({ id: _, domainId, ...link }: LinkDetail) => [
      `${hosts.get(domainId) ?? 'default'}/${link.shortCode}`,
      link,
    ]),
  );
}

/** The referrers of a link's click records: which link they came with. */
async function referrersOf(store: Store, code: string, domainId: number): Promise<string[]> {
  const link = await store.findLinkDetail(code, domainId);
  return (await store.clickRows(link?.id ?? 0, 0, 100)).map((row) => row.referrer ?? '');
}

describe.each([
  ['sqlite', 'postgres'],
  ['postgres', 'sqlite'],
] as const)('from %s to %s', (from, to) => {
  test('each link comes back on its domain, by host, with its code, tags and click records; the default one’s on the default one', async () => {
    const source = await openKind(from);
    const go = await addDomain(source, 'go.example.com');
    const made = await source.createLinks([
      {
        userId: null,
        originalUrl: 'https://example.com/default-promo',
        shortCode: 'promo',
        source: null,
        createdAt: T0,
        tags: ['q1', 'sale'],
      },
      {
        userId: null,
        domainId: go.id,
        originalUrl: 'https://example.com/go-promo',
        shortCode: 'promo',
        source: 'mail',
        createdAt: T0 + 1,
        tags: ['q1'],
      },
      {
        userId: null,
        domainId: go.id,
        originalUrl: 'https://example.com/go-only',
        shortCode: 'only-go',
        source: null,
        createdAt: T0 + 2,
      },
    ]);
    const [onDefault, onGo] = made.map((m) => (typeof m === 'object' ? m.id : 0));
    await source.importClicks([
      click(onDefault as number, T0 + 10, 'https://ref.example/default-1'),
      click(onDefault as number, T0 + 11, 'https://ref.example/default-2'),
      click(onGo as number, T0 + 12, 'https://ref.example/go'),
    ]);

    const exported = await exportText(source, { clicks: true });
    const lines = exported
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ kurz_export: 2 });
    expect(lines.filter((l) => 'code' in l).map((l) => [l.domain, l.code, l.tags])).toEqual([
      ['go.example.com', 'only-go', []],
      ['go.example.com', 'promo', ['q1']],
      [null, 'promo', ['q1', 'sale']],
    ]);
    expect(lines.filter((l) => 'click' in l).map((l) => [l.domain, l.click])).toEqual([
      ['go.example.com', 'promo'],
      [null, 'promo'],
      [null, 'promo'],
    ]);

    // The target has the domain under another id, and another domain besides.
    const target = await openKind(to);
    await addDomain(target, 'other.example.net');
    const goThere = await addDomain(target, 'go.example.com');
    expect(goThere.id).not.toBe(go.id);
    const imported = await importText(target, exported);
    expect(imported).toEqual({
      summary: summaryOf({ read: 3, imported: 3, clicks: { read: 3, imported: 3 } }),
      reports: [],
    });
    const withoutClicks = (links: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(links).map(([key, link]) => [key, { ...(link as object), clicks: 0 }]),
      );
    expect(withoutClicks(await linksOf(target))).toEqual(withoutClicks(await linksOf(source)));
    expect(Object.keys(await linksOf(target)).sort()).toEqual([
      'default/promo',
      'go.example.com/only-go',
      'go.example.com/promo',
    ]);
    expect(await referrersOf(target, 'promo', 0)).toEqual([
      'https://ref.example/default-1',
      'https://ref.example/default-2',
    ]);
    expect(await referrersOf(target, 'promo', goThere.id)).toEqual(['https://ref.example/go']);

    // A second run finds every link on its domain already there, its records too.
    expect((await importText(target, exported)).summary).toEqual(
      summaryOf({ read: 3, skipped: 3, clicks: { read: 3, skipped: 3 } }),
    );

    // CSV carries domains and tags as well, back to the first kind.
    const csv = await exportText(source, { format: 'csv' });
    const back = await openKind(from);
    await addDomain(back, 'go.example.com');
    expect(await importText(back, csv)).toEqual({
      summary: summaryOf({ read: 3, imported: 3 }),
      reports: [],
    });
    expect(withoutClicks(await linksOf(back))).toEqual(withoutClicks(await linksOf(source)));
  }, 30_000);
});

test('a conflict is judged and said within its domain; a renamed link stays on it, and a second run finds it there', async () => {
  const store = await openKind('sqlite');
  const go = await addDomain(store, 'go.example.com');
  await store.createLinks([
    {
      userId: null,
      domainId: go.id,
      originalUrl: 'https://example.com/held',
      shortCode: 'promo',
      source: null,
      createdAt: T0,
    },
  ]);
  const row = (domain: string | null) =>
    JSON.stringify({
      code: 'promo',
      domain,
      url: 'https://example.com/new',
      created_at: new Date(T0 + 5).toISOString(),
      owner: null,
      source: null,
      expires_at: null,
      max_clicks: null,
      limited_clicks: 0,
      password_hash: null,
      clicks: 0,
      tags: [],
    });
  const file = `{"kurz_export":2,"clicks":false}\n${row('go.example.com')}\n${row(null)}\n`;
  expect(await importText(store, file, { dryRun: true })).toEqual({
    summary: summaryOf({ read: 2, imported: 1, conflicts: 1 }),
    reports: [
      'line 2: code "promo" on go.example.com is taken by another link (https://example.com/held, of no one); skipped',
    ],
  });
  const renamed = await importText(store, file, { renameConflicts: true });
  expect(renamed.summary).toEqual(summaryOf({ read: 2, imported: 2, conflicts: 1, renamed: 1 }));
  const code = /imported as "(\w+)"$/.exec(renamed.reports[0] ?? '')?.[1] ?? '';
  expect(renamed.reports).toEqual([
    `line 2: code "promo" on go.example.com is taken by another link (https://example.com/held, of no one); imported as "${code}"`,
  ]);
  expect((await store.findLinkDetail(code, go.id))?.originalUrl).toBe('https://example.com/new');
  expect((await store.findLinkDetail('promo'))?.originalUrl).toBe('https://example.com/new');
  const again = await importText(store, file, { renameConflicts: true });
  expect(again).toEqual({
    summary: summaryOf({ read: 2, skipped: 2 }),
    reports: [
      `line 2: code "promo" on go.example.com is taken by another link (https://example.com/held, of no one); already imported as "${code}"`,
    ],
  });
});

test('without the pre-check, a row on a domain this kurz does not have is a bad row, never put on another; a mapping places it', async () => {
  const source = await openKind('sqlite');
  const go = await addDomain(source, 'go.example.com');
  await source.createLinks([
    {
      userId: null,
      domainId: go.id,
      originalUrl: 'https://example.com/go',
      shortCode: 'gone',
      source: null,
      createdAt: T0,
    },
  ]);
  const exported = await exportText(source);
  const target = await openKind('sqlite');
  expect(await importText(target, exported)).toEqual({
    summary: summaryOf({ read: 1, bad: 1 }),
    reports: [
      'line 2: the domain go.example.com is not a domain of this kurz (map it with --domain-map go.example.com=TO); skipped',
    ],
  });
  const domains = await DomainMap.open(
    target,
    'https://kurz.test',
    parseDomainMap(['go.example.com=default']),
  );
  expect((await importText(target, exported, { domains })).summary).toEqual(
    summaryOf({ read: 1, imported: 1 }),
  );
  expect((await target.findLinkDetail('gone'))?.originalUrl).toBe('https://example.com/go');
});

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

/** Shlink's web client writes every link's domain, its default one's (s.test here) too. */
const SHLINK = [
  'createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits',
  '2021-03-01T10:00:00+00:00,s.test,abc,https://s.test/abc,https://example.org/1,,,4',
  '2021-03-02T10:00:00+00:00,s.test,def,https://s.test/def,https://example.org/2,,a|b,0',
  '2021-03-03T10:00:00+00:00,go.example.com,abc,https://go.example.com/abc,https://example.org/3,,Promo|q1,1',
  '2021-03-04T10:00:00+00:00,kurz.example,here,https://kurz.example/here,https://example.org/4,,,0',
  '',
].join('\n');

/** Bitly's export: its own bit.ly links, and one on a custom domain. */
const BITLY = [
  'Title,Link,Custom Link,Destination URL,Date Created,Tags,Clicks',
  'One,https://bit.ly/3xYzAbC,https://bit.ly/spring,https://shop.example/1,2024-03-05 14:23:01,,3',
  'Two,https://bit.ly/4dEfGhI,,https://shop.example/2,2024-03-06 09:00:00,,0',
  'Three,https://bit.ly/5aaaaaa,https://go.example.com/spring,https://shop.example/3,2024-03-07 09:00:00,,0',
  '',
].join('\n');

describe.each(['sqlite', 'postgres'] as const)('dist/kurz import on %s', (kind) => {
  let db = '';
  let dir = '';
  /** The tool's default domain: --base-url's host, as the server's is. */
  const kurz = (args: string[], input?: string, env: Record<string, string> = {}) =>
    runKurz([...args, '--db', db, '--base-url', 'https://kurz.example'], { input, cwd: dir, env });
  const withStore = async <T>(work: (store: Store) => Promise<T>): Promise<T> => {
    const store = await openStore(
      { db, dbPool: 2, durability: 'normal', minFreeDiskBytes: 0 },
      silentLogger,
    );
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  };
  const count = () =>
    withStore(async (store) => (await store.listLinks({ owner: null, offset: 0 })).total);

  beforeAll(async () => {
    dir = tempDir();
    db = kind === 'sqlite' ? join(dir, 'kurz.db') : await freshDatabase();
    // Made (and migrated) by a first run that stores nothing.
    expect((await kurz(['import', '-'], 'keyword,url\n')).code).toBe(0);
    await Bun.write(join(dir, 'shlink.csv'), SHLINK);
    await Bun.write(join(dir, 'bitly.csv'), BITLY);
  }, 30_000);

  test('a file with links on domains this kurz does not have is refused whole, each named with its rows; a dry run too', async () => {
    for (const dry of [[], ['--dry-run']]) {
      const run = await kurz(['import', 'shlink.csv', ...dry]);
      expect([run.code, run.stdout]).toEqual([1, '']);
      expect(run.stderr.split('\n')).toEqual([
        `kurz: reading shlink.csv as Shlink CSV; links go to no one${dry.length > 0 ? ' (dry run: nothing is stored)' : ''}`,
        'kurz: cannot import shlink.csv: its links are on domains this kurz does not have: s.test (2 rows), go.example.com (1 row). Map each onto a domain of this kurz with --domain-map FROM=TO (TO: its host, or default), e.g. --domain-map s.test=default, or add it first (kurz domain add URL); nothing was imported',
        '',
      ]);
    }
    expect(await count()).toBe(0);
  }, 30_000);

  test('--domain-map that cannot be used is refused before reading: no FROM=TO, or a TO this kurz does not have', async () => {
    const malformed = await kurz(['import', 'shlink.csv', '--domain-map', 's.test']);
    expect([malformed.code, malformed.stderr]).toEqual([
      2,
      'kurz: --domain-map "s.test": give FROM=TO, the file\'s domain and one of this kurz\'s (or default), e.g. bit.ly=default\n',
    ]);
    const twice = await kurz([
      'import',
      'shlink.csv',
      '--domain-map',
      's.test=default',
      '--domain-map',
      'S.TEST.=kurz.example',
    ]);
    expect([twice.code, twice.stderr]).toEqual([
      2,
      'kurz: --domain-map maps S.TEST. twice ("s.test=default" and "S.TEST.=kurz.example")\n',
    ]);
    const elsewhere = await kurz(['import', 'shlink.csv', '--domain-map', 's.test=go.example.com']);
    expect([elsewhere.code, elsewhere.stderr]).toEqual([
      1,
      'kurz: --domain-map "s.test=go.example.com": go.example.com is not a domain of this kurz (its domains: default (kurz.example))\n',
    ]);
    expect(await count()).toBe(0);
  }, 30_000);

  test('with the domain registered and the rest mapped, each link lands on its domain, with its tags; the default host is the default domain', async () => {
    // Added as the refusal says, by kurz domain add.
    expect((await kurz(['domain', 'add', 'https://go.example.com'])).code).toBe(0);
    const go = await withStore(async (store) => (await store.listDomains())[0] as Domain);
    const run = await kurz(['import', 'shlink.csv', '--domain-map', 'https://s.test/=default']);
    expect([run.code, run.stdout]).toEqual([
      0,
      'kurz: read 4 rows, imported 4, skipped 0 (already there), conflicts 0, bad rows 0\n',
    ]);
    const links = await withStore(async (store) =>
      (await store.listLinks({ owner: null, offset: 0 })).links.map((l) => [
        l.domainId,
        l.shortCode,
        l.originalUrl,
      ]),
    );
    // One code on two domains: two links.
    expect(links).toEqual([
      [0, 'here', 'https://example.org/4'],
      [go.id, 'abc', 'https://example.org/3'],
      [0, 'def', 'https://example.org/2'],
      [0, 'abc', 'https://example.org/1'],
    ]);
    const tags = await withStore(async (store) => [
      (await store.findLinkDetail('abc', go.id))?.tags,
      (await store.findLinkDetail('def'))?.tags,
    ]);
    expect(tags).toEqual([
      ['promo', 'q1'],
      ['a', 'b'],
    ]);
    const again = await kurz(['import', 'shlink.csv', '--domain-map', 's.test=default']);
    expect(again.stdout).toBe(
      'kurz: read 4 rows, imported 0, skipped 4 (already there), conflicts 0, bad rows 0\n',
    );
  }, 30_000);

  test('Bitly: its own domain must be mapped; a custom one registered here takes its links, one code on both domains', async () => {
    const refused = await kurz(['import', 'bitly.csv']);
    expect([refused.code, refused.stderr.split('\n')[1]]).toEqual([
      1,
      'kurz: cannot import bitly.csv: its links are on a domain this kurz does not have: bit.ly (2 rows). Map each onto a domain of this kurz with --domain-map FROM=TO (TO: its host, or default), e.g. --domain-map bit.ly=default, or add it first (kurz domain add URL); nothing was imported',
    ]);
    const run = await kurz(['import', 'bitly.csv', '--domain-map', 'bit.ly=default']);
    expect(run.stdout).toBe(
      'kurz: read 3 rows, imported 3, skipped 0 (already there), conflicts 0, bad rows 0\n',
    );
    const placed = await withStore(async (store) => {
      const go = (await store.listDomains())[0] as Domain;
      return [
        (await store.findLinkDetail('spring'))?.originalUrl,
        (await store.findLinkDetail('4dEfGhI'))?.originalUrl,
        (await store.findLinkDetail('spring', go.id))?.originalUrl,
      ];
    });
    expect(placed).toEqual([
      'https://shop.example/1',
      'https://shop.example/2',
      'https://shop.example/3',
    ]);
  }, 30_000);

  test('stdin is read twice through a file of its own, removed at the end, refused or imported', async () => {
    const tmp = tempDir();
    const file = JSON.stringify({
      shortUrls: {
        data: [
          { shortCode: 'api1', longUrl: 'https://example.org/a1', domain: null, tags: ['x'] },
          { shortCode: 'api2', longUrl: 'https://example.org/a2', domain: 'new.example.com' },
        ],
      },
    });
    const refused = await kurz(['import', '-'], file, { TMPDIR: tmp });
    expect([refused.code, refused.stderr.split('\n')[1]]).toEqual([
      1,
      'kurz: cannot import stdin: its links are on a domain this kurz does not have: new.example.com (1 row). Map each onto a domain of this kurz with --domain-map FROM=TO (TO: its host, or default), e.g. --domain-map new.example.com=default, or add it first (kurz domain add URL); nothing was imported',
    ]);
    expect(readdirSync(tmp)).toEqual([]);
    const run = await kurz(
      ['import', '-', '--domain-map', 'new.example.com=go.example.com'],
      file,
      {
        TMPDIR: tmp,
      },
    );
    expect([run.code, run.stdout]).toEqual([
      0,
      'kurz: read 2 rows, imported 2, skipped 0 (already there), conflicts 0, bad rows 0\n',
    ]);
    expect(readdirSync(tmp)).toEqual([]);
    const placed = await withStore(async (store) => {
      const go = (await store.listDomains())[0] as Domain;
      return [
        (await store.findLinkDetail('api1'))?.tags,
        (await store.findLinkDetail('api2', go.id))?.originalUrl,
      ];
    });
    expect(placed).toEqual([['x'], 'https://example.org/a2']);
  }, 30_000);

  test('a row whose tags kurz does not allow is a bad row; the others land', async () => {
    const file =
      'longUrl,shortCode,domain,tags\n' +
      'https://example.org/t1,tag1,,Black Friday\n' +
      'https://example.org/t2,tag2,,a|b|c|d|e|f|g|h|i|j|k\n' +
      'https://example.org/t3,tag3,,fine\n';
    const run = await kurz(['import', '-'], file);
    expect(run.stdout).toBe(
      'kurz: read 3 rows, imported 1, skipped 0 (already there), conflicts 0, bad rows 2\n',
    );
    expect(run.stderr.split('\n').slice(1)).toEqual([
      'kurz: line 2: tags must be a list of at most 10 tags, each 1 to 32 letters, digits, hyphens or underscores ("Black Friday"); skipped',
      'kurz: line 3: tags must be a list of at most 10 tags, each 1 to 32 letters, digits, hyphens or underscores (11 tags); skipped',
      '',
    ]);
  }, 30_000);
});
