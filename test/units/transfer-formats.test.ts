// What `kurz import` reads, before anything is stored: each format it knows, told from
// its first lines and read from a realistic sample (the columns its own code and
// documentation give), CSV and JSON read from text cut anywhere, bad rows with their
// line, dates as each shortener writes them, and CSV fields that no spreadsheet runs.

import { describe, expect, test } from 'bun:test';
import type { FormatName } from '../../src/transfer/columns.ts';
import { csvField, csvLine, csvRecords, fromCsvField } from '../../src/transfer/csv.ts';
import { parseFileDate } from '../../src/transfer/dates.ts';
import type { Entry, LinkEntry } from '../../src/transfer/entries.ts';
import { readInput } from '../../src/transfer/formats.ts';
import { jsonObjects } from '../../src/transfer/json-objects.ts';

/** Text as a stream of chunks of `size` characters: every reader must cope with any cut. */
async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function read(text: string, from?: FormatName, size = 5) {
  const input = await readInput(chunked(text, size), from);
  const entries: Entry[] = [];
  for await (const entry of input.entries) entries.push(entry);
  return { format: input.format, description: input.description, entries };
}

const at = (iso: string) => Date.parse(iso);

/** A link entry with the defaults of a row that gives nothing but its code and URL. */
const link = (
  line: number,
  code: string | undefined,
  url: string,
  more: Partial<LinkEntry> = {},
): LinkEntry => ({
  kind: 'link',
  line,
  code,
  domain: null,
  url,
  createdAt: undefined,
  source: null,
  expiresAt: null,
  maxClicks: null,
  limitedClicks: 0,
  passwordHash: null,
  tags: [],
  ...more,
});

