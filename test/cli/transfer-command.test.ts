// The compiled dist/kurz export and import: their --help, their one-line refusals and
// exit codes, and their work on a database a kurz is serving, on SQLite and on
// PostgreSQL: the server redirects what was imported at once (a SQLite server forgets
// its cached links when another process commits), and a dry run leaves it as it was.

import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  BINARY,
  call,
  eventually,
  type Running,
  runKurz,
  startKurz,
  tempDir,
} from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';
import { Receiver, verifyStandardWebhook } from '../support/webhook-receiver.ts';

const PASSWORD = 'correct horse 42';

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

const YOURLS = [
  'keyword,url,title,timestamp,ip,clicks',
  'ozh,https://ozh.org/,Ozh,2023-01-05 10:00:00,127.0.0.1,120',
  'guide,https://docs.example/start,Docs,2023-01-06 11:30:00,127.0.0.1,3',
  'api,https://example.com/api,Reserved,2023-01-07 08:00:00,127.0.0.1,0',
  'broken,,No URL,2023-01-07 08:00:00,127.0.0.1,0',
  '',
].join('\n');

describe('kurz export and import, their command line', () => {
  test('kurz --help names both; each one’s --help says what it takes', async () => {
    const all = await runKurz(['--help']);
    expect(all.stdout).toContain('kurz export');
    expect(all.stdout).toContain('kurz import');
    const exportHelp = await runKurz(['export', '--help']);
    expect(exportHelp.code).toBe(0);
    for (const text of ['--format jsonl|csv', '--clicks', '--owner EMAIL', 'password hash']) {
      expect(exportHelp.stdout).toContain(text);
    }
    const importHelp = await runKurz(['import', '--help']);
    for (const text of [
      '--dry-run',
      '--rename-conflicts',
      'yourls',
      'kutt',
      'shlink',
      'bitly',
      'line number',
      'Exits 0',
    ]) {
      expect(importHelp.stdout).toContain(text);
    }
  });

  test.each([
    [
      ['import', 'f.csv', '--from', 'tinyurl'],
      2,
      'kurz: --from must be one of kurz, yourls, kutt, shlink, bitly (got "tinyurl")',
    ],
    [
      ['import', 'f.csv', '--owner', 'not-an-email'],
      2,
      'kurz: import --owner "not-an-email": Invalid email address',
    ],
    [['import', 'missing.csv'], 1, 'kurz: cannot read missing.csv: no such file'],
    [['export', '--format', 'xml'], 2, 'kurz: --format must be jsonl or csv (got "xml")'],
    [
      ['export', 'out.csv', '--clicks'],
      2,
      'kurz: --clicks needs JSON Lines: the CSV export holds links only',
    ],
    [['export', 'out.jsonl'], 1, 'kurz: the database k.db does not exist'],
  ])('%p exits %p: %p', async (args, code, message) => {
    const dir = tempDir();
    const run = await runKurz([...args, '--db', 'k.db'], { cwd: dir });
    expect([run.code, run.stderr]).toEqual([code, `${message}\n`]);
    // Nothing was written, and no database made.
    expect(existsSync(join(dir, 'out.jsonl')) || existsSync(join(dir, 'k.db'))).toBe(false);
  });

  test('an unknown owner and a file in no known format are refused in one line, importing nothing', async () => {
    const dir = tempDir();
    const db = join(dir, 'k.db');
    await Bun.write(join(dir, 'links.csv'), YOURLS);
    const owner = await runKurz(['import', 'links.csv', '--db', db, '--owner', 'zoe@example.com'], {
      cwd: dir,
    });
    expect([owner.code, owner.stderr]).toEqual([
      1,
      'kurz: no user zoe@example.com (make it with kurz user add)\n',
    ]);
    await Bun.write(join(dir, 'other.csv'), 'name,address\nx,y\n');
    const unknown = await runKurz(['import', 'other.csv', '--db', db], { cwd: dir });
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      'kurz: cannot import other.csv: the format was not recognised from the first line (name, address); give --from\n',
    ]);
    const listed = await runKurz(['export', '--db', db]);
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  test('a file’s control characters reach the terminal as escapes, never as control sequences', async () => {
    const dir = tempDir();
    const db = join(dir, 'k.db');
    // Would set the terminal's title and clear its screen if printed raw.
    await Bun.write(join(dir, 'a.csv'), '\x1b]0;PWNED\x07\x1b[2J,x\n');
    const refused = await runKurz(['import', 'a.csv', '--db', db], { cwd: dir });
    expect([refused.code, refused.stderr]).toEqual([
      1,
      'kurz: cannot import a.csv: the format was not recognised from the first line (\\x1b]0;PWNED\\x07\\x1b[2J, x); give --from\n',
    ]);
    // A row's report quotes its URL; the C1 CSI (U+009B) is a control sequence too.
    await Bun.write(
      join(dir, 'rows.csv'),
      'keyword,url,title,timestamp,ip,clicks\nbad,\x1b[2Jnot a url\u009b1m,t,2024-01-01 00:00:00,ip,0\n',
    );
    const reported = await runKurz(['import', 'rows.csv', '--db', db], { cwd: dir });
    expect(reported.code).toBe(0);
    const controls = [...reported.stderr].filter(
      (c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f')),
    );
    expect(controls).toEqual([]);
    expect(reported.stderr).toContain('\\x1b[2Jnot a url\\u009b1m');
  });
});

describe.each(['sqlite', 'postgres'] as const)(
  'kurz import and export on %s, while kurz serves',
  (kind) => {
    let db = '';
    let server: Running;
    let dir = '';
    const kurz = (args: string[], input?: string) =>
      runKurz([...args, '--db', db], { input, cwd: dir });

    beforeAll(async () => {
      dir = tempDir();
      db = kind === 'sqlite' ? join(dir, 'kurz.db') : await freshDatabase();
      server = await startKurz([
        '--db',
        db,
        '--db-pool',
        '2',
        '--rate-limits',
        'off',
        '--webhook-allow-private',
        'on',
      ]);
      const added = await kurz(['user', 'add', 'ann@example.com'], `${PASSWORD}\n`);
      expect(added.code).toBe(0);
    });

    test('a dry run says what it would do and changes nothing the server serves', async () => {
      expect((await call(server.url, 'GET', '/ozh')).status).toBe(404);
      const dry = await kurz(['import', '-', '--owner', 'ann@example.com', '--dry-run'], YOURLS);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toBe(
        'kurz: dry run, nothing stored: read 4 rows, would import 2, skipped 0 (already there), conflicts 1, bad rows 1\n',
      );
      expect((await call(server.url, 'GET', '/ozh')).status).toBe(404);
    });

    test('links from stdin land, and the server redirects them at once; reports name their lines', async () => {
      const run = await kurz(['import', '-', '--owner', 'ann@example.com'], YOURLS);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        'kurz: read 4 rows, imported 2, skipped 0 (already there), conflicts 1, bad rows 1\n',
      );
      expect(run.stderr).toBe(
        [
          'kurz: reading stdin as YOURLS CSV; links go to ann@example.com',
          'kurz: line 4: code "api" is reserved in kurz; skipped',
          'kurz: line 5: no URL; skipped',
          '',
        ].join('\n'),
      );
      // The server had answered 404 for /ozh and may remember it: it learns of the commit.
      await eventually(
        async () => (await call(server.url, 'GET', '/ozh')).status === 307,
        '/ozh redirects',
        3000,
      );
      const guide = await call(server.url, 'GET', '/guide');
      expect([guide.status, guide.headers.get('location')]).toEqual([
        307,
        'https://docs.example/start',
      ]);
      const again = await kurz(['import', '-', '--owner', 'ann@example.com'], YOURLS);
      expect(again.stdout).toBe(
        'kurz: read 4 rows, imported 0, skipped 2 (already there), conflicts 1, bad rows 1\n',
      );
    });

    test('a large file shows plain progress lines in a log, and its links are all there', async () => {
      let file = 'keyword,url,title,timestamp,ip,clicks\n';
      for (let i = 0; i < 12_000; i++) {
        file += `bulk${i},https://example.com/bulk/${i},t,2024-01-01 00:00:00,ip,0\n`;
      }
      await Bun.write(join(dir, 'bulk.csv'), file);
      const run = await kurz(['import', 'bulk.csv']);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        'kurz: read 12000 rows, imported 12000, skipped 0 (already there), conflicts 0, bad rows 0\n',
      );
      expect(run.stderr).toMatch(/^kurz: reading bulk\.csv as YOURLS CSV; links go to no one\n/);
      expect(run.stderr).toMatch(/\nkurz import: 10,000 rows read \([\d,]+ rows\/s\)\n$/);
      expect((await call(server.url, 'GET', '/bulk11999')).status).toBe(307);
    });

    test('export writes a file for its owner only, or stdout, per account if asked', async () => {
      const written = await kurz(['export', 'ann.jsonl', '--owner', 'ann@example.com']);
      expect([written.code, written.stdout, written.stderr]).toEqual([
        0,
        '',
        'kurz: exported 2 links of ann@example.com as JSON Lines to ann.jsonl\n',
      ]);
      const path = join(dir, 'ann.jsonl');
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      expect(JSON.parse(lines[0] as string)).toMatchObject({ kurz_export: 2, clicks: false });
      expect(lines.slice(1).map((line) => JSON.parse(line).code)).toEqual(['guide', 'ozh']);
      const csv = await kurz(['export', '-', '--format', 'csv']);
      expect(csv.code).toBe(0);
      const rows = csv.stdout.trimEnd().split('\r\n');
      expect(rows[0]).toBe(
        'code,url,created_at,owner,source,expires_at,max_clicks,limited_clicks,password_hash,clicks,domain,tags,rules,variants,preview,disabled_at,disabled_reason',
      );
      expect(rows).toHaveLength(1 + 12_002);
      expect(csv.stderr).toBe('kurz: exported 12002 links as CSV to stdout\n');
    });

    test('the blocklist’s database entries refuse rows as the server refuses links', async () => {
      expect((await kurz(['user', 'promote', 'ann@example.com'])).code).toBe(0);
      const { token } = (
        await call(server.url, 'POST', '/api/auth/login', {
          json: { email: 'ann@example.com', password: PASSWORD },
        })
      ).json;
      const block = await call(server.url, 'POST', '/api/admin/blocklist', {
        json: { host: 'evil.example' },
        token,
      });
      expect(block.status).toBe(201);
      const file = 'keyword,url\nevil1,https://www.evil.example/x\nfine1,https://example.com/f\n';
      const run = await kurz(['import', '-', '--owner', 'ann@example.com'], file);
      expect(run.stdout).toContain('imported 1,');
      expect(run.stderr).toContain(
        'kurz: line 2: URL is blocked ("https://www.evil.example/x"); skipped',
      );
      await call(server.url, 'DELETE', '/api/admin/blocklist/evil.example', { token });
      expect((await kurz(['user', 'demote', 'ann@example.com'])).code).toBe(0);
    });

    test('imported links are new links: the owner’s webhook hears of each one', async () => {
      const receiver = Receiver.start();
      const { token } = (
        await call(server.url, 'POST', '/api/auth/login', {
          json: { email: 'ann@example.com', password: PASSWORD },
        })
      ).json;
      const hook = await call(server.url, 'POST', '/api/webhooks', {
        json: { url: `http://127.0.0.1:${receiver.port}/kurz`, events: ['link.created'] },
        token,
      });
      expect(hook.status).toBe(201);
      const file = 'keyword,url\nhooked1,https://example.com/h1\nhooked2,https://example.com/h2\n';
      const dry = await kurz(['import', '-', '--owner', 'ann@example.com', '--dry-run'], file);
      expect(dry.code).toBe(0);
      const run = await kurz(['import', '-', '--owner', 'ann@example.com'], file);
      expect(run.stdout).toContain('imported 2,');
      await eventually(() => receiver.calls.length >= 2, 'two link.created messages', 5000);
      await Bun.sleep(300);
      expect(receiver.calls.map((c) => [c.json.type, c.json.data.short_code]).sort()).toEqual([
        ['link.created', 'hooked1'],
        ['link.created', 'hooked2'],
      ]);
      expect(receiver.calls.every((c) => verifyStandardWebhook(hook.json.secret, c))).toBe(true);
      expect(
        (await call(server.url, 'DELETE', `/api/webhooks/${hook.json.id}`, { token })).status,
      ).toBe(204);
      expect(await server.stop()).toBe(0);
    });
  },
);

