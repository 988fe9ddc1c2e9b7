// `kurz domain add|list|set|remove` against a database a kurz is serving, on SQLite and
// on PostgreSQL: the serving kurz's registry follows each change within a second (the
// SQLite file's change, PostgreSQL's notice), as GET /api/domains shows.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
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

const ADMIN_TOKEN = 'cli-admin-token-cli-admin-token-0123456';
const BASE_URL = 'https://kurz.example';
/** The domains' rows of `kurz domain list`: the heading and the default domain's. */
const HEADING = /^DOMAIN +BASE URL +LINKS +ROOT REDIRECT +NOT-FOUND REDIRECT$/;

interface ServedDomain {
  domain: string;
  base_url: string;
  default: boolean;
  root_redirect: string | null;
  not_found_redirect: string | null;
  links: number;
}

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

describe.each(['sqlite', 'postgres'] as const)('kurz domain on %s, while kurz serves', (kind) => {
  let db = '';
  let server: Running;
  const domain = (args: string[]) =>
    runKurz(['domain', ...args, '--db', db, '--base-url', BASE_URL]);
  /** The domains the serving kurz lists, as its admin token sees them. */
  const served = async (): Promise<ServedDomain[]> =>
    (await call(server.url, 'GET', '/api/domains', { token: ADMIN_TOKEN })).json;
  /** A link made on the serving kurz (open mode), on a domain when one is named. */
  const shorten = (code: string, domain?: string) =>
    call(server.url, 'POST', '/api/shorten', {
      json: { url: `https://example.com/${code}`, custom_code: code, domain },
    });
  /** Waits (at most a second) until the serving kurz's list satisfies `check`. */
  const servedSoon = async (check: (list: ServedDomain[]) => boolean) => {
    let last: ServedDomain[] = [];
    await eventually(
      async () => {
        last = await served();
        return check(last);
      },
      () => `the served list to change; it is ${JSON.stringify(last)}`,
      1000,
    );
  };

  beforeAll(async () => {
    db = kind === 'sqlite' ? join(tempDir(), 'kurz.db') : await freshDatabase();
    server = await startKurz([
      '--db',
      db,
      '--mode',
      'open',
      '--base-url',
      BASE_URL,
      '--admin-token',
      ADMIN_TOKEN,
      '--rate-limits',
      'off',
    ]);
  }, 30_000);

  afterAll(async () => {
    expect(await server.stop()).toBe(0);
  });

  test('add: one line; the serving kurz lists the domain within a second', async () => {
    expect((await served()).map((d) => d.domain)).toEqual(['kurz.example']);
    const added = await domain([
      'add',
      'HTTPS://Go.Example.com/',
      '--root-redirect',
      'https://example.com/home',
    ]);
    expect([added.code, added.stdout, added.stderr]).toEqual([
      0,
      'kurz: domain go.example.com added (https://go.example.com)\n',
      '',
    ]);
    await servedSoon((list) =>
      list.some(
        (d) => d.domain === 'go.example.com' && d.root_redirect === 'https://example.com/home',
      ),
    );
    // A link made on it is followed on its name.
    const made = await shorten('hello', 'go.example.com');
    expect(made.status).toBe(201);
    const followed = await call(server.url, 'GET', '/hello', {
      headers: { host: 'go.example.com' },
    });
    expect([followed.status, followed.headers.get('location')]).toEqual([
      307,
      'https://example.com/hello',
    ]);
  });

  test('add refuses a host taken, the default domain, a bad URL or redirect; nothing changes', async () => {
    const cases: [string[], number, string][] = [
      [['add', 'http://go.example.com'], 1, 'a domain go.example.com exists already'],
      [
        ['add', 'https://KURZ.example:443'],
        1,
        'kurz.example is the default domain, set by --base-url: it is not added, changed or removed here',
      ],
      [
        ['add', 'https://x.example/path'],
        2,
        '"https://x.example/path": Domain must be a base URL such as https://go.example.com: http or https, a host, an optional port, nothing after',
      ],
      [
        ['add', 'https://x.example', '--not-found-redirect', 'javascript:alert(1)'],
        2,
        '--not-found-redirect: root_redirect and not_found_redirect must be http(s) URLs or null',
      ],
    ];
    for (const [args, code, message] of cases) {
      const run = await domain(args);
      expect([args, run.code, run.stdout, run.stderr]).toEqual([
        args,
        code,
        '',
        `kurz: ${message}\n`,
      ]);
    }
    expect((await served()).map((d) => d.domain)).toEqual(['kurz.example', 'go.example.com']);
  });

  test('set: a redirect given replaces, "" clears, one not given stays; the server follows', async () => {
    const set = await domain([
      'set',
      'go.example.com',
      '--not-found-redirect',
      'https://example.com/missing',
    ]);
    expect(set.stdout).toBe(
      'kurz: domain go.example.com changed: root redirect https://example.com/home, not-found redirect https://example.com/missing\n',
    );
    await servedSoon((list) => list[1]?.not_found_redirect === 'https://example.com/missing');
    const cleared = await domain(['set', 'https://go.example.com', '--root-redirect', '']);
    expect(cleared.stdout).toBe(
      'kurz: domain go.example.com changed: root redirect none (the web UI), not-found redirect https://example.com/missing\n',
    );
    await servedSoon((list) => list[1]?.root_redirect === null);
    const unknown = await domain(['set', 'nowhere.example', '--root-redirect', '']);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'kurz: no domain nowhere.example\n']);
    const home = await domain(['set', BASE_URL, '--root-redirect', '']);
    expect(home.code).toBe(1);
    expect(home.stderr).toContain('kurz.example is the default domain');
  });

  test('list: a table, the default domain first, with links; --json as the admin token sees it', async () => {
    await shorten('d');
    for (const code of ['g1', 'g2']) await shorten(code, 'go.example.com');
    const listed = await domain(['list']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('kurz: 2 domains');
    expect(lines[1]).toMatch(HEADING);
    expect(lines[2]?.split(/ {2,}/)).toEqual([
      'kurz.example (default)',
      BASE_URL,
      '1',
      'web UI',
      '-',
    ]);
    expect(lines[3]?.split(/ {2,}/)).toEqual([
      'go.example.com',
      'https://go.example.com',
      '3',
      '-',
      'https://example.com/missing',
    ]);
    const json = await domain(['list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(await served());
    expect(JSON.parse(json.stdout)[1]).toEqual({
      domain: 'go.example.com',
      base_url: 'https://go.example.com',
      default: false,
      root_redirect: null,
      not_found_redirect: 'https://example.com/missing',
      links: 3,
    });
  });

  test('remove: refused while it has links; --with-links takes them; the server drops it within a second', async () => {
    const refused = await domain(['remove', 'go.example.com']);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      'kurz: domain go.example.com still has 3 links: move or delete them first, or remove it --with-links\n',
    ]);
    expect((await served()).map((d) => d.domain)).toEqual(['kurz.example', 'go.example.com']);
    const removed = await domain(['remove', 'https://go.example.com', '--with-links']);
    expect([removed.code, removed.stdout, removed.stderr]).toEqual([
      0,
      'kurz: domain go.example.com removed, with its 3 links and their clicks\n',
      '',
    ]);
    await servedSoon((list) => list.length === 1);
    // Its links are gone: on its name (now no domain's, so the default one's), a 404.
    const gone = await call(server.url, 'GET', '/hello', { headers: { host: 'go.example.com' } });
    expect(gone.status).toBe(404);
    expect(await served()).toEqual([
      {
        domain: 'kurz.example',
        base_url: BASE_URL,
        default: true,
        root_redirect: null,
        not_found_redirect: null,
        links: 1,
      },
    ]);
    // An unused domain needs no flag.
    await domain(['add', 'https://spare.example']);
    expect((await domain(['remove', 'spare.example'])).stdout).toBe(
      'kurz: domain spare.example removed\n',
    );
    const again = await domain(['remove', 'spare.example']);
    expect([again.code, again.stderr]).toEqual([1, 'kurz: no domain spare.example\n']);
  });
});