describe('formats, each from a realistic sample', () => {
  test('YOURLS: its yourls_url table as CSV with a header, quoted fields and all', async () => {
    const file = [
      'keyword,url,title,timestamp,ip,clicks',
      'ozh,https://ozh.org/,"Ozh, ""the"" blog",2023-01-05 10:00:00,127.0.0.1,120',
      'yt,https://www.youtube.com/watch?v=dQw4w9WgXcQ,"Line one',
      'line two",2024-02-29 23:59:59,2001:db8::1,3',
      '',
    ].join('\r\n');
    const { format, description, entries } = await read(file);
    expect([format, description]).toEqual(['yourls', 'YOURLS CSV']);
    expect(entries).toEqual([
      link(2, 'ozh', 'https://ozh.org/', { createdAt: at('2023-01-05T10:00:00Z') }),
      link(3, 'yt', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', {
        createdAt: at('2024-02-29T23:59:59Z'),
      }),
    ]);
  });

  test('YOURLS: the table without a header, as a database tool writes it with ;', async () => {
    const file =
      '"promo";"https://shop.example/sale";"Sale";"2022-11-25 08:00:00";"10.0.0.1";"42"\n' +
      '"docs";"https://docs.example/";"";"2022-11-26 09:30:00";"10.0.0.2";"0"\n';
    const { format, description, entries } = await read(file);
    expect([format, description]).toEqual(['yourls', 'YOURLS CSV without a header']);
    expect(entries.map((e) => (e.kind === 'link' ? [e.line, e.code, e.createdAt] : e))).toEqual([
      [1, 'promo', at('2022-11-25T08:00:00Z')],
      [2, 'docs', at('2022-11-26T09:30:00Z')],
    ]);
  });

  test('Kutt: a page of its API (/api/v2/links), the code in address; protected and banned links refused', async () => {
    const file = JSON.stringify(
      {
        limit: 10,
        skip: 0,
        total: 3,
        data: [
          {
            id: '7d1f4c2a-3b9e-4c8e-9a51-0e8b2f6d1c3a',
            address: 'gh',
            banned: false,
            created_at: '2024-05-01T12:00:00.000Z',
            updated_at: '2024-05-02T12:00:00.000Z',
            description: 'my repo',
            expire_in: '2030-01-01T00:00:00.000Z',
            link: 'https://kutt.it/gh',
            password: false,
            target: 'https://github.com/thedevs-network/kutt',
            visit_count: 17,
            domain: null,
          },
          {
            id: 'b2',
            address: 'secret',
            banned: false,
            created_at: '2024-05-01T12:00:00.000Z',
            link: 'https://kutt.it/secret',
            password: true,
            target: 'https://example.com/s',
            visit_count: 0,
          },
          {
            id: 'b3',
            address: 'spam',
            banned: true,
            created_at: '2024-05-01T12:00:00.000Z',
            link: 'https://kutt.it/spam',
            password: false,
            target: 'https://spam.example/',
            visit_count: 0,
          },
        ],
      },
      null,
      2,
    );
    const { format, description, entries } = await read(file, undefined, 7);
    expect([format, description]).toEqual(['kutt', 'Kutt JSON']);
    expect(entries).toEqual([
      link(6, 'gh', 'https://github.com/thedevs-network/kutt', {
        createdAt: at('2024-05-01T12:00:00Z'),
        expiresAt: at('2030-01-01T00:00:00Z'),
      }),
      {
        kind: 'bad',
        line: 20,
        reason: 'the link has a password in Kutt, which its export does not carry',
      },
      { kind: 'bad', line: 30, reason: 'the link was banned in Kutt' },
    ]);
  });

  test('Kutt: an answer saved on one line, longer than the part read to tell its format', async () => {
    const data = Array.from({ length: 1000 }, (_, i) => ({
      id: `uuid-${i}`,
      address: `k${i}`,
      target: `https://example.com/${'x'.repeat(60)}/${i}`,
      created_at: '2024-05-01T12:00:00.000Z',
      visit_count: i,
      password: false,
      banned: false,
    }));
    const file = JSON.stringify({ limit: 1000, skip: 0, total: 1000, data });
    expect(file.length).toBeGreaterThan(64 * 1024);
    const { format, description, entries } = await read(file, undefined, 4096);
    expect([format, description, entries.length]).toEqual(['kutt', 'Kutt JSON', 1000]);
    expect(entries.at(-1)).toMatchObject({ kind: 'link', code: 'k999' });
  });

  test('Kutt: its link objects as CSV, the code taken from the short link when address is empty', async () => {
    const file =
      'id,address,target,visit_count,created_at,link\n' +
      'u1,,https://example.org/a,3,2024-05-01T12:00:00Z,https://kutt.it/fromlink\n';
    const { format, entries } = await read(file);
    expect(format).toBe('kutt');
    expect(entries).toEqual([
      // No domain column: the short link's host names the domain.
      link(2, 'fromlink', 'https://example.org/a', {
        createdAt: at('2024-05-01T12:00:00Z'),
        domain: 'kutt.it',
      }),
    ]);
  });

  test('Shlink: the web client’s CSV export (short_urls.csv), dates with offsets, its domain and tags', async () => {
    const file =
      'createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits\n' +
      '2021-03-01T10:20:30+01:00,s.test,abc,https://s.test/abc,https://example.org/1,First,a|b,4\n' +
      '2021-03-02T00:00:00-05:00,s.test,,https://s.test/from-url,https://example.org/2,,,0\n';
    const { format, description, entries } = await read(file);
    expect([format, description]).toEqual(['shlink', 'Shlink CSV']);
    expect(entries).toEqual([
      link(2, 'abc', 'https://example.org/1', {
        createdAt: at('2021-03-01T09:20:30Z'),
        domain: 's.test',
        tags: ['a', 'b'],
      }),
      link(3, 'from-url', 'https://example.org/2', {
        createdAt: at('2021-03-02T05:00:00Z'),
        domain: 's.test',
      }),
    ]);
  });

  test('Shlink: the CSV shlink-importer reads (no dates), and its API’s short URLs with their limits', async () => {
    // An empty domain is Shlink's default one; tags separated by |, or by , (older exports).
    const csv = await read(
      'longUrl,shortCode,domain,title,tags\nhttps://example.org/x,x1,,,\nhttps://example.org/y,y1,go.example.com,,"Promo, q1"\n',
    );
    expect(csv.format).toBe('shlink');
    expect(csv.entries).toEqual([
      link(2, 'x1', 'https://example.org/x'),
      link(3, 'y1', 'https://example.org/y', { domain: 'go.example.com', tags: ['Promo', 'q1'] }),
    ]);
    const api = JSON.stringify({
      shortUrls: {
        data: [
          {
            shortCode: 'lim',
            shortUrl: 'https://s.test/lim',
            longUrl: 'https://example.org/lim',
            dateCreated: '2022-01-01T00:00:00+00:00',
            visitsSummary: { total: 7, nonBots: 6, bots: 1 },
            tags: ['x'],
            meta: { validSince: null, validUntil: '2030-01-01T00:00:00+00:00', maxVisits: 10 },
            domain: null,
            title: null,
            crawlable: false,
            forwardQuery: true,
          },
          {
            shortCode: 'old',
            longUrl: 'https://example.org/old',
            dateCreated: '2020-01-01T00:00:00+00:00',
            visitsCount: 12,
            meta: { maxVisits: 5 },
          },
        ],
        pagination: { currentPage: 1, pagesCount: 1, itemsPerPage: 10, itemsInCurrentPage: 2 },
      },
    });
    const { format, entries } = await read(api, undefined, 11);
    expect(format).toBe('shlink');
    expect(entries).toEqual([
      // domain: null is Shlink's default domain, whatever the short URL's host.
      link(1, 'lim', 'https://example.org/lim', {
        createdAt: at('2022-01-01T00:00:00Z'),
        expiresAt: at('2030-01-01T00:00:00Z'),
        maxClicks: 10,
        limitedClicks: 7,
        tags: ['x'],
      }),
      // Past its limit in Shlink: past it in kurz too.
      link(1, 'old', 'https://example.org/old', {
        createdAt: at('2020-01-01T00:00:00Z'),
        maxClicks: 5,
        limitedClicks: 5,
      }),
    ]);
  });

  test('Bitly: its link export as CSV, the custom back-half preferred to the generated one', async () => {
    const file =
      'Title,Link,Custom Link,Destination URL,Date Created,Tags,Clicks\n' +
      'Spring sale,https://bit.ly/3xYzAbC,https://bit.ly/spring-sale,https://shop.example/spring,2024-03-05 14:23:01,promo,1520\n' +
      'Docs,go.brand.example/4dEfGhI,,https://docs.example/start,2024-03-06T09:00:00+0000,,7\n';
    const { format, description, entries } = await read(file);
    expect([format, description]).toEqual(['bitly', 'Bitly CSV']);
    expect(entries).toEqual([
      // The domain is the short link's host: Bitly's own, or a custom one.
      link(2, 'spring-sale', 'https://shop.example/spring', {
        createdAt: at('2024-03-05T14:23:01Z'),
        domain: 'bit.ly',
      }),
      link(3, '4dEfGhI', 'https://docs.example/start', {
        createdAt: at('2024-03-06T09:00:00Z'),
        domain: 'go.brand.example',
      }),
    ]);
  });

  test('Bitly: other names for its columns, and a short link with a broken escape', async () => {
    const file =
      'Short URL,Long URL,Created\n' +
      'https://bit.ly/ok,https://example.net/ok,2024-03-05\n' +
      'https://bit.ly/bad%zz,https://example.net/bad,2024-03-05\n';
    const { format, entries } = await read(file);
    expect(format).toBe('bitly');
    expect(entries.map((e) => (e.kind === 'link' ? [e.code, e.createdAt] : e))).toEqual([
      ['ok', at('2024-03-05T00:00:00Z')],
      // Left as written: kurz's code rules then refuse it as a conflict.
      ['bad%zz', at('2024-03-05T00:00:00Z')],
    ]);
  });

  test('Bitly: its API’s bitlinks (long_url, link, custom_bitlinks), as a list of objects', async () => {
    const file = JSON.stringify({
      links: [
        {
          created_at: '2020-10-26T17:20:40+0000',
          id: 'bit.ly/3kXyZ12',
          link: 'https://bit.ly/3kXyZ12',
          custom_bitlinks: ['https://bit.ly/my-custom-url'],
          long_url: 'https://www.youtube.com/watch?v=abc',
          archived: false,
          tags: [],
        },
      ],
      pagination: { next: '' },
    });
    const { format, entries } = await read(file);
    expect(format).toBe('bitly');
    expect(entries).toEqual([
      link(1, 'my-custom-url', 'https://www.youtube.com/watch?v=abc', {
        createdAt: at('2020-10-26T17:20:40Z'),
        domain: 'bit.ly',
      }),
    ]);
  });

  test('kurz: its own JSON Lines of version 1, header first, click records after their link: all on the default domain, without tags', async () => {
    const file = [
      '{"kurz_export":1,"kurz_version":"0.1.0","exported_at":"2026-11-21T09:30:00.000Z","clicks":true}',
      '{"code":"ann-1","url":"https://example.com/ä","created_at":"2026-11-20T09:30:00.000Z","owner":"ann@example.com","source":"news","expires_at":"2027-01-01T00:00:00.000Z","max_clicks":100,"limited_clicks":3,"password_hash":"$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA","clicks":3,"later_field":true}',
      '{"click":"ann-1","at":"2026-11-20T10:00:00.000Z","source":"news","query_source":null,"referrer":"https://ref.example/","user_agent":"Mozilla/5.0","country":"FR"}',
      '{"code":"open1","url":"https://example.com/o","created_at":"2026-11-19T00:00:00.000Z","owner":null,"source":null,"expires_at":null,"max_clicks":null,"limited_clicks":0,"password_hash":null,"clicks":0}',
      '',
    ].join('\n');
    const { format, description, entries } = await read(file);
    expect([format, description]).toEqual(['kurz', 'kurz export (JSON Lines, version 1)']);
    expect(entries).toEqual([
      link(2, 'ann-1', 'https://example.com/ä', {
        createdAt: at('2026-11-20T09:30:00Z'),
        owner: 'ann@example.com',
        source: 'news',
        expiresAt: at('2027-01-01T00:00:00Z'),
        maxClicks: 100,
        limitedClicks: 3,
        passwordHash: '$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA',
      }),
      {
        kind: 'click',
        line: 3,
        code: 'ann-1',
        domain: null,
        createdAt: at('2026-11-20T10:00:00Z'),
        source: 'news',
        querySource: null,
        referrer: 'https://ref.example/',
        userAgent: 'Mozilla/5.0',
        country: 'FR',
      },
      link(4, 'open1', 'https://example.com/o', {
        createdAt: at('2026-11-19T00:00:00Z'),
        owner: null,
      }),
    ]);
  });

  test('kurz: JSON Lines of version 2, each link and click record with its domain (null: the default one), links with their tags', async () => {
    const file = [
      '{"kurz_export":2,"kurz_version":"0.2.0","exported_at":"2026-11-21T09:30:00.000Z","clicks":true}',
      '{"code":"promo","domain":"go.example.com","url":"https://example.com/a","created_at":"2026-11-20T09:30:00.000Z","owner":null,"source":null,"expires_at":null,"max_clicks":null,"limited_clicks":0,"password_hash":null,"clicks":1,"tags":["q1","sale"]}',
      '{"click":"promo","domain":"go.example.com","at":"2026-11-20T10:00:00.000Z","source":null,"query_source":null,"referrer":null,"user_agent":null,"country":null}',
      '{"code":"promo","domain":null,"url":"https://example.com/b","created_at":"2026-11-19T00:00:00.000Z","owner":null,"source":null,"expires_at":null,"max_clicks":null,"limited_clicks":0,"password_hash":null,"clicks":0,"tags":[]}',
      '',
    ].join('\n');
    const { description, entries } = await read(file);
    expect(description).toBe('kurz export (JSON Lines, version 2)');
    expect(entries).toEqual([
      link(2, 'promo', 'https://example.com/a', {
        domain: 'go.example.com',
        createdAt: at('2026-11-20T09:30:00Z'),
        owner: null,
        tags: ['q1', 'sale'],
      }),
      {
        kind: 'click',
        line: 3,
        code: 'promo',
        domain: 'go.example.com',
        createdAt: at('2026-11-20T10:00:00Z'),
        source: null,
        querySource: null,
        referrer: null,
        userAgent: null,
        country: null,
      },
      link(4, 'promo', 'https://example.com/b', {
        createdAt: at('2026-11-19T00:00:00Z'),
        owner: null,
      }),
    ]);
  });

  test('kurz: its CSV, the spreadsheet guard taken off again', async () => {
    const file =
      'code,url,created_at,owner,source,expires_at,max_clicks,limited_clicks,password_hash,clicks\r\n' +
      "'-dash,https://example.com/,2026-11-20T09:30:00.000Z,,'=HYPERLINK(1),,,0,,0\r\n";
    const { format, description, entries } = await read(file);
    expect([format, description]).toEqual(['kurz', 'kurz export CSV']);
    expect(entries).toEqual([
      link(2, '-dash', 'https://example.com/', {
        createdAt: at('2026-11-20T09:30:00Z'),
        owner: null,
        source: '=HYPERLINK(1)',
      }),
    ]);
    // Since version 2: its domain (empty: the default one) and its tags joined by |.
    const withDomains =
      'code,url,created_at,owner,source,expires_at,max_clicks,limited_clicks,password_hash,clicks,domain,tags\r\n' +
      'a1,https://example.com/1,2026-11-20T09:30:00.000Z,,,,,0,,0,go.example.com,q1|sale\r\n' +
      'a1,https://example.com/2,2026-11-20T09:30:00.000Z,,,,,0,,0,,\r\n';
    expect((await read(withDomains)).entries).toEqual([
      link(2, 'a1', 'https://example.com/1', {
        createdAt: at('2026-11-20T09:30:00Z'),
        owner: null,
        domain: 'go.example.com',
        tags: ['q1', 'sale'],
      }),
      link(3, 'a1', 'https://example.com/2', {
        createdAt: at('2026-11-20T09:30:00Z'),
        owner: null,
      }),
    ]);
  });

  test('the quick reading of a file’s domains gives each link row’s, as its entries do, without bad rows or click records', async () => {
    const files = [
      'createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits\n' +
        '2021-03-01T10:20:30+01:00,s.test,abc,https://s.test/abc,https://example.org/1,,,4\n' +
        'short,row\n' +
        '2021-03-01T10:20:30+01:00,,def,https://s.test/def,https://example.org/2,,,0\n',
      'Link,Destination URL\nhttps://bit.ly/a,https://example.org/a\ngo.brand.example/b,https://example.org/b\n',
      [
        '{"kurz_export":2,"clicks":true}',
        '{"code":"a","domain":"go.example.com","url":"https://example.com/a","password_hash":null}',
        '{"click":"a","domain":"go.example.com","at":"2026-11-20T10:00:00.000Z"}',
        'not json',
        '{"code":"b","url":"https://example.com/b","password_hash":null}',
      ].join('\n'),
      JSON.stringify({
        shortUrls: {
          data: [
            { shortCode: 'x', longUrl: 'https://e.org/', domain: null },
            { shortCode: 'y', longUrl: 'https://e.org/', shortUrl: 'https://s.test/y' },
          ],
        },
      }),
    ];
    for (const file of files) {
      const fromEntries = (await read(file)).entries.flatMap((e) =>
        e.kind === 'link' ? [e.domain] : [],
      );
      const input = await readInput(chunked(file, 7), undefined);
      const domains: (string | null)[] = [];
      for await (const domain of input.domains) domains.push(domain);
      expect(domains).toEqual(fromEntries);
    }
    // A row bad for what it holds (no URL, say) still names its domain, and is counted.
    const noUrl = await readInput(
      chunked('shortCode,longUrl,domain\nx,,go.example.com\n', 7),
      undefined,
    );
    for await (const domain of noUrl.domains) expect(domain).toBe('go.example.com');
  });

  test('--from reads a file as the format given, whatever its first line says', async () => {
    const { format, entries } = await read('keyword,url\nabc,https://example.com/\n', 'yourls');
    expect(format).toBe('yourls');
    expect(entries).toEqual([link(2, 'abc', 'https://example.com/')]);
  });
});

