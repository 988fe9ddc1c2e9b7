// kurz import and export on the store the test app has (SQLite, or PostgreSQL in the
// suite's second run): imported links redirect with their own codes; a dry run stores
// nothing; a second run imports nothing new; conflicts are said and skipped, or renamed
// (and a second run still adds nothing); bad rows are said by line while the good ones
// land; links go to the owner asked for; kurz's rules for URLs hold; and the export is
// streamed, per owner if asked, with no field a spreadsheet would run.

import { describe, expect, test } from 'bun:test';
import { parseBlocklist } from '../../src/domain/targets.ts';
import type { Store, User } from '../../src/store/store.ts';
import { TestApp } from '../support/test-app.ts';
import { exportText, importText, summaryOf } from '../support/transfer.ts';

const YOURLS = [
  'keyword,url,title,timestamp,ip,clicks',
  'ozh,https://ozh.org/,Ozh,2023-01-05 10:00:00,127.0.0.1,120',
  'guide,https://docs.example/start,Docs,2023-01-06 11:30:00,127.0.0.1,3',
  'promo,https://shop.example/sale,Sale,2023-01-07 08:00:00,127.0.0.1,0',
  '',
].join('\n');

async function total(store: Store): Promise<number> {
  return (await store.listLinks({ owner: null, offset: 0 })).total;
}

async function userOf(app: TestApp, email: string): Promise<User> {
  const client = await app.user(email);
  return client.user as User;
}