describe('kurz domain, its command line', () => {
  test.each([
    [
      ['domain', 'frob'],
      'unknown action "frob" for domain (expected add, list, set or remove; see kurz domain --help)',
    ],
    [['domain', 'add'], 'domain add needs a URL (see kurz domain --help)'],
    [['domain', 'list', 'go.example.com'], 'domain list takes no URL (see kurz domain --help)'],
    [['domain', 'add', 'https://a.example', '--with-links'], '--with-links is not for domain add'],
    [['domain', 'remove', 'a.example', '--json'], '--json is not for domain remove'],
    [
      ['domain', 'add', 'go.example.com'],
      '"go.example.com": Domain must be a base URL such as https://go.example.com: http or https, a host, an optional port, nothing after',
    ],
    [
      ['domain', 'set', 'a.example'],
      'domain set needs --root-redirect or --not-found-redirect (a URL, or "" for none)',
    ],
    [
      ['domain', 'set', 'a.example', '--root-redirect', 'ftp://x'],
      '--root-redirect: root_redirect and not_found_redirect must be http(s) URLs or null',
    ],
    [
      ['domain', 'remove', 'https://a.example/x'],
      '"https://a.example/x" names no domain: give its host (go.example.com) or base URL (https://go.example.com)',
    ],
    [
      ['domain', 'add', 'https://a.example', '--root'],
      'unknown flag --root for domain (see kurz domain --help)',
    ],
  ])('%p exits 2: %p, opening no database', async (args, message) => {
    const dir = tempDir();
    const run = await runKurz([...args, '--db', join(dir, 'k.db')]);
    expect([run.code, run.stderr]).toEqual([2, `kurz: ${message}\n`]);
    expect(existsSync(join(dir, 'k.db'))).toBe(false);
  });

  test('kurz domain --help says every action and flag', async () => {
    const help = await runKurz(['domain', '--help']);
    expect(help.code).toBe(0);
    for (const text of [
      'kurz domain add URL',
      'kurz domain list',
      'kurz domain set URL',
      'kurz domain remove URL',
      '--root-redirect',
      '--not-found-redirect',
      '--with-links',
      '--json',
      '--base-url',
    ]) {
      expect(help.stdout).toContain(text);
    }
  });
});
