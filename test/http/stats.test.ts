// Seeing traffic: GET /api/links/{code}/stats and /api/links/{code}/clicks.csv.
// Stats and the export answer the same whether a click is still in the log or already moved
// into click records and day rollups; the client address becomes a country and is never
// stored; retention removes old click records but keeps the day rollups.

import { describe, expect, test } from 'bun:test';
import { parseCommandLine } from '../../src/config/cli.ts';
import { ConfigError, type Mode } from '../../src/config/config.ts';
import type { Click } from '../../src/store/store.ts';
import { click, UA } from '../support/clicks.ts';
import { type AppOptions, PEER_HEADER, storeMovedByHand, TestApp } from '../support/test-app.ts';

const MODES = ['accounts', 'open'] as const;
const MS_PER_DAY = 86_400_000;

/** Client addresses and the country each is in (documentation and private ones: none). */
const PEERS = {
  us: '8.8.8.8',
  gb: '81.2.69.160',
  de: '5.9.0.1',
  au: '1.1.1.1',
  private: '10.0.0.1',
  documentation: '203.0.113.9',
};

const RANGE_ERROR = {
  error: 'from and to must be dates (YYYY-MM-DD), from not after to, at most 366 days apart',
};

/** The UTC date (YYYY-MM-DD) of a moment. */
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Noon (UTC) `n` days before today. */
const noonDaysAgo = (n: number) =>
  Math.floor(Date.now() / MS_PER_DAY) * MS_PER_DAY - n * MS_PER_DAY + MS_PER_DAY / 2;

const NO_TOP = {
  sources: [],
  query_sources: [],
  referrers: [],
  browsers: [],
  operating_systems: [],
  devices: [],
  countries: [],
  routes: [],
};

async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, options);
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const token = client.token;
  return {
    app,
    client,
    stats: (code: string, query = '') => app.get(`/api/links/${code}/stats${query}`, { token }),
    csv: (code: string) => app.get(`/api/links/${code}/clicks.csv`, { token }),
    /** A redirect followed by a browser at `peer`. */
    async visit(path: string, peer: string, headers: Record<string, string> = {}) {
      const reply = await app.get(path, { headers: { [PEER_HEADER]: peer, ...headers } });
      expect(reply.status).toBe(307);
    },
    /** Clicks written straight to the store (other days than today). */
    record: (clicks: Click[]) => app.store.recordClicks(clicks),
  };
}

/** Clicks still in the log, not yet moved into records and rollups. */
async function inLog(app: TestApp): Promise<number> {
  const [row] = await app.query<{ n: number }>('SELECT count(*) AS n FROM clicks');
  return row?.n ?? 0;
}