describe('files kurz cannot read, and rows it skips', () => {
  test('an unknown format, an empty file, a newer export and missing columns are refused whole', async () => {
    await expect(read('name,address\nx,y\n')).rejects.toThrow(
      'the format was not recognised from the first line (name, address); give --from',
    );
    await expect(read('\n\n')).rejects.toThrow('the file is empty');
    await expect(read('{"kurz_export":3,"clicks":false}\n')).rejects.toThrow(
      'the file was written by a newer kurz (export version 3); this kurz reads version 2',
    );
    await expect(read('title,clicks\nx,1\n', 'shlink')).rejects.toThrow(
      'the first line must name the columns of a Shlink CSV',
    );
    await expect(read('{"foo":1}\n')).rejects.toThrow(
      'the format was not recognised from the fields of line 1 (foo); give --from',
    );
  });

  test('bad rows come with their line: wrong field count, no URL, a bad date, broken JSON', async () => {
    const csv = await read(
      'keyword,url,title,timestamp,ip,clicks\n' +
        'a,https://example.com/a,t,2023-01-05 10:00:00,ip,1\n' +
        'b,https://example.com/b,t\n' +
        'c,,t,2023-01-05 10:00:00,ip,1\n' +
        'd,https://example.com/d,t,yesterday,ip,1\n' +
        'e,https://example.com/e,t,2023-02-30 10:00:00,ip,1\n' +
        'f,https://example.com/f,t,,ip,1\n',
    );
    expect(csv.entries.map((e) => [e.line, e.kind === 'bad' ? e.reason : e.code])).toEqual([
      [2, 'a'],
      [3, '3 fields where the header has 6'],
      [4, 'no URL'],
      [5, 'the creation date "yesterday" is not a date'],
      [6, 'the creation date "2023-02-30 10:00:00" is not a date'],
      [7, 'f'],
    ]);
    const lines = await read(
      '{"kurz_export":1,"clicks":false}\n' +
        '{"code":"a","url":"https://example.com/a","created_at":"2026-01-01T00:00:00Z","password_hash":null}\n' +
        '{"code":"b","url":\n' +
        '[1,2]\n' +
        '{"code":"c","url":"https://example.com/c","created_at":"2026-01-01T00:00:00Z","max_clicks":"many"}\n' +
        '{"code":"d","url":"https://example.com/d","created_at":"2026-01-01T00:00:00Z"}\n',
    );
    expect(lines.entries.map((e) => [e.line, e.kind === 'bad' ? e.reason : e.code])).toEqual([
      [2, 'a'],
      [3, expect.stringMatching(/^not valid JSON/)],
      [4, 'not a JSON object'],
      [5, 'max_clicks "many" is not a number'],
      [6, 'd'],
    ]);
  });
});

