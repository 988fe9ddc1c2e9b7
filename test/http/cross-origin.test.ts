// Cross-site requests: what a page of another site can make a visitor's browser do, and
// what --cors-origins allows. (test/browser/browser.test.ts proves the same in Chromium.)

import { describe, expect, test } from 'bun:test';
import { TestApp } from '../support/test-app.ts';

const REFUSED = { error: 'Cross-origin request refused' };
const EVIL = 'https://evil.example';
const APP = 'https://app.example';

/** A client of the mode that may create links (a user in accounts mode). */
async function setUp(mode: 'accounts' | 'open', corsOrigins?: string[]) {
  const app = await TestApp.init(mode, { corsOrigins });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  return { app, client };
}

/** How many links the client sees. */
async function linkCount(client: Awaited<ReturnType<typeof setUp>>['client']) {
  return (await client.links()).json.length;
}

describe.each(['accounts', 'open'] as const)('cross-site requests (%s mode)', (mode) => {
  test.each([
    ['a foreign origin', { origin: EVIL }],
    ['an opaque origin (sandboxed page, file:)', { origin: 'null' }],
    ['a sibling site', { origin: 'https://other.kurz.test' }],
    ['kurz’s host on another scheme', { origin: 'http://kurz.test' }],
    ['kurz’s host on another port', { origin: 'http://localhost:8080' }],
    [
      'its own host marked cross-site',
      { origin: 'http://localhost', 'sec-fetch-site': 'cross-site' },
    ],
  ])('a POST from %s is 403 and creates nothing', async (_, headers) => {
    const { client } = await setUp(mode);
    const reply = await client.shorten({ url: 'https://example.com/' }, { headers });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(REFUSED);
    expect(await linkCount(client)).toBe(0);
  });

  test('a plain form post (urlencoded or text/plain) is refused like any other', async () => {
    const { client } = await setUp(mode);
    for (const [type, raw] of [
      ['application/x-www-form-urlencoded', 'url=https%3A%2F%2Fexample.com%2F'],
      ['text/plain', '{"url": "https://example.com/", "x": "="}'],
    ]) {
      const reply = await client.shorten(undefined, {
        raw,
        headers: { origin: EVIL, 'content-type': type as string },
      });
      expect(reply.status).toBe(403);
      expect(reply.json).toEqual(REFUSED);
    }
    expect(await linkCount(client)).toBe(0);
  });

  test.each([
    ['its own host', { origin: 'http://localhost' }],
    [
      'its own host, marked same-origin',
      { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' },
    ],
    ['its base URL', { origin: 'https://kurz.test' }],
    // Behind a TLS proxy: the request arrives over http, the page was https.
    ['its own host with the base URL’s scheme', { origin: 'https://localhost' }],
    ['no Origin at all (curl, scripts)', {}],
    // Browsers always send Origin on a cross-site POST: without one, it is no browser's.
    ['no Origin but Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
  ])('a POST from %s is served', async (_, headers) => {
    const { client } = await setUp(mode);
    const reply = await client.shorten({ url: 'https://example.com/' }, { headers });
    expect(reply.status).toBe(201);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(await linkCount(client)).toBe(1);
  });

  test('the refusal answers before the token and the body are looked at', async () => {
    const { app } = await setUp(mode);
    const reply = await app.request('POST', '/api/shorten', {
      raw: 'not json',
      headers: { origin: EVIL },
    });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(REFUSED);
  });

  test('but a declared body over 64 KiB is 413 first', async () => {
    const { client } = await setUp(mode);
    const raw = JSON.stringify({ url: `https://example.com/${'x'.repeat(70_000)}` });
    const reply = await client.shorten(undefined, {
      raw,
      headers: { origin: EVIL, 'content-length': String(raw.length) },
    });
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({ error: 'Request body too large' });
  });

  test.each(['PUT', 'PATCH', 'DELETE'])(
    'any %s from a foreign origin is refused',
    async (method) => {
      const { app } = await setUp(mode);
      const foreign = await app.request(method, '/api/links/abc', { headers: { origin: EVIL } });
      expect(foreign.status).toBe(403);
      expect(foreign.json).toEqual(REFUSED);
      // The same request from no browser finds no PUT route; PATCH and DELETE reach
      // theirs, which ask for the token (the owner's, or open mode's admin token).
      const direct = (await app.request(method, '/api/links/abc')).status;
      expect(direct).toBe(method === 'PUT' ? 404 : mode === 'accounts' ? 401 : 403);
    },
  );

  test('reads are not refused, and without --cors-origins carry no CORS header', async () => {
    const { client } = await setUp(mode);
    const reply = await client.links();
    const foreign = await client.app.get('/api/links', {
      token: client.token,
      headers: { origin: EVIL, 'sec-fetch-site': 'cross-site' },
    });
    expect(foreign.status).toBe(200);
    expect(foreign.json).toEqual(reply.json);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('vary')).toBeNull();
  });

  test('without --cors-origins a preflight is 404 as any OPTIONS is', async () => {
    const { app } = await setUp(mode);
    const reply = await app.request('OPTIONS', '/api/shorten', {
      headers: { origin: APP, 'access-control-request-method': 'POST' },
    });
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('accounts mode', () => {
  test('a cross-site registration or login is refused and registers no one', async () => {
    const app = await TestApp.init('accounts');
    const credentials = { email: 'ann@example.com', password: 'correct horse 42' };
    for (const path of ['/api/auth/register', '/api/auth/login']) {
      const reply = await app.post(path, credentials, { headers: { origin: EVIL } });
      expect(reply.status).toBe(403);
      expect(reply.json).toEqual(REFUSED);
    }
    // Not registered: the same registration from no browser succeeds.
    expect((await app.post('/api/auth/register', credentials)).status).toBe(200);
  });
});

describe.each(['accounts', 'open'] as const)('with --cors-origins (%s mode)', (mode) => {
  const preflight = (app: TestApp, origin: string, path = '/api/shorten') =>
    app.request('OPTIONS', path, {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  test('a preflight from an allowed origin to the API is 204 with the CORS headers', async () => {
    const { app } = await setUp(mode, [APP, 'http://127.0.0.1:5173']);
    const reply = await preflight(app, APP);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(Object.fromEntries(reply.headers)).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
      'access-control-allow-headers': 'Content-Type, Authorization',
      'access-control-max-age': '7200',
      vary: 'Origin',
      'x-content-type-options': 'nosniff',
    });
    expect(reply.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await preflight(app, 'http://127.0.0.1:5173', '/api/links');
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
  });

  test.each([
    ['a foreign origin', EVIL, '/api/shorten'],
    ['an allowed origin with another port', 'https://app.example:8443', '/api/shorten'],
    ['an allowed origin, outside the API', APP, '/health'],
  ])('a preflight from %s is 404', async (_, origin, path) => {
    const { app } = await setUp(mode, [APP]);
    const reply = await preflight(app, origin, path);
    expect(reply.status).toBe(404);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('an OPTIONS that is no preflight (no Access-Control-Request-Method) is 404', async () => {
    const { app } = await setUp(mode, [APP]);
    const reply = await app.request('OPTIONS', '/api/shorten', { headers: { origin: APP } });
    expect(reply.status).toBe(404);
  });

  test('a POST from an allowed origin is served, and its answer is readable there', async () => {
    const { client } = await setUp(mode, [APP]);
    const headers = { origin: APP, 'sec-fetch-site': 'cross-site' };
    const reply = await client.shorten({ url: 'https://example.com/' }, { headers });
    expect(reply.status).toBe(201);
    expect(Object.fromEntries(reply.headers)).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-expose-headers':
        'X-Total-Count, X-Total-Count-Exact, Link, Retry-After, X-Request-Id',
      vary: 'Origin',
    });
    // Errors too, so the page can show them.
    const bad = await client.shorten({ url: 'ftp://x' }, { headers });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(APP);
    const list = await client.app.get('/api/links', { token: client.token, headers });
    expect(list.json).toHaveLength(1);
    expect(list.headers.get('access-control-allow-origin')).toBe(APP);
    expect(list.headers.get('x-total-count')).toBe('1');
  });

  test('other origins are still refused, and get no CORS header', async () => {
    const { client } = await setUp(mode, [APP]);
    const reply = await client.shorten(
      { url: 'https://example.com/' },
      { headers: { origin: EVIL } },
    );
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(REFUSED);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    const read = await client.app.get('/api/links', {
      token: client.token,
      headers: { origin: EVIL },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
    expect(await linkCount(client)).toBe(0);
  });

  test('answers of the API say they vary by Origin, even to requests without one', async () => {
    const { app } = await setUp(mode, [APP]);
    expect((await app.get('/api/links')).headers.get('vary')).toBe('Origin');
    expect((await app.get('/api/nothing-here')).headers.get('vary')).toBe('Origin');
    // Outside the API nothing is shared cross-origin, so nothing varies by Origin.
    expect((await app.get('/health')).headers.get('vary')).toBeNull();
  });
});