describe.each(MODES)('GET /api/links/{code}/stats (%s mode)', (mode) => {
  test('a day of mixed traffic: all-time clicks, people and bots, and every top list', async () => {
    const { client, stats, visit } = await setup(mode);
    await client.link('https://example.com/', { custom_code: 'mix', source: 'newsletter' });
    const today = dateOf(Date.now());
    await visit('/mix?source=twitter', PEERS.us, {
      'user-agent': UA.chrome,
      referer: 'https://news.example.com/a?utm=1',
    });
    await visit('/mix?source=twitter', PEERS.us, {
      'user-agent': UA.chrome,
      referer: 'https://news.example.com/b',
    });
    await visit('/mix?source=mastodon', PEERS.private, { 'user-agent': UA.iphone });
    await visit('/mix', PEERS.gb, {
      'user-agent': UA.googlebot,
      referer: 'https://www.google.com/',
    });
    await visit('/mix', PEERS.de);

    const reply = await stats('mix', `?from=${today}&to=${today}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toStartWith('application/json');
    expect(reply.json).toEqual({
      short_code: 'mix',
      domain: 'kurz.test',
      from: today,
      to: today,
      clicks: 5,
      range: { clicks: 5, humans: 4, bots: 1 },
      days: [{ date: today, clicks: 5, humans: 4, bots: 1 }],
      top: {
        sources: [{ value: 'newsletter', clicks: 5 }],
        // `?source=` is the owner's campaign tag: open mode does not track it.
        query_sources:
          mode === 'accounts'
            ? [
                { value: 'twitter', clicks: 2 },
                { value: 'mastodon', clicks: 1 },
              ]
            : [],
        referrers: [
          { value: 'direct', clicks: 2 },
          { value: 'news.example.com', clicks: 2 },
          { value: 'www.google.com', clicks: 1 },
        ],
        browsers: [
          { value: 'Chrome', clicks: 2 },
          { value: 'Unknown', clicks: 2 },
          { value: 'Mobile Safari', clicks: 1 },
        ],
        operating_systems: [
          { value: 'Unknown', clicks: 2 },
          { value: 'Windows', clicks: 2 },
          { value: 'iOS', clicks: 1 },
        ],
        devices: [
          { value: 'desktop', clicks: 2 },
          { value: 'bot', clicks: 1 },
          { value: 'mobile', clicks: 1 },
          { value: 'unknown', clicks: 1 },
        ],
        countries: [
          { value: 'US', clicks: 2 },
          { value: 'DE', clicks: 1 },
          { value: 'GB', clicks: 1 },
          { value: 'unknown', clicks: 1 },
        ],
        routes: [{ value: 'default', clicks: 5 }],
      },
    });
  });

  test('every day of the range is listed, zeros filled; from and to are inclusive UTC days', async () => {
    const { client, stats, record } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'days' });
    await record([
      click(link.id, '2025-02-27T23:59:59.999Z', { country: 'NL' }),
      click(link.id, '2025-02-28T00:00:00.000Z', { country: 'FR' }),
      click(link.id, '2025-02-28T12:00:00.000Z', { userAgent: UA.googlebot }),
      click(link.id, '2025-03-02T23:59:59.999Z', { country: 'DE' }),
      click(link.id, '2025-03-02T23:59:59.999Z', { country: 'DE' }),
      click(link.id, '2025-03-03T00:00:00.000Z', { country: 'NL' }),
    ]);

    const reply = await stats('days', '?from=2025-02-28&to=2025-03-02');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      short_code: 'days',
      domain: 'kurz.test',
      from: '2025-02-28',
      to: '2025-03-02',
      clicks: 6,
      range: { clicks: 4, humans: 3, bots: 1 },
      days: [
        { date: '2025-02-28', clicks: 2, humans: 1, bots: 1 },
        { date: '2025-03-01', clicks: 0, humans: 0, bots: 0 },
        { date: '2025-03-02', clicks: 2, humans: 2, bots: 0 },
      ],
      top: {
        sources: [],
        query_sources: [],
        referrers: [{ value: 'direct', clicks: 4 }],
        browsers: [{ value: 'Unknown', clicks: 4 }],
        operating_systems: [{ value: 'Unknown', clicks: 4 }],
        devices: [
          { value: 'unknown', clicks: 3 },
          { value: 'bot', clicks: 1 },
        ],
        countries: [
          { value: 'DE', clicks: 2 },
          { value: 'FR', clicks: 1 },
          { value: 'unknown', clicks: 1 },
        ],
        routes: [{ value: 'default', clicks: 4 }],
      },
    });

    // A day without clicks: zeros and empty lists, the all-time count still there.
    expect((await stats('days', '?from=2025-03-01&to=2025-03-01')).json).toEqual({
      short_code: 'days',
      domain: 'kurz.test',
      from: '2025-03-01',
      to: '2025-03-01',
      clicks: 6,
      range: { clicks: 0, humans: 0, bots: 0 },
      days: [{ date: '2025-03-01', clicks: 0, humans: 0, bots: 0 }],
      top: NO_TOP,
    });
  });

  test('each top list keeps the 10 values with most clicks, ties in value order', async () => {
    const { client, stats, record } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'top' });
    // 12 distinct values: two with 3 clicks, one with 2, nine with 1 (the last two cut).
    const labels = 'k b k x b k x b a c d e f g h j i'.split(' ');
    const countries = 'US AT US ZA AT US ZA AT BE CA DE ES FI GB IE NL JP'.split(' ');
    await record(
      labels.map((label, i) =>
        click(link.id, '2025-05-05T10:00:00.000Z', {
          source: label,
          querySource: `q-${label}`,
          referrer: `https://${label}.example/page`,
          country: countries[i] as string,
        }),
      ),
    );
    const top = (prefix: string, suffix: string) =>
      [
        ['b', 3],
        ['k', 3],
        ['x', 2],
        ['a', 1],
        ['c', 1],
        ['d', 1],
        ['e', 1],
        ['f', 1],
        ['g', 1],
        ['h', 1],
      ].map(([label, clicks]) => ({ value: `${prefix}${label}${suffix}`, clicks }));

    const reply = await stats('top', '?from=2025-05-05&to=2025-05-05');
    expect(reply.json).toEqual({
      short_code: 'top',
      domain: 'kurz.test',
      from: '2025-05-05',
      to: '2025-05-05',
      clicks: 17,
      range: { clicks: 17, humans: 17, bots: 0 },
      days: [{ date: '2025-05-05', clicks: 17, humans: 17, bots: 0 }],
      top: {
        sources: top('', ''),
        query_sources: top('q-', ''),
        referrers: top('', '.example'),
        browsers: [{ value: 'Unknown', clicks: 17 }],
        operating_systems: [{ value: 'Unknown', clicks: 17 }],
        devices: [{ value: 'unknown', clicks: 17 }],
        countries: [
          { value: 'AT', clicks: 3 },
          { value: 'US', clicks: 3 },
          { value: 'ZA', clicks: 2 },
          { value: 'BE', clicks: 1 },
          { value: 'CA', clicks: 1 },
          { value: 'DE', clicks: 1 },
          { value: 'ES', clicks: 1 },
          { value: 'FI', clicks: 1 },
          { value: 'GB', clicks: 1 },
          { value: 'IE', clicks: 1 },
        ],
        routes: [{ value: 'default', clicks: 17 }],
      },
    });
  });

  test('without from and to: the last 30 days, today last; from alone runs to today, to alone goes back 29 days', async () => {
    const { client, stats, record } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'recent' });
    await record([click(link.id, noonDaysAgo(30)), click(link.id, noonDaysAgo(29))]);
    const today = dateOf(Date.now());

    const reply = await stats('recent');
    expect(reply.status).toBe(200);
    const dates = Array.from({ length: 30 }, (_, i) => dateOf(noonDaysAgo(29 - i)));
    expect(reply.json.from).toBe(dates[0]);
    expect(reply.json.to).toBe(today);
    expect(reply.json.days.map((d: { date: string }) => d.date)).toEqual(dates);
    expect(reply.json.days[0]).toEqual({ date: dates[0], clicks: 1, humans: 1, bots: 0 });
    expect(reply.json.range).toEqual({ clicks: 1, humans: 1, bots: 0 });
    expect(reply.json.clicks).toBe(2);

    const twoDaysAgo = dateOf(noonDaysAgo(2));
    const fromOnly = await stats('recent', `?from=${twoDaysAgo}`);
    expect([fromOnly.json.from, fromOnly.json.to, fromOnly.json.days.length]).toEqual([
      twoDaysAgo,
      today,
      3,
    ]);
    const toOnly = await stats('recent', '?to=2025-03-31');
    expect([toOnly.json.from, toOnly.json.to, toOnly.json.days.length]).toEqual([
      '2025-03-02',
      '2025-03-31',
      30,
    ]);
  });

  test('ranges up to 366 days, across leap days and into the future, are answered', async () => {
    const { client, stats } = await setup(mode);
    await client.link('https://example.com/', { custom_code: 'cal' });
    const leap = await stats('cal', '?from=2024-02-28&to=2024-03-01');
    expect(leap.json.days.map((d: { date: string }) => d.date)).toEqual([
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
    const year = await stats('cal', '?from=2024-01-01&to=2024-12-31');
    expect(year.status).toBe(200);
    expect(year.json.days).toHaveLength(366);
    expect(year.json.days.at(-1)).toEqual({ date: '2024-12-31', clicks: 0, humans: 0, bots: 0 });
    const future = await stats('cal', '?from=2099-12-31&to=2100-01-01');
    expect(future.json).toEqual({
      short_code: 'cal',
      domain: 'kurz.test',
      from: '2099-12-31',
      to: '2100-01-01',
      clicks: 0,
      range: { clicks: 0, humans: 0, bots: 0 },
      days: [
        { date: '2099-12-31', clicks: 0, humans: 0, bots: 0 },
        { date: '2100-01-01', clicks: 0, humans: 0, bots: 0 },
      ],
      top: NO_TOP,
    });
  });

  test.each([
    ['a month that does not exist', '?from=2025-13-01&to=2025-13-02'],
    ['a day that does not exist', '?from=2025-02-29&to=2025-03-01'],
    ['a date without leading zeros', '?from=2025-3-01'],
    ['a date-time', '?to=2025-03-01T00:00:00Z'],
    ['a word', '?to=yesterday'],
    ['an empty value', '?from='],
    ['a day before 1970', '?from=1969-12-31&to=1970-01-01'],
    ['from after to', '?from=2025-03-02&to=2025-03-01'],
    ['367 days', '?from=2023-01-01&to=2024-01-02'],
    ['367 days across a leap day', '?from=2020-01-01&to=2021-01-01'],
    ['from twice', '?from=2025-01-01&from=2025-01-02&to=2025-01-03'],
    ['to twice (even the same day)', '?from=2025-01-01&to=2025-01-03&to=2025-01-03'],
  ])('%s is 400 with the range rule', async (_, query) => {
    const { client, stats } = await setup(mode);
    await client.link('https://example.com/', { custom_code: 'bad' });
    const reply = await stats('bad', query);
    expect({ status: reply.status, body: reply.json }).toEqual({ status: 400, body: RANGE_ERROR });
  });

  test('the same answer whether clicks are still in the log or moved; both parts add up', async () => {
    const { app, client, stats, csv, visit, record } = await setup(mode, {
      store: await storeMovedByHand(),
    });
    const link = await client.link('https://example.com/', { custom_code: 'both', source: 'ad' });
    const ago2 = noonDaysAgo(2);
    const chromeFromA = { source: 'ad', userAgent: UA.chrome, country: 'FR' };
    await record([
      click(link.id, ago2, { ...chromeFromA, referrer: 'https://a.example/x' }),
      click(link.id, ago2, { ...chromeFromA, referrer: 'https://a.example/x' }),
      click(link.id, ago2, { source: 'ad', userAgent: UA.googlebot }),
    ]);
    await visit('/both?source=mail', PEERS.us, { 'user-agent': UA.chrome });
    const range = `?from=${dateOf(ago2)}&to=${dateOf(Date.now())}`;

    expect(await inLog(app)).toBe(4);
    const fromLog = await stats('both', range);
    const csvFromLog = await csv('both');
    expect(await app.store.rollUpClicks()).toBe(4);
    expect(await inLog(app)).toBe(0);
    // Byte for byte: the order of keys and of entries is part of the answer.
    expect((await stats('both', range)).text).toBe(fromLog.text);
    expect((await csv('both')).text).toBe(csvFromLog.text);

    // More clicks, on a day already rolled up and on others: moved and unmoved add up.
    await record([
      click(link.id, ago2, { ...chromeFromA, referrer: 'https://a.example/y' }),
      click(link.id, noonDaysAgo(1), {
        source: 'ad',
        userAgent: UA.iphone,
        referrer: 'https://b.example/',
        country: 'DE',
      }),
    ]);
    await visit('/both?source=mail', PEERS.us, { 'user-agent': UA.iphone });
    expect(await inLog(app)).toBe(3);
    const mixed = await stats('both', range);
    expect(mixed.json).toEqual({
      short_code: 'both',
      domain: 'kurz.test',
      from: dateOf(ago2),
      to: dateOf(Date.now()),
      clicks: 7,
      range: { clicks: 7, humans: 6, bots: 1 },
      days: [
        { date: dateOf(ago2), clicks: 4, humans: 3, bots: 1 },
        { date: dateOf(noonDaysAgo(1)), clicks: 1, humans: 1, bots: 0 },
        { date: dateOf(Date.now()), clicks: 2, humans: 2, bots: 0 },
      ],
      top: {
        sources: [{ value: 'ad', clicks: 7 }],
        query_sources: mode === 'accounts' ? [{ value: 'mail', clicks: 2 }] : [],
        referrers: [
          { value: 'a.example', clicks: 3 },
          { value: 'direct', clicks: 3 },
          { value: 'b.example', clicks: 1 },
        ],
        browsers: [
          { value: 'Chrome', clicks: 4 },
          { value: 'Mobile Safari', clicks: 2 },
          { value: 'Unknown', clicks: 1 },
        ],
        operating_systems: [
          { value: 'Windows', clicks: 4 },
          { value: 'iOS', clicks: 2 },
          { value: 'Unknown', clicks: 1 },
        ],
        devices: [
          { value: 'desktop', clicks: 4 },
          { value: 'mobile', clicks: 2 },
          { value: 'bot', clicks: 1 },
        ],
        countries: [
          { value: 'FR', clicks: 3 },
          { value: 'US', clicks: 2 },
          { value: 'DE', clicks: 1 },
          { value: 'unknown', clicks: 1 },
        ],
        routes: [{ value: 'default', clicks: 7 }],
      },
    });
    const csvMixed = await csv('both');
    expect(csvMixed.text.split('\n')).toHaveLength(1 + 7 + 1);
    expect(await app.store.rollUpClicks()).toBe(3);
    expect((await stats('both', range)).text).toBe(mixed.text);
    expect((await csv('both')).text).toBe(csvMixed.text);
  });
});