describe('kurz import', () => {
  test('links land with their codes and dates, redirect at once, and belong to the owner given', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user('ann@example.com');
    const { summary, reports } = await importText(app.store, YOURLS, { owner: ann.user as User });
    expect([summary, reports]).toEqual([summaryOf({ read: 3, imported: 3 }), []]);
    const ozh = await app.get('/ozh');
    expect([ozh.status, ozh.headers.get('location')]).toEqual([307, 'https://ozh.org/']);
    const listed = (await ann.links()).json;
    expect(
      listed.map((l: { short_code: string; created_at: string }) => [l.short_code, l.created_at]),
    ).toEqual([
      ['promo', '2023-01-07T08:00:00.000Z'],
      ['guide', '2023-01-06T11:30:00.000Z'],
      ['ozh', '2023-01-05T10:00:00.000Z'],
    ]);
  });

  test('without --owner the links belong to no one, as open mode’s', async () => {
    const app = await TestApp.init('open');
    await importText(app.store, YOURLS);
    const listed = (await app.anonymous().links()).json;
    expect(listed.map((l: { short_code: string }) => l.short_code)).toEqual([
      'promo',
      'guide',
      'ozh',
    ]);
    expect((await app.store.findLinkByCode('ozh'))?.userId).toBeNull();
  });

  test('a dry run reads and checks everything, says the same, and stores nothing', async () => {
    const app = await TestApp.init('open');
    await app.store.createLinks([
      {
        userId: null,
        originalUrl: 'https://elsewhere.example/',
        shortCode: 'promo',
        source: null,
        createdAt: 1,
      },
    ]);
    const file = `${YOURLS}bad,ftp://x.example/,t,2023-01-08 00:00:00,ip,0\nozh,https://other.example/,t,2023-01-09 00:00:00,ip,0\n`;
    const dry = await importText(app.store, file, { dryRun: true, batchSize: 2 });
    expect(dry.summary).toEqual(
      summaryOf({ read: 5, imported: 2, conflicts: 2, renamed: 0, bad: 1 }),
    );
    expect(dry.reports).toEqual([
      'line 4: code "promo" is taken by another link (https://elsewhere.example/, of no one); skipped',
      'line 5: URL must start with http:// or https:// ("ftp://x.example/"); skipped',
      // Taken by a row read before it (in an earlier batch), though nothing was stored.
      'line 6: code "ozh" is taken by line 2 of this file (https://ozh.org/); skipped',
    ]);
    expect(await total(app.store)).toBe(1);
    const renaming = await importText(app.store, file, { dryRun: true, renameConflicts: true });
    expect(renaming.reports).toContain(
      'line 4: code "promo" is taken by another link (https://elsewhere.example/, of no one); would be imported under a new code',
    );
    expect(await total(app.store)).toBe(1);
    // The real run does what the dry run said.
    expect((await importText(app.store, file, { batchSize: 2 })).summary).toEqual(dry.summary);
  });

  test('a second run imports nothing new: every row is already there', async () => {
    const app = await TestApp.init('accounts');
    const ann = await userOf(app, 'ann@example.com');
    await importText(app.store, YOURLS, { owner: ann });
    expect((await importText(app.store, YOURLS, { owner: ann })).summary).toEqual(
      summaryOf({ read: 3, skipped: 3 }),
    );
    expect(await total(app.store)).toBe(3);
    // The same codes for someone else are not theirs: conflicts.
    const bob = await userOf(app, 'bob@example.com');
    const other = await importText(app.store, YOURLS, { owner: bob });
    expect(other.summary).toEqual(summaryOf({ read: 3, conflicts: 3 }));
    expect(other.reports[0]).toBe(
      'line 2: code "ozh" is taken by another link (https://ozh.org/, of ann@example.com); skipped',
    );
  });

  test('conflicts and codes kurz refuses get new codes with --rename-conflicts, once only', async () => {
    const app = await TestApp.init('open');
    const owner = await app.anonymous().link('https://taken.example/', { custom_code: 'guide' });
    expect(owner.short_code).toBe('guide');
    const file = `${YOURLS}api,https://example.com/api,t,2023-01-08 00:00:00,ip,0\n"a b",https://example.com/space,t,2023-01-09 00:00:00,ip,0\n${'x'.repeat(33)},https://example.com/long,t,2023-01-10 00:00:00,ip,0\n`;
    const skipped = await importText(app.store, file);
    expect(skipped.summary).toEqual(summaryOf({ read: 6, imported: 2, conflicts: 4 }));
    expect(skipped.reports).toEqual([
      'line 3: code "guide" is taken by another link (https://taken.example/, of no one); skipped',
      'line 5: code "api" is reserved in kurz; skipped',
      'line 6: code "a b" is not a kurz code (1 to 32 letters, digits, _ and -); skipped',
      `line 7: code "${'x'.repeat(33)}" is not a kurz code (1 to 32 letters, digits, _ and -); skipped`,
    ]);
    const renamed = await importText(app.store, file, { renameConflicts: true });
    expect(renamed.summary).toEqual(
      summaryOf({ read: 6, imported: 4, skipped: 2, conflicts: 4, renamed: 4 }),
    );
    const newCode = /imported as "([A-Za-z0-9]{7})"$/;
    for (const report of renamed.reports) expect(report).toMatch(newCode);
    const guide = newCode.exec(renamed.reports[0] as string)?.[1] as string;
    const moved = await app.get(`/${guide}`);
    expect([moved.status, moved.headers.get('location')]).toEqual([
      307,
      'https://docs.example/start',
    ]);
    // The taken code still goes where it went.
    expect((await app.get('/guide')).headers.get('location')).toBe('https://taken.example/');
    // Again: each renamed row is found by its URL and date, and nothing is added.
    const again = await importText(app.store, file, { renameConflicts: true });
    expect(again.summary).toEqual(summaryOf({ read: 6, skipped: 6 }));
    expect(again.reports[0]).toBe(
      `line 3: code "guide" is taken by another link (https://taken.example/, of no one); already imported as "${guide}"`,
    );
    expect(await total(app.store)).toBe(7);
  });

  test('bad rows are said with their line, and the good rows around them land', async () => {
    const app = await TestApp.init('open');
    const file = [
      'keyword,url,title,timestamp,ip,clicks',
      'good1,https://example.com/1,t,2023-01-05 10:00:00,ip,0',
      'short,https://example.com/2,t',
      'nourl,,t,2023-01-05 10:00:00,ip,0',
      'space,https://exa mple.com/,t,2023-01-05 10:00:00,ip,0',
      'date,https://example.com/3,t,05/01/2023,ip,0',
      'good2,https://example.com/4,t,2023-01-05 10:00:00,ip,0',
      '',
    ].join('\n');
    const { summary, reports } = await importText(app.store, file);
    expect(summary).toEqual(summaryOf({ read: 6, imported: 2, bad: 4 }));
    expect(reports).toEqual([
      'line 3: 3 fields where the header has 6; skipped',
      'line 4: no URL; skipped',
      'line 5: URL is not valid ("https://exa mple.com/"); skipped',
      'line 6: the creation date "05/01/2023" is not a date; skipped',
    ]);
    for (const code of ['good1', 'good2']) expect((await app.get(`/${code}`)).status).toBe(307);
  });

  test('kurz’s own rules for targets hold: its own addresses and the blocklist are refused', async () => {
    const app = await TestApp.init('open');
    await app.addDomain('https://go.example');
    const file =
      'keyword,url\nself,https://kurz.test/abc\nblocked,https://sub.evil.example/x\nfine,https://example.com/\ndomain,http://GO.example./x\n';
    const { summary, reports } = await importText(app.store, file, {
      blocklist: parseBlocklist('evil.example\n'),
    });
    expect(summary).toEqual(summaryOf({ read: 4, imported: 1, bad: 3 }));
    expect(reports).toEqual([
      'line 2: URL must not point to this service ("https://kurz.test/abc"); skipped',
      'line 3: URL is blocked ("https://sub.evil.example/x"); skipped',
      'line 5: URL must not point to this service ("http://GO.example./x"); skipped',
    ]);
  });

  test('kurz’s export keeps each link’s owner by e-mail; --owner overrides; an owner with no account is a bad row', async () => {
    const app = await TestApp.init('accounts');
    const ann = await userOf(app, 'ann@example.com');
    const bob = await userOf(app, 'bob@example.com');
    const line = (code: string, owner: string | null) =>
      JSON.stringify({
        code,
        url: `https://example.com/${code}`,
        created_at: '2026-01-01T00:00:00.000Z',
        owner,
        source: null,
        expires_at: null,
        max_clicks: null,
        limited_clicks: 0,
        password_hash: null,
        clicks: 0,
      });
    const file = `{"kurz_export":1,"clicks":false}\n${[
      line('a1', 'Ann@Example.com'),
      line('b1', 'bob@example.com'),
      line('n1', null),
      line('z1', 'zoe@example.com'),
    ].join('\n')}\n`;
    const { summary, reports } = await importText(app.store, file);
    expect(summary).toEqual(summaryOf({ read: 4, imported: 3, bad: 1 }));
    expect(reports).toEqual([
      'line 5: the owner zoe@example.com has no account here (make it with kurz user add, or give --owner); skipped',
    ]);
    const owners = async (codes: string[]) =>
      Promise.all(codes.map(async (c) => (await app.store.findLinkByCode(c))?.userId));
    expect(await owners(['a1', 'b1', 'n1'])).toEqual([ann.id, bob.id, null]);
    const given = await importText(app.store, file.replaceAll('1"', '2"'), { owner: bob });
    expect(given.summary).toEqual(summaryOf({ read: 4, imported: 4 }));
    expect(await owners(['a2', 'b2', 'n2', 'z2'])).toEqual([bob.id, bob.id, bob.id, bob.id]);
  });

  test('click records of the export come with their link, count, and are not doubled by a second run', async () => {
    const app = await TestApp.init('open');
    const made = await app.anonymous().link('https://example.com/clicked', { custom_code: 'c1' });
    for (let i = 0; i < 3; i++) await app.get(`/${made.short_code}`);
    const exported = await exportText(app.store, { clicks: true });
    const other = await TestApp.init('open');
    const first = await importText(other.store, exported);
    expect(first.summary).toEqual(
      summaryOf({ read: 1, imported: 1, clicks: { read: 3, imported: 3 } }),
    );
    const second = await importText(other.store, exported);
    expect(second.summary).toEqual(
      summaryOf({ read: 1, skipped: 1, clicks: { read: 3, skipped: 3 } }),
    );
    const listed = (await other.anonymous().links()).json;
    expect(listed[0].clicks).toBe(3);
    // Their day in the stats: the records were taken in as clicks of the day they were made.
    const stats = (await other.get('/api/links/c1/stats')).json;
    expect([stats.clicks, stats.range.clicks]).toEqual([3, 3]);
    expect((await other.clickRecords(listed[0].id)).length).toBe(3);
  });

  test('many rows go in batch after batch, codes met twice in one file included', async () => {
    const app = await TestApp.init('open');
    let file = 'keyword,url,title,timestamp,ip,clicks\n';
    for (let i = 0; i < 2500; i++) {
      file += `k${i},https://example.com/${i},t,2023-01-05 10:00:00,ip,0\n`;
    }
    // The same row again (already there), and the same code for another URL (a conflict).
    file += 'k7,https://example.com/7,t,2023-01-05 10:00:00,ip,0\n';
    file += 'k8,https://example.com/other,t,2023-01-05 10:00:00,ip,0\n';
    const { summary, reports } = await importText(app.store, file, { batchSize: 1000 });
    expect(summary).toEqual(summaryOf({ read: 2502, imported: 2500, skipped: 1, conflicts: 1 }));
    expect(reports).toEqual([
      'line 2503: code "k8" is taken by another link (https://example.com/8, of no one); skipped',
    ]);
    expect(await total(app.store)).toBe(2500);
  });
});

