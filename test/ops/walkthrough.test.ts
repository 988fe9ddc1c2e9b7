// A walk through the published interface against the compiled dist/kurz, in both
// modes and on both databases (its SQLite file, and a fresh PostgreSQL database), as a
// client on the network sees it: accounts, shortening, the list and its
// paging, the redirect and its click, HEAD, unknown codes, health and the documented
// error messages. The messages are written out here, not imported, so that a change of
// wording in the code fails this test as it would fail a client.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { BINARY, call, type Running, startKurz } from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';

const URL_SCHEME = 'URL must start with http:// or https://';
const CODE_RULE =
  'Custom code must be 1-32 characters long and contain only letters, numbers, underscores, and hyphens';
const PASSWORD = 'correct horse 42';
const ACCOUNT_FIELDS = ['clicks', 'created_at', 'id', 'original_url', 'short_code', 'user_id'];
const OPEN_FIELDS = ACCOUNT_FIELDS.filter((f) => f !== 'user_id');

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

describe.each([
  ['accounts', 'SQLite'],
  ['open', 'SQLite'],
  ['accounts', 'PostgreSQL'],
  ['open', 'PostgreSQL'],
] as const)('dist/kurz walk-through (%s mode, %s)', (mode, database) => {
  const accounts = mode === 'accounts';
  const fields = accounts ? ACCOUNT_FIELDS : OPEN_FIELDS;
  let kurz: Running;
  let token: string | undefined;
  let user: { id: number; email: string } | undefined;
  let users = 0;

  type Options = Parameters<typeof call>[3];
  const api = (method: string, path: string, options: Options = {}) =>
    call(kurz.url, method, path, { token, ...options });
  const shorten = (json: unknown, options: Options = {}) =>
    api('POST', '/api/shorten', { json, ...options });
  const register = (json: unknown) => call(kurz.url, 'POST', '/api/auth/register', { json });
  const login = (json: unknown) => call(kurz.url, 'POST', '/api/auth/login', { json });
  const expectError = (reply: Awaited<ReturnType<typeof call>>, status: number, error: string) => {
    expect({ status: reply.status, body: reply.json }).toEqual({ status, body: { error } });
    expect(reply.headers.get('content-type')).toStartWith('application/json');
  };
  const newUser = async () => {
    const email = `user${++users}@example.com`;
    const reply = await register({ email, password: PASSWORD });
    expect(reply.status).toBe(200);
    return { email, token: reply.json.token as string, user: reply.json.user };
  };
  const clicksOf = async (code: string) => {
    const list = await api('GET', '/api/links');
    return list.json.find((l: { short_code: string }) => l.short_code === code)?.clicks;
  };

  beforeAll(async () => {
    // The walk-through registers and logs in many times from one address; the rate
    // limits have tests of their own, so here they are off.
    const db = database === 'PostgreSQL' ? ['--db', await freshDatabase()] : [];
    kurz = await startKurz(['--mode', mode, '--rate-limits', 'off', ...db]);
    if (accounts) ({ token, user } = await newUser());
  }, 30_000);
  afterAll(async () => {
    if (kurz) expect(await kurz.stop()).toBe(0);
  });

  test('GET /health is the JSON string "Healthy"', async () => {
    const health = await call(kurz.url, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json).toBe('Healthy');
    expect(health.headers.get('content-type')).toStartWith('application/json');
  });

  if (accounts) {
    test('register answers a token and the public user; login answers the same user', async () => {
      const email = 'walker@example.com';
      const reg = await register({ email, password: PASSWORD });
      expect(reg.status).toBe(200);
      expect(Object.keys(reg.json).sort()).toEqual(['token', 'user']);
      expect(reg.json.token.split('.')).toHaveLength(3);
      expect(reg.json.user).toEqual({ id: expect.any(Number), email });

      const again = await login({ email: `  ${email.toUpperCase()} `, password: PASSWORD });
      expect(again.status).toBe(200);
      expect(again.json.user).toEqual(reg.json.user);
      const list = await call(kurz.url, 'GET', '/api/links', { token: again.json.token });
      expect(list.status).toBe(200);
      expect(list.json).toEqual([]);
    });

    test('register refuses with the documented messages, first failing check first', async () => {
      const taken = user?.email as string;
      const cases: [unknown, string][] = [
        [{ email: 'x@example.com' }, 'Email and password are required'],
        [{ email: 42, password: PASSWORD }, 'Email and password are required'],
        [{ email: 'not-an-email', password: PASSWORD }, 'Invalid email address'],
        [{ email: `${'a'.repeat(250)}@ex.com`, password: PASSWORD }, 'Invalid email address'],
        [{ email: 'bad email', password: 'x' }, 'Invalid email address'],
        [
          { email: 'short@example.com', password: 'short' },
          'Password must be 8 to 1024 characters long',
        ],
        [
          { email: 'long@example.com', password: 'p'.repeat(1025) },
          'Password must be 8 to 1024 characters long',
        ],
        [{ email: taken, password: 'x' }, 'Password must be 8 to 1024 characters long'],
        [{ email: taken, password: 'another pass 1' }, 'Email already registered'],
        [{ email: taken.toUpperCase(), password: 'another pass 1' }, 'Email already registered'],
      ];
      for (const [body, error] of cases) expectError(await register(body), 400, error);
      const raw = await call(kurz.url, 'POST', '/api/auth/register', { raw: 'nope' });
      expectError(raw, 400, 'Request body must be a JSON object');
      // Eight code points are enough, however many bytes they take.
      const emoji = await register({ email: 'emoji@example.com', password: '😀'.repeat(8) });
      expect(emoji.status).toBe(200);
    });

    test('login refuses wrong, unknown and malformed credentials alike', async () => {
      const email = user?.email as string;
      for (const body of [
        { email, password: 'wrong password' },
        { email: 'ghost@example.com', password: 'wrong password' },
        { email: 'not an email', password: 'whatever1' },
      ]) {
        expectError(await login(body), 401, 'Invalid credentials');
      }
      expectError(await login({ email }), 400, 'Email and password are required');
    });

    test('shorten and list need a valid bearer token', async () => {
      for (const [method, path] of [
        ['POST', '/api/shorten'],
        ['GET', '/api/links'],
      ] as const) {
        const json = method === 'POST' ? { url: 'https://example.com/x' } : undefined;
        const none = await call(kurz.url, method, path, { json });
        expectError(none, 401, 'Unauthorized');
        expect(none.headers.get('www-authenticate')).toBe('Bearer');
        for (const authorization of [
          'Bearer',
          'Bearer abc.def.ghi',
          'Basic dXNlcjpwYXNz',
          token as string,
        ]) {
          const reply = await call(kurz.url, method, path, { json, headers: { authorization } });
          expectError(reply, 401, 'Unauthorized');
        }
      }
    });

    test('each user creates and lists only their own links', async () => {
      const other = await newUser();
      await shorten({ url: 'https://example.com/mine', custom_code: 'mine' });
      const theirs = await shorten({ url: 'https://example.com/theirs' }, { token: other.token });
      expect(theirs.json.user_id).toBe(other.user.id);
      const list = await api('GET', '/api/links', { token: other.token });
      expect(list.json.map((l: { short_code: string }) => l.short_code)).toEqual([
        theirs.json.short_code,
      ]);
      const mine = await api('GET', '/api/links');
      expect(mine.json.every((l: { user_id: number }) => l.user_id === user?.id)).toBe(true);
    });
  } else {
    test('create and list need no account; a token is ignored; /api/auth does not exist', async () => {
      const created = await shorten(
        { url: 'https://example.com/open' },
        { headers: { authorization: 'Bearer junk' } },
      );
      expect(created.status).toBe(201);
      expect(created.json.user_id).toBeUndefined();
      const list = await api('GET', '/api/links', { headers: { authorization: 'Bearer junk' } });
      expect(list.status).toBe(200);
      expectError(await register({ email: 'a@example.com', password: PASSWORD }), 404, 'Not found');
      expectError(await login({ email: 'a@example.com', password: PASSWORD }), 404, 'Not found');
    });
  }

  test('shorten without a custom code: 201, a 7-character code, clicks 0, created now', async () => {
    const before = Date.now();
    const reply = await shorten({ url: 'https://example.com/auto' });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.json).sort()).toEqual(fields);
    expect(reply.json.original_url).toBe('https://example.com/auto');
    expect(reply.json.short_code).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(reply.json.clicks).toBe(0);
    expect(Number.isInteger(reply.json.id)).toBe(true);
    expect(reply.json.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const created = Date.parse(reply.json.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
    if (accounts) expect(reply.json.user_id).toBe(user?.id as number);
  });

  test('shorten with a custom code and a source keeps the code; the same code again is taken', async () => {
    const reply = await shorten({
      url: 'https://example.com/custom',
      custom_code: 'My-Code_9',
      source: 'newsletter',
    });
    expect(reply.status).toBe(201);
    expect(reply.json.short_code).toBe('My-Code_9');
    expect(Object.keys(reply.json).sort()).toEqual(fields);
    // Codes are case-sensitive: another case is another code.
    expect((await shorten({ url: 'https://example.com/', custom_code: 'my-code_9' })).status).toBe(
      201,
    );
    // The 32-character bound holds, beyond the 8 of the interface's column.
    expect(
      (await shorten({ url: 'https://example.com/', custom_code: 'x'.repeat(32) })).status,
    ).toBe(201);
    const again = await shorten({ url: 'https://example.com/other', custom_code: 'My-Code_9' });
    expectError(again, 400, 'Custom code already taken');
  });

  test('bad input is refused with the documented message and creates nothing', async () => {
    const before = (await api('GET', '/api/links')).json.length;
    const cases: [unknown, string][] = [
      [{}, 'url is required'],
      [{ url: 42 }, 'url is required'],
      ...[
        'ftp://example.com',
        'example.com',
        'javascript:alert(1)',
        '',
        'HTTPS://EXAMPLE.COM',
        'data:text/html,hi',
        ' https://example.com',
        'mailto:a@b.c',
      ].map((url): [unknown, string] => [{ url }, URL_SCHEME]),
      [{ url: 'https://exa mple.com' }, 'URL is not valid'],
      [{ url: 'https://' }, 'URL is not valid'],
      ...[
        '',
        'has space',
        'slash/x',
        'dot.x',
        'héllo',
        'emoji😀',
        'tab\tx',
        'q?x',
        'x'.repeat(33),
      ].map((custom_code): [unknown, string] => [
        { url: 'https://example.com/', custom_code },
        CODE_RULE,
      ]),
      ...['api', 'health', 'ADMIN', 'static', 'assets'].map((custom_code): [unknown, string] => [
        { url: 'https://example.com/', custom_code },
        'This code is reserved and cannot be used',
      ]),
      [
        { url: 'https://example.com/', source: 's'.repeat(256) },
        'source must be a string of at most 255 characters',
      ],
      [
        { url: 'https://example.com/', source: 7 },
        'source must be a string of at most 255 characters',
      ],
      [[1, 2], 'Request body must be a JSON object'],
    ];
    for (const [body, error] of cases) expectError(await shorten(body), 400, error);
    expectError(
      await shorten(undefined, { raw: '{"url":' }),
      400,
      'Request body must be a JSON object',
    );
    expectError(
      await shorten(undefined, {
        raw: JSON.stringify({ url: `https://example.com/${'a'.repeat(70_000)}` }),
      }),
      413,
      'Request body too large',
    );
    expect((await api('GET', '/api/links')).json.length).toBe(before);
  });

  test('GET /{code}: 307 to the original URL, no caching, empty body, the click counted', async () => {
    const target = 'https://example.com/target?x=1';
    await shorten({ url: target, custom_code: 'go', source: 'newsletter' });
    const reply = await call(kurz.url, 'GET', '/go');
    expect(reply.status).toBe(307);
    expect(reply.headers.get('location')).toBe(target);
    expect(reply.headers.get('cache-control')?.replace(/ /g, '')).toBe('private,no-store');
    expect(reply.text).toBe('');
    expect(await clicksOf('go')).toBe(1);
    for (let i = 0; i < 3; i++) {
      expect((await call(kurz.url, 'GET', '/go?source=qr')).status).toBe(307);
    }
    expect(await clicksOf('go')).toBe(4);
  });

  test('HEAD /{code}: the same 307 and headers, and no click counted', async () => {
    await shorten({ url: 'https://example.com/head', custom_code: 'head' });
    for (let i = 0; i < 3; i++) {
      const reply = await call(kurz.url, 'HEAD', '/head');
      expect(reply.status).toBe(307);
      expect(reply.headers.get('location')).toBe('https://example.com/head');
      expect(reply.headers.get('cache-control')?.replace(/ /g, '')).toBe('private,no-store');
    }
    expect(await clicksOf('head')).toBe(0);
    expect((await call(kurz.url, 'GET', '/head')).status).toBe(307);
    expect(await clicksOf('head')).toBe(1);
  });

  test('an unknown code, or a path that cannot be a code, is 404 Not found', async () => {
    for (const path of ['/nope', '/GO', '/has.dot', `/${'x'.repeat(33)}`, '/api/nothing']) {
      expectError(await call(kurz.url, 'GET', path), 404, 'Not found');
    }
    expectError(await call(kurz.url, 'DELETE', '/health'), 404, 'Not found');
  });

  test('GET /api/links: newest first, X-Total-Count, pages with a Link to the next', async () => {
    // A user of one's own in accounts mode; in open mode the list holds every link so far.
    const own = accounts ? (await newUser()).token : undefined;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const reply = await shorten({ url: `https://example.com/list/${i}` }, { token: own });
      made.push(reply.json.short_code);
    }
    const all = await api('GET', '/api/links', { token: own });
    expect(all.status).toBe(200);
    const total = all.json.length;
    expect(all.headers.get('x-total-count')).toBe(String(total));
    expect(all.headers.get('link')).toBeNull();
    for (const link of all.json) expect(Object.keys(link).sort()).toEqual(fields);
    // Newest first: the three just made lead the list, the last one first.
    expect(all.json.slice(0, 3).map((l: { short_code: string }) => l.short_code)).toEqual(
      made.toReversed(),
    );

    const page = await api('GET', '/api/links?limit=2', { token: own });
    expect(page.json).toEqual(all.json.slice(0, 2));
    expect(page.headers.get('x-total-count')).toBe(String(total));
    expect(page.headers.get('link')).toBe('</api/links?limit=2&offset=2>; rel="next"');
    const last = await api('GET', `/api/links?limit=2&offset=${total - 1}`, { token: own });
    expect(last.json).toEqual(all.json.slice(total - 1));
    expect(last.headers.get('link')).toBeNull();
    const rest = await api('GET', '/api/links?offset=1', { token: own });
    expect(rest.json).toEqual(all.json.slice(1));

    for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc']) {
      expectError(
        await api('GET', `/api/links?${query}`, { token: own }),
        400,
        'limit must be 1 to 1000 and offset 0 or more',
      );
    }
  });
});