describe('who may see a link’s traffic', () => {
  test('accounts mode: the owner only; another user’s link is 404, no or a bad token 401', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    const bob = await app.user();
    await ann.link('https://example.com/', { custom_code: 'anns' });
    await app.get('/anns');
    for (const path of ['/api/links/anns/stats', '/api/links/anns/clicks.csv']) {
      expect((await app.get(path, { token: ann.token })).status).toBe(200);
      const replies = {
        bob: await app.get(path, { token: bob.token }),
        none: await app.get(path),
        bad: await app.get(path, { token: 'not.a.token' }),
      };
      expect({
        bob: [replies.bob.status, replies.bob.json],
        none: [replies.none.status, replies.none.json],
        bad: [replies.bad.status, replies.bad.json],
      }).toEqual({
        bob: [404, { error: 'Not found' }],
        none: [401, { error: 'Unauthorized' }],
        bad: [401, { error: 'Unauthorized' }],
      });
    }
    // With a range too: another user's link is 404, whatever its traffic.
    const withRange = await app.get('/api/links/anns/stats?from=2025-01-01&to=2025-01-02', {
      token: bob.token,
    });
    expect([withRange.status, withRange.json]).toEqual([404, { error: 'Not found' }]);
  });

  test.each(MODES)('%s mode: an unknown code is 404', async (mode) => {
    const { stats, csv } = await setup(mode);
    for (const reply of [await stats('nosuch'), await csv('nosuch')]) {
      expect([reply.status, reply.json]).toEqual([404, { error: 'Not found' }]);
    }
  });

  test('open mode: open to anyone, without a token', async () => {
    const app = await TestApp.init('open');
    await app.anonymous().link('https://example.com/', { custom_code: 'pub' });
    await app.get('/pub');
    const stats = await app.get('/api/links/pub/stats');
    expect(stats.status).toBe(200);
    expect(stats.json.clicks).toBe(1);
    const csv = await app.get('/api/links/pub/clicks.csv');
    expect(csv.status).toBe(200);
    expect(csv.text.split('\n')).toHaveLength(3);
  });
});

