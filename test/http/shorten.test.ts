import { describe, expect, test } from 'bun:test';
import { TestApp } from '../support/test-app.ts';

const MSG = {
  url: 'URL must start with http:// or https://',
  urlRequired: 'url is required',
  urlInvalid: 'URL is not valid',
  rule: 'Custom code must be 1-32 characters long and contain only letters, numbers, underscores, and hyphens',
  taken: 'Custom code already taken',
  reserved: 'This code is reserved and cannot be used',
  source: 'source must be a string of at most 255 characters',
  body: 'Request body must be a JSON object',
};
const ISO_MS_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function clientFor(mode: 'accounts' | 'open') {
  const app = await TestApp.init(mode);
  return mode === 'accounts' ? app.user() : app.anonymous();
}

describe('POST /api/shorten in accounts mode', () => {
  test('creates a link owned by the caller with exactly the Variant A fields', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    const before = Date.now();
    const reply = await ann.shorten({ url: 'https://example.com/a?b=c#d' });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.json).sort()).toEqual(
      ['clicks', 'created_at', 'id', 'original_url', 'short_code', 'user_id'].sort(),
    );
    expect(reply.json).toMatchObject({
      user_id: ann.user?.id,
      original_url: 'https://example.com/a?b=c#d',
      clicks: 0,
    });
    expect(reply.json.id).toBeInteger();
    expect(reply.json.short_code).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(reply.json.created_at).toMatch(ISO_MS_Z);
    const created = Date.parse(reply.json.created_at);
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(Date.now());
  });

  test('needs a valid token', async () => {
    const app = await TestApp.init('accounts');
    const reply = await app.anonymous().shorten({ url: 'https://example.com' });
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error: 'Unauthorized' });
  });
});

describe('POST /api/shorten in open mode', () => {
  test('creates a link with exactly the Variant B fields, ignoring Authorization', async () => {
    const app = await TestApp.init('open');
    const reply = await app.post(
      '/api/shorten',
      { url: 'http://example.com' },
      { headers: { authorization: 'Bearer not-a-token' } },
    );
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.json).sort()).toEqual(
      ['clicks', 'created_at', 'id', 'original_url', 'short_code'].sort(),
    );
    expect(reply.json.created_at).toMatch(ISO_MS_Z);
  });
});