test('dist/kurz carries links from a SQLite file into PostgreSQL, click records and all', async () => {
  const dir = tempDir();
  const sqlite = join(dir, 'kurz.db');
  const postgres = await freshDatabase();
  const server = await startKurz(['--db', sqlite, '--mode', 'open', '--rate-limits', 'off']);
  const made = await call(server.url, 'POST', '/api/shorten', {
    json: { url: 'https://example.com/moved', custom_code: 'moved' },
  });
  expect(made.status).toBe(201);
  for (let i = 0; i < 3; i++) await call(server.url, 'GET', '/moved');
  expect(await server.stop()).toBe(0);
  const exported = await runKurz(['export', 'all.jsonl', '--clicks', '--db', sqlite], { cwd: dir });
  expect(exported.stderr).toBe(
    'kurz: exported 1 link and 3 click records as JSON Lines to all.jsonl\n',
  );
  const imported = await runKurz(['import', 'all.jsonl', '--db', postgres], { cwd: dir });
  expect(imported.stdout).toBe(
    'kurz: read 1 row, imported 1, skipped 0 (already there), conflicts 0, bad rows 0; click records: imported 3, skipped 0 (their link was not imported now)\n',
  );
  const target = await startKurz(['--db', postgres, '--db-pool', '2', '--mode', 'open']);
  const listed = await call(target.url, 'GET', '/api/links');
  expect(
    listed.json.map((l: { short_code: string; clicks: number }) => [l.short_code, l.clicks]),
  ).toEqual([['moved', 3]]);
  expect(await target.stop()).toBe(0);
});