describe('GET /api/links/{code}/clicks.csv', () => {
  test('RFC 4180 with a header row, one line per click oldest first, moved or not', async () => {
    const { app, client, csv, record } = await setup('accounts', {
      store: await storeMovedByHand(),
    });
    const source = 'He said "hi", twice';
    const link = await client.link('https://example.com/', { custom_code: 'quoted', source });
    await record([
      click(link.id, '2025-03-01T09:00:00.000Z', {
        source,
        querySource: 'spring',
        referrer: 'https://news.example.com/a,b',
        userAgent: UA.chrome,
        country: 'US',
      }),
      click(link.id, '2025-03-01T10:00:00.000Z', { source, userAgent: UA.googlebot }),
    ]);
    expect(await app.store.rollUpClicks()).toBe(2);
    await record([
      click(link.id, '2025-03-02T08:30:00.000Z', {
        source,
        referrer: 'android-app://com.google.android.gm/',
        userAgent: UA.iphone,
        country: 'DE',
      }),
    ]);
    expect(await inLog(app)).toBe(1);

    const reply = await csv('quoted');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(reply.headers.get('content-disposition')).toBe(
      'attachment; filename="quoted-clicks.csv"',
    );
    expect(reply.headers.get('cache-control')).toBe('private, no-store');
    expect(reply.text).toBe(
      [
        'time,source,query_source,referrer,referrer_host,browser,os,device,country,bot,route',
        '2025-03-01T09:00:00.000Z,"He said ""hi"", twice",spring,"https://news.example.com/a,b",news.example.com,Chrome,Windows,desktop,US,false,default',
        '2025-03-01T10:00:00.000Z,"He said ""hi"", twice",,,direct,Unknown,Unknown,bot,unknown,true,default',
        '2025-03-02T08:30:00.000Z,"He said ""hi"", twice",,android-app://com.google.android.gm/,android-app://com.google.android.gm,Mobile Safari,iOS,mobile,DE,false,default',
        '',
      ].join('\n'),
    );
  });

  test('a field a spreadsheet would run as a formula is prefixed with an apostrophe', async () => {
    const { client, csv, record } = await setup('accounts');
    const source = '=HYPERLINK("https://evil.example","click")';
    const link = await client.link('https://example.com/', { custom_code: 'formula', source });
    await record([
      click(link.id, '2025-03-01T12:00:00.000Z', { source, querySource: '+1+2' }),
      click(link.id, '2025-03-01T12:00:01.000Z', { source, querySource: '-2+3' }),
      click(link.id, '2025-03-01T12:00:02.000Z', { source, querySource: '@SUM(A1)' }),
    ]);
    expect((await csv('formula')).text.split('\n').slice(1)).toEqual([
      `2025-03-01T12:00:00.000Z,"'=HYPERLINK(""https://evil.example"",""click"")",'+1+2,,direct,Unknown,Unknown,unknown,unknown,false,default`,
      `2025-03-01T12:00:01.000Z,"'=HYPERLINK(""https://evil.example"",""click"")",'-2+3,,direct,Unknown,Unknown,unknown,unknown,false,default`,
      `2025-03-01T12:00:02.000Z,"'=HYPERLINK(""https://evil.example"",""click"")",'@SUM(A1),,direct,Unknown,Unknown,unknown,unknown,false,default`,
      '',
    ]);
  });

  test('a link without clicks is the header row alone', async () => {
    const { client, csv } = await setup('accounts');
    await client.link('https://example.com/', { custom_code: 'quiet' });
    expect((await csv('quiet')).text).toBe(
      'time,source,query_source,referrer,referrer_host,browser,os,device,country,bot,route\n',
    );
  });

  test('4,500 clicks (more than two chunks of 2,000), moved and unmoved, come out whole and in order', async () => {
    const { app, client, csv, record } = await setup('accounts', {
      store: await storeMovedByHand(),
    });
    const link = await client.link('https://example.com/', { custom_code: 'big' });
    const start = Date.parse('2025-04-01T00:00:00.000Z');
    const clicks = Array.from({ length: 4500 }, (_, i) =>
      click(link.id, start + i * 1000, { source: `s${i}` }),
    );
    await record(clicks.slice(0, 2500));
    expect(await app.store.rollUpClicks()).toBe(2500);
    await record(clicks.slice(2500));
    expect(await inLog(app)).toBe(2000);

    const lines = (await csv('big')).text.split('\n');
    expect(lines[0]).toBe(
      'time,source,query_source,referrer,referrer_host,browser,os,device,country,bot,route',
    );
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(1, -1).map((line) => line.split(',').slice(0, 2).join(','))).toEqual(
      clicks.map((c) => `${new Date(c.createdAt).toISOString()},${c.source}`),
    );
  });
});