describe.each(['accounts', 'open'] as const)('POST /api/shorten rules (%s mode)', (mode) => {
  test('a custom code is kept exactly, case-sensitively, up to 32 characters', async () => {
    const c = await clientFor(mode);
    expect((await c.link('https://example.com/1', { custom_code: 'abc' })).short_code).toBe('abc');
    expect((await c.link('https://example.com/2', { custom_code: 'ABC' })).short_code).toBe('ABC');
    const long = `${'a-b_C'.repeat(6)}12`;
    expect(long).toHaveLength(32);
    expect((await c.link('https://example.com/3', { custom_code: long })).short_code).toBe(long);
    expect((await c.link('https://example.com/4', { custom_code: 'x' })).short_code).toBe('x');
  });

  test('a taken custom code is 400 "Custom code already taken" and creates nothing', async () => {
    const c = await clientFor(mode);
    await c.link('https://example.com/1', { custom_code: 'mine' });
    const reply = await c.shorten({ url: 'https://example.com/2', custom_code: 'mine' });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: MSG.taken });
    expect((await c.links()).json).toHaveLength(1);
  });

  test('two concurrent requests for one custom code: exactly one wins', async () => {
    const c = await clientFor(mode);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        c.shorten({ url: `https://example.com/${i}`, custom_code: 'race' }),
      ),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    const losers = replies.filter((r) => r.status !== 201);
    expect(losers).toHaveLength(9);
    for (const r of losers) expect(r.json).toEqual({ error: MSG.taken });
  });

  test.each([
    [''],
    ['a'.repeat(33)],
    ['has space'],
    ['slash/x'],
    ['dot.x'],
    ['héllo'],
    ['emoji😀'],
    ['tab\tx'],
    ['q?x'],
    ['percent%20'],
    [42],
    [true],
    [['abc']],
    [{ code: 'abc' }],
  ])('custom_code %p breaks the code rule', async (bad) => {
    const c = await clientFor(mode);
    const reply = await c.shorten({ url: 'https://example.com', custom_code: bad });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: MSG.rule });
  });

  test('custom_code null means absent: a code is generated', async () => {
    const c = await clientFor(mode);
    const link = await c.link('https://example.com', { custom_code: null });
    expect(link.short_code).toMatch(/^[A-Za-z0-9]{7}$/);
  });

  test.each(['api', 'health', 'admin', 'static', 'assets', 'API', 'Health', 'aDmIn'])(
    'reserved word %p is refused',
    async (word) => {
      const c = await clientFor(mode);
      const reply = await c.shorten({ url: 'https://example.com', custom_code: word });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: MSG.reserved });
    },
  );

  test.each([
    ['ftp://example.com', MSG.url],
    ['example.com', MSG.url],
    ['javascript:alert(1)', MSG.url],
    ['', MSG.url],
    ['HTTPS://EXAMPLE.COM', MSG.url],
    ['Http://example.com', MSG.url],
    [' https://example.com', MSG.url],
    ['data:text/html,hi', MSG.url],
    ['mailto:a@b.c', MSG.url],
    ['http://', MSG.urlInvalid],
    ['https://', MSG.urlInvalid],
    ['http:///path', MSG.urlInvalid],
    ['https://exa mple.com', MSG.urlInvalid],
    ['https://example.com/a b', MSG.urlInvalid],
    ['https://example.com/\u0000', MSG.urlInvalid],
    ['https://example.com/\n', MSG.urlInvalid],
    ['https://example.com/\u00a0', MSG.urlInvalid],
    ['https://example.com/ ', MSG.urlInvalid],
    ['https://\ud800.com', MSG.urlInvalid],
    ['https://[::1', MSG.urlInvalid],
    [`https://example.com/${'x'.repeat(8192)}`, MSG.urlInvalid],
    // User-info or a backslash in the authority: browsers and curl go to different hosts.
    ['https://bank.example@evil.example/', MSG.urlInvalid],
    ['https://user:secret@example.com/', MSG.urlInvalid],
    ['http://127.0.0.1:1\\@127.0.0.1:2/', MSG.urlInvalid],
    ['https://example.com\\@evil.example/', MSG.urlInvalid],
    ['https://\\\\evil.example/', MSG.urlInvalid],
  ])('url %p is refused with %p', async (url, message) => {
    const c = await clientFor(mode);
    const reply = await c.shorten({ url });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: message });
  });

  test('a url of exactly 8192 characters is accepted and returned whole', async () => {
    const c = await clientFor(mode);
    const url = `https://example.com/${'x'.repeat(8192 - 20)}`;
    expect(url).toHaveLength(8192);
    expect((await c.link(url)).original_url).toBe(url);
  });

  test.each([[undefined], [null], [42], [['https://example.com']], [{}]])(
    'url %p is "url is required"',
    async (url) => {
      const c = await clientFor(mode);
      const reply = await c.shorten(url === undefined ? {} : { url });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: MSG.urlRequired });
    },
  );

  test('the original url is stored and returned exactly as given', async () => {
    const c = await clientFor(mode);
    for (const url of [
      'https://example.com',
      'http://EXAMPLE.com:8080/Path/../x?q=%20a&b=ü#Frag',
      'https://müller.example/straße?x=😀',
      // Not loopback: the test's requests come to localhost, so those would be kurz itself.
      'http://192.0.2.1/',
      'https://[2001:DB8::1]:443/a',
      'https://example.com/@ann?to=a@b.example#@x',
      'https://example.com/a\\b?c=\\',
    ]) {
      expect((await c.link(url)).original_url).toBe(url);
    }
  });

  test('source: a string up to 255 characters is accepted; longer or not a string is refused', async () => {
    const c = await clientFor(mode);
    await c.link('https://example.com', { source: 'x'.repeat(255) });
    await c.link('https://example.com', { source: '😀'.repeat(255) });
    await c.link('https://example.com', { source: null });
    for (const source of ['x'.repeat(256), 42, true, ['a'], { a: 1 }]) {
      const reply = await c.shorten({ url: 'https://example.com', source });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: MSG.source });
    }
  });

  test('checks run in order: JSON object, url, custom_code, source', async () => {
    const c = await clientFor(mode);
    const all = { url: 'ftp://x', custom_code: 'bad code', source: 42 };
    expect((await c.shorten(all)).json).toEqual({ error: MSG.url });
    expect((await c.shorten({ ...all, url: 'https://x.com' })).json).toEqual({ error: MSG.rule });
    expect((await c.shorten({ ...all, url: 'https://x.com', custom_code: 'ok' })).json).toEqual({
      error: MSG.source,
    });
    await c.link('https://x.com', { custom_code: 'taken' });
    // A bad source is reported before a taken code: the field checks come before the insert.
    expect(
      (await c.shorten({ url: 'https://x.com', custom_code: 'taken', source: 42 })).json,
    ).toEqual({ error: MSG.source });
    expect((await c.shorten({ url: 'ftp://x', custom_code: 'taken' })).json).toEqual({
      error: MSG.url,
    });
    // User-info is a `url` fault: reported before a bad custom_code.
    expect((await c.shorten({ ...all, url: 'https://a@x.com' })).json).toEqual({
      error: MSG.urlInvalid,
    });
  });

  test.each([
    ['not json', 'nope'],
    ['an array', '[1,2]'],
    ['a string', '"https://example.com"'],
    ['null', 'null'],
    ['a number', '42'],
    ['empty', ''],
    ['truncated', '{"url": "https://exa'],
  ])('a body that is %s is 400 "Request body must be a JSON object"', async (_, raw) => {
    const c = await clientFor(mode);
    const reply = await c.shorten(undefined, {
      raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: MSG.body });
  });

  test('a JSON body without Content-Type: application/json is still read as JSON', async () => {
    const c = await clientFor(mode);
    for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded']) {
      const reply = await c.shorten(undefined, {
        raw: JSON.stringify({ url: 'https://example.com/ct' }),
        headers: type ? { 'content-type': type } : {},
      });
      expect(reply.status).toBe(201);
      expect(reply.json.original_url).toBe('https://example.com/ct');
    }
  });

  test('unknown fields are ignored', async () => {
    const c = await clientFor(mode);
    const link = await c.link('https://example.com', { clicks: 99, id: 7, user_id: 3 });
    expect(link.clicks).toBe(0);
  });

  test('generated codes are 7 characters of [A-Za-z0-9] and distinct', async () => {
    const c = await clientFor(mode);
    const codes = new Set<string>();
    for (let i = 0; i < 50; i++) codes.add((await c.link(`https://example.com/${i}`)).short_code);
    expect(codes.size).toBe(50);
    for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9]{7}$/);
  });
});