describe('kurz export', () => {
  test('JSON Lines: a versioned header, then every link with all it needs, streamed in chunks', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user('ann@example.com');
    await ann.link('https://example.com/p', {
      custom_code: 'pw',
      password: 'open sesame',
      max_clicks: 9,
      source: 'mail',
    });
    const links = Array.from({ length: 2100 }, (_, i) => ({
      userId: null,
      originalUrl: `https://example.com/${i}`,
      shortCode: `n${i}`,
      source: null,
      createdAt: Date.UTC(2025, 0, 1) + i,
    }));
    await app.store.createLinks(links);
    const lines = (await exportText(app.store)).trimEnd().split('\n');
    expect(JSON.parse(lines[0] as string)).toEqual({
      kurz_export: 2,
      kurz_version: expect.any(String),
      exported_at: expect.stringMatching(/Z$/),
      clicks: false,
    });
    expect(lines.length).toBe(1 + 2101);
    const first = JSON.parse(lines[1] as string);
    expect(first).toEqual({
      code: 'pw',
      domain: null,
      url: 'https://example.com/p',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      owner: 'ann@example.com',
      source: 'mail',
      expires_at: null,
      max_clicks: 9,
      limited_clicks: 0,
      password_hash: expect.stringMatching(/^\$argon2id\$/),
      clicks: 0,
      tags: [],
      rules: [],
      variants: [],
      preview: null,
      disabled_at: null,
      disabled_reason: null,
    });
    expect(new Set(lines.slice(1).map((l) => JSON.parse(l).code)).size).toBe(2101);
  });

  test("a link's rules, split and preview go out and come back, in JSON Lines and in CSV", async () => {
    const app = await TestApp.init('open');
    const client = app.anonymous();
    const rules = [
      { url: 'https://apps.apple.com/x', conditions: [{ type: 'os', value: 'ios' }] },
      {
        url: 'https://example.com/de',
        conditions: [
          { type: 'language', value: 'de' },
          { type: 'query', name: 'ref' },
        ],
      },
    ];
    const variants = [
      { url: 'https://example.com/a', weight: 30 },
      { url: 'https://example.com/b', weight: 70 },
    ];
    const preview = {
      title: 'A "card", with, commas',
      description: null,
      image: 'https://cdn.example/c.png',
    };
    await client.link('https://example.com/routed', {
      custom_code: 'routed',
      rules,
      variants,
      preview,
    });
    const wanted = {
      rules,
      variants,
      preview: { mode: 'manual', status: 'ready', ...preview, error: null },
    };
    for (const format of ['jsonl', 'csv'] as const) {
      const text = await exportText(app.store, { format });
      const other = await TestApp.init('open');
      expect((await importText(other.store, text)).summary).toEqual(
        summaryOf({ read: 1, imported: 1 }),
      );
      expect((await other.get('/api/links/routed')).json).toMatchObject(wanted);
    }
    // A file's broken rule is a bad row, said with the rule's message.
    const bad = (await exportText(app.store, { format: 'jsonl' })).replace('"os"', '"weather"');
    const other = await TestApp.init('open');
    const report = await importText(other.store, bad);
    expect(report.summary).toMatchObject({ read: 1, imported: 0 });
    expect(report.reports.join('\n')).toContain(
      'rules[0].conditions[0]: type must be device, os, browser, language, country, query, after, before or bot',
    );
  });

  test('a disabled link goes out and comes back disabled, with its reason, in JSON Lines and in CSV', async () => {
    const app = await TestApp.init('open');
    const link = await app.anonymous().link('https://example.com/bad', { custom_code: 'bad' });
    await app.store.setLinkDisabled(link.id, {
      at: Date.UTC(2026, 1, 2),
      reason: 'Phishing, "urgent"',
    });
    await app.anonymous().link('https://example.com/fine', { custom_code: 'fine' });
    for (const format of ['jsonl', 'csv'] as const) {
      const text = await exportText(app.store, { format });
      const other = await TestApp.init('open');
      expect((await importText(other.store, text)).summary).toMatchObject({ imported: 2 });
      expect(await other.store.findLinkByCode('bad')).toMatchObject({
        disabledAt: Date.UTC(2026, 1, 2),
        disabledReason: 'Phishing, "urgent"',
      });
      expect(await other.store.findLinkByCode('fine')).toMatchObject({
        disabledAt: null,
        disabledReason: null,
      });
    }
  });

  test('--owner exports that account’s links only', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user('ann@example.com');
    const bob = await app.user('bob@example.com');
    await ann.link('https://example.com/a', { custom_code: 'mine' });
    await bob.link('https://example.com/b', { custom_code: 'his' });
    const text = await exportText(app.store, { owner: ann.user?.id as number });
    const codes = text
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l).code);
    expect(codes).toEqual(['mine']);
  });

  test('CSV: a header row, RFC 4180 quoting, and no field a spreadsheet would run as a formula', async () => {
    const app = await TestApp.init('open');
    await app.store.createLinks([
      {
        userId: null,
        originalUrl: 'https://example.com/?a=1,b="2"',
        shortCode: '-cmd',
        source: '=HYPERLINK("https://evil.example","click")',
        createdAt: Date.UTC(2026, 0, 1),
      },
    ]);
    const csv = await exportText(app.store, { format: 'csv' });
    expect(csv).toBe(
      'code,url,created_at,owner,source,expires_at,max_clicks,limited_clicks,password_hash,clicks,domain,tags,rules,variants,preview,disabled_at,disabled_reason\r\n' +
        `'-cmd,"https://example.com/?a=1,b=""2""",2026-01-01T00:00:00.000Z,,"'=HYPERLINK(""https://evil.example"",""click"")",,,0,,0,,,,,,,\r\n`,
    );
    // And it reads back as it was.
    const other = await TestApp.init('open');
    expect((await importText(other.store, csv)).summary).toEqual(
      summaryOf({ read: 1, imported: 1 }),
    );
    expect(await other.store.findLinkDetail('-cmd')).toMatchObject({
      originalUrl: 'https://example.com/?a=1,b="2"',
      source: '=HYPERLINK("https://evil.example","click")',
    });
  });
});