/** Every `table.column` of the app's database (all tables, all columns, as text) whose value holds or equals `value`. */
async function columnsWith(app: TestApp, value: string, how: 'holds' | 'equals') {
  const match = how === 'holds' ? 'LIKE ?' : '= ?';
  const param = how === 'holds' ? `%${value}%` : value;
  const found: string[] = [];
  const places: { database: string; table: string; column: string }[] = [];
  if (app.store.kind === 'sqlite') {
    for (const { name: database } of await app.query<{ name: string }>(
      'SELECT name FROM pragma_database_list',
    )) {
      const tables = await app.query<{ name: string }>(
        `SELECT name FROM "${database}".sqlite_master WHERE type = 'table'`,
      );
      for (const { name: table } of tables) {
        const columns = await app.query<{ name: string }>(
          'SELECT name FROM pragma_table_info(?, ?)',
          [table, database],
        );
        for (const { name: column } of columns) places.push({ database, table, column });
      }
    }
  } else {
    const columns = await app.query<{ table: string; column: string }>(
      `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
       WHERE table_schema = current_schema()`,
    );
    for (const { table, column } of columns) places.push({ database: 'main', table, column });
  }
  expect(places.length).toBeGreaterThan(20);
  for (const { database, table, column } of places) {
    const [row] = await app.query<{ n: number }>(
      app.store.kind === 'sqlite'
        ? `SELECT count(*) AS n FROM "${database}"."${table}" WHERE CAST("${column}" AS TEXT) ${match}`
        : `SELECT count(*) AS n FROM "${table}" WHERE "${column}"::text ${match}`,
      [param],
    );
    if ((row?.n ?? 0) > 0)
      found.push(`${database === 'main' ? '' : `${database}.`}${table}.${column}`);
  }
  return found.sort();
}