describe('the readers underneath', () => {
  test('CSV: quoted delimiters, quotes and line breaks, CRLF cut between chunks, line numbers', async () => {
    const text = 'a,"b,1","say ""hi"""\r\n\r\n"multi\r\nline",x\r\nlast,"",\r\nend';
    for (const size of [1, 2, 3, 7, 100]) {
      const records = [];
      for await (const record of csvRecords(chunked(text, size))) records.push(record);
      expect(records).toEqual([
        { line: 1, fields: ['a', 'b,1', 'say "hi"'] },
        { line: 3, fields: ['multi\r\nline', 'x'] },
        { line: 5, fields: ['last', '', ''] },
        { line: 6, fields: ['end'] },
      ]);
    }
  });

  test('JSON documents: objects in lists, strings with braces, keys cut between chunks', async () => {
    const text = '[{"a":"}{","b":[{"deep":1}]},\n{"a":"\\"x"},\n{"bad": tru}]';
    for (const size of [1, 4, 100]) {
      const items = [];
      for await (const item of jsonObjects(chunked(text, size))) items.push(item);
      expect(items).toEqual([
        { line: 1, value: { a: '}{', b: [{ deep: 1 }] } },
        { line: 2, value: { a: '"x' } },
        { line: 3, error: expect.stringMatching(/^not valid JSON/) },
      ]);
    }
  });

  test('dates: ISO 8601 with or without a zone, MySQL DATETIME, Unix seconds and milliseconds', () => {
    expect(parseFileDate('2024-03-05T14:23:01.250Z')).toBe(at('2024-03-05T14:23:01.250Z'));
    expect(parseFileDate('2024-03-05 14:23:01')).toBe(at('2024-03-05T14:23:01Z'));
    expect(parseFileDate('2024-03-05T14:23:01+0100')).toBe(at('2024-03-05T13:23:01Z'));
    expect(parseFileDate('2024-03-05T14:23:01-05:30')).toBe(at('2024-03-05T19:53:01Z'));
    expect(parseFileDate('2024-03-05')).toBe(at('2024-03-05T00:00:00Z'));
    expect(parseFileDate('1709648581')).toBe(1_709_648_581_000);
    expect(parseFileDate(1_709_648_581_000)).toBe(1_709_648_581_000);
    for (const bad of ['0000-00-00 00:00:00', '2024-13-01', '2024-03-05 25:00', 'March 5', '']) {
      expect(parseFileDate(bad)).toBeUndefined();
    }
  });

  test('CSV fields: quoted when needed, formulas defused, and read back exactly', () => {
    expect(csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines'])).toBe(
      'plain,"a,b","say ""hi""","two\nlines"\r\n',
    );
    for (const value of ['=1+1', '+1', '-dash', '@SUM(A1)', '\tx', "'quoted", 'ok']) {
      const field = csvField(value);
      if (value !== 'ok') expect(field.replace(/^"/, '').startsWith("'")).toBe(true);
      expect(fromCsvField(field.startsWith('"') ? field.slice(1, -1) : field)).toBe(value);
    }
  });
});

describe('a record over 1 MiB is a bad row, and the rest of the file is still read', () => {
  const big = 'x'.repeat(3 * 1024 * 1024);
  const tooLong = (what: string) => `the ${what} is longer than 1 MiB (1,048,576 characters)`;
  const summary = (entries: Entry[]) =>
    entries.map((e) => [e.line, e.kind === 'bad' ? e.reason : e.kind === 'link' ? e.code : '']);

  test('CSV: a long unquoted field, and a long quoted one over several lines', async () => {
    const file =
      'keyword,url,title,timestamp,ip,clicks\n' +
      'a,https://example.com/a,t,2023-01-05 10:00:00,ip,1\n' +
      `b,https://example.com/${big},t,2023-01-05 10:00:00,ip,1\n` +
      `c,https://example.com/c,"${big}\nmore\n${big}",2023-01-05 10:00:00,ip,1\n` +
      'd,https://example.com/d,t,2023-01-05 10:00:00,ip,1\n';
    for (const size of [65_536, 1_000_003]) {
      const { entries } = await read(file, undefined, size);
      expect(summary(entries)).toEqual([
        [2, 'a'],
        [3, tooLong('record')],
        [4, `${tooLong('record')}, inside a quoted field (a quote left open?)`],
        [7, 'd'],
      ]);
    }
  });

  test('CSV: a quote left open takes in the rest of the file, said as one bad row', async () => {
    let file = 'keyword,url,title\na,https://example.com/a,"open\n';
    for (let i = 0; i < 40_000; i++) file += `r${i},https://example.com/${i},t\n`;
    const { entries } = await read(file, undefined, 65_536);
    expect(summary(entries)).toEqual([
      [2, `${tooLong('record')}, inside a quoted field (a quote left open?)`],
    ]);
  });

  test('JSON Lines: a long line; one of exactly 1 MiB is still read', async () => {
    const row = (code: string, pad = '') =>
      `{"code":"${code}","url":"https://example.com/${code}","created_at":"2026-01-01T00:00:00Z","password_hash":null,"pad":"${pad}"}`;
    const exact = row('e', 'y'.repeat(1024 * 1024 - row('e').length));
    expect(exact.length).toBe(1024 * 1024);
    const file = [
      '{"kurz_export":1,"clicks":false}',
      row('a'),
      row('b', big),
      exact,
      `${exact} `,
      row('d'),
      row('z', big),
    ].join('\n');
    const { entries } = await read(file, undefined, 65_536);
    expect(summary(entries)).toEqual([
      [2, 'a'],
      [3, tooLong('line')],
      [4, 'e'],
      [5, tooLong('line')],
      [6, 'd'],
      [7, tooLong('line')],
    ]);
  });

  test('JSON documents: a long object in the list, and a long object on its own', async () => {
    const kutt = (address: string, pad = '') =>
      `{"address":"${address}","target":"https://example.com/${address}","created_at":"2023-01-05T10:00:00Z","description":"${pad}"}`;
    const list = `{"data":[\n${kutt('a')},\n${kutt('b', big)},\n${kutt('c')}\n]}`;
    const listed = await read(list, undefined, 65_536);
    expect(summary(listed.entries)).toEqual([
      [2, 'a'],
      [3, tooLong('object')],
      [4, 'c'],
    ]);
    // Objects one after the other, the first over two lines: a document, not JSON Lines.
    const objects = `${kutt('a').replace('{', '{\n')}\n${kutt('b', big)}\n${kutt('c')}`;
    const alone = await read(objects, 'kutt', 65_536);
    expect(summary(alone.entries)).toEqual([
      [1, 'a'],
      [3, tooLong('object')],
      [4, 'c'],
    ]);
  });

  test('a header line over 1 MiB: the file is refused', async () => {
    await expect(read(`keyword,url,${big}\n`, undefined, 65_536)).rejects.toThrow(
      `line 1: ${tooLong('record')}`,
    );
  });
});