describe.each(MODES)('the client address (%s mode)', (mode) => {
  test('is never stored: no column of any table holds it, before or after the rollup; its country is', async () => {
    const { app, client, visit, csv } = await setup(mode, { store: await storeMovedByHand() });
    await client.link('https://example.com/', { custom_code: 'where' });
    await visit('/where?source=x', PEERS.documentation, { 'user-agent': UA.chrome });
    await visit('/where', PEERS.us, { 'user-agent': UA.iphone, referer: 'https://r.example/' });
    await visit('/where', '2a00:1450:4001::1');
    const addresses = {
      // As text, and 203.0.113.9 and 8.8.8.8 as the integers an IPv4 address also is.
      holds: ['203.0.113.9', '8.8.8.8', '2a00:1450:4001'],
      equals: ['3405803785', '134744072'],
    };
    const nowhere = async () => {
      for (const how of ['holds', 'equals'] as const) {
        for (const address of addresses[how]) {
          expect({ address, columns: await columnsWith(app, address, how) }).toEqual({
            address,
            columns: [],
          });
        }
      }
    };

    await nowhere();
    // The log holds it, and its count among the clicks not rolled up yet.
    expect(await columnsWith(app, 'US', 'equals')).toEqual([
      'clicks.country',
      'pending_values.value',
    ]);
    await app.store.rollUpClicks();
    await nowhere();
    expect(await columnsWith(app, 'US', 'equals')).toEqual([
      'click_records.country',
      'click_strings.value',
    ]);
    expect(
      (await csv('where')).text
        .split('\n')
        .slice(1, -1)
        .map((line) => line.split(',').at(-3)),
    ).toEqual(['unknown', 'US', 'IE']);
  });

  test('behind a reverse proxy, X-Forwarded-For gives the country only when the proxy is trusted', async () => {
    const countriesOf = async (options: AppOptions, peer: string) => {
      const { app, client, visit } = await setup(mode, options);
      const link = await client.link('https://example.com/', { custom_code: 'fwd' });
      await visit('/fwd', peer, { 'x-forwarded-for': PEERS.us });
      return (await app.clickRecords(link.id)).map((r) => r.country);
    };
    const trusted = { trustedProxies: ['10.0.0.0/8'] };
    expect({
      untrustedPeer: await countriesOf({}, PEERS.au),
      untrustedPrivatePeer: await countriesOf({}, '10.0.0.2'),
      trustedProxy: await countriesOf(trusted, '10.0.0.2'),
      peerNotAmongTheTrusted: await countriesOf(trusted, PEERS.au),
    }).toEqual({
      untrustedPeer: ['AU'],
      untrustedPrivatePeer: [null],
      trustedProxy: ['US'],
      peerNotAmongTheTrusted: ['AU'],
    });
  });
});

describe('click retention', () => {
  test.each(MODES)(
    '%s mode: pruning removes moved click records before a moment; the day rollups and stats stay',
    async (mode) => {
      const { app, client, stats, csv, record } = await setup(mode, {
        store: await storeMovedByHand(),
      });
      const link = await client.link('https://example.com/', { custom_code: 'old' });
      await record([
        click(link.id, '2025-01-01T10:00:00.000Z', { source: 'first', country: 'FR' }),
        click(link.id, '2025-01-01T23:59:59.999Z', { source: 'second', userAgent: UA.googlebot }),
        click(link.id, '2025-01-02T00:00:00.000Z', { source: 'third', country: 'DE' }),
      ]);
      await app.store.rollUpClicks();
      // Still in the log, not yet a record: retention only removes records.
      await record([click(link.id, '2025-01-01T12:00:00.000Z', { source: 'late' })]);
      const range = '?from=2025-01-01&to=2025-01-02';
      const before = await stats('old', range);
      expect(before.json.range).toEqual({ clicks: 4, humans: 3, bots: 1 });

      expect(await app.store.pruneClickRecords(Date.parse('2025-01-02T00:00:00.000Z'))).toBe(2);
      expect((await stats('old', range)).json).toEqual(before.json);
      expect(
        (await csv('old')).text
          .split('\n')
          .slice(1, -1)
          .map((line) => line.split(',')[1]),
      ).toEqual(['third', 'late']);
      expect(await app.store.pruneClickRecords(Date.parse('2025-01-02T00:00:00.000Z'))).toBe(0);
    },
  );

  const retention = (argv: string[], env: Record<string, string> = {}) => {
    const command = parseCommandLine(argv, env);
    if (!('config' in command)) throw new Error(command.kind);
    return command.config.clickRetentionDays;
  };

  test('--click-retention-days N or KURZ_CLICK_RETENTION_DAYS: whole days, 0 (the default) keeps records forever', () => {
    expect(retention([])).toBe(0);
    expect(retention(['--click-retention-days', '30'])).toBe(30);
    expect(retention(['--click-retention-days=0'])).toBe(0);
    expect(retention([], { KURZ_CLICK_RETENTION_DAYS: '7' })).toBe(7);
    expect(retention(['--click-retention-days', '30'], { KURZ_CLICK_RETENTION_DAYS: '7' })).toBe(
      30,
    );
  });

  test.each(['-1', 'thirty', '1.5', '', '1e3', ' 30'])(
    '--click-retention-days %p is refused',
    (value) => {
      expect(() => retention(['--click-retention-days', value])).toThrow(
        new ConfigError(
          `--click-retention-days must be a number of days (0 keeps records forever) (got "${value}")`,
        ),
      );
    },
  );

  test('KURZ_CLICK_RETENTION_DAYS=-1 is refused', () => {
    expect(() => retention([], { KURZ_CLICK_RETENTION_DAYS: '-1' })).toThrow(
      'must be a number of days (0 keeps records forever) (got "-1")',
    );
  });
});
