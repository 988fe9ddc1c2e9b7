// Headers every answer carries: nosniff always, HSTS when the base URL is https, no-store
// on the answers that carry a token. Every route and every kind of answer is walked,
// through Elysia (app.handle) and through the redirect Bun serves natively.

import { afterEach, describe, expect, test } from 'bun:test';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { withFaults } from '../support/faulty-store.ts';
import { type Reply, TestApp } from '../support/test-app.ts';

const HSTS = 'max-age=31536000';
const LIMIT = 64 * 1024;

interface Answer {
  what: string;
  status: number;
  headers: Headers;
}

/** Every answer has nosniff, and HSTS exactly when the base URL is https. */
function expectSecurityHeaders(answers: Answer[], https: boolean) {
  expect(answers.length).toBeGreaterThan(0);
  for (const { what, headers } of answers) {
    expect({ what, nosniff: headers.get('x-content-type-options') }).toEqual({
      what,
      nosniff: 'nosniff',
    });
    expect({ what, hsts: headers.get('strict-transport-security') }).toEqual({
      what,
      hsts: https ? HSTS : null,
    });
  }
}

const answer = (what: string, reply: Reply | Response): Answer => ({
  what,
  status: reply.status,
  headers: reply.headers,
});

/** One answer of each kind the app gives through app.handle, each checked for its status. */
async function everyAnswer(mode: 'accounts' | 'open', baseUrl?: string): Promise<Answer[]> {
  const app = await TestApp.init(mode, { baseUrl, corsOrigins: ['https://app.example'] });
  const answers: Answer[] = [];
  const add = (what: string, status: number, reply: Reply) => {
    expect({ what, status: reply.status }).toEqual({ what, status });
    answers.push(answer(what, reply));
  };
  const client = mode === 'accounts' ? await app.user('ann@example.com') : app.anonymous();
  const token = client.token;
  if (mode === 'accounts') {
    const credentials = { email: 'bob@example.com', password: 'correct horse 42' };
    add('register', 200, await app.post('/api/auth/register', credentials));
    add('register, taken', 400, await app.post('/api/auth/register', credentials));
    add('login', 200, await app.post('/api/auth/login', credentials));
    add('login, wrong', 401, await app.post('/api/auth/login', { ...credentials, password: 'x' }));
    add('shorten, no token', 401, await app.post('/api/shorten', { url: 'https://a.example' }));
  }
  add('shorten', 201, await client.shorten({ url: 'https://example.com/', custom_code: 'abc' }));
  add('shorten, bad url', 400, await client.shorten({ url: 'ftp://x' }));
  add('shorten, not JSON', 400, await client.shorten(undefined, { raw: 'nope' }));
  add('shorten, too large', 413, await client.shorten({ url: 'x'.repeat(LIMIT) }));
  add(
    'shorten, cross-site',
    403,
    await client.shorten(
      { url: 'https://a.example' },
      { headers: { origin: 'https://evil.example' } },
    ),
  );
  add(
    'shorten, allowed origin',
    201,
    await client.shorten(
      { url: 'https://a.example' },
      { headers: { origin: 'https://app.example' } },
    ),
  );
  add(
    'preflight',
    204,
    await app.request('OPTIONS', '/api/shorten', {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    }),
  );
  add('list', 200, await client.links());
  add('list, bad page', 400, await client.links('?limit=0'));
  add('QR svg', 200, await app.get('/api/links/abc/qr.svg', { token }));
  add('QR png', 200, await app.get('/api/links/abc/qr.png', { token }));
  add('QR, unknown', 404, await app.get('/api/links/nope/qr.png', { token }));
  add('redirect', 307, await app.get('/abc'));
  add('redirect, HEAD', 307, await app.request('HEAD', '/abc'));
  add('redirect, unknown code', 404, await app.get('/nope'));
  add('redirect, not a code', 404, await app.get('/no.pe'));
  add('health', 200, await app.get('/health'));
  add('web page', 200, await app.get('/'));
  add('web asset', 200, await app.get('/assets/app.js'));
  const etag = answers.at(-1)?.headers.get('etag') ?? '';
  add(
    'web asset, unchanged',
    304,
    await app.get('/assets/app.js', { headers: { 'if-none-match': etag } }),
  );
  add('web asset, unknown', 404, await app.get('/assets/nope.js'));
  add('OpenAPI document', 200, await app.get('/api/openapi.json'));
  add('API docs page', 200, await app.get('/api/docs'));
  add('unknown path', 404, await app.get('/a/b/c'));
  add('unknown method', 404, await app.request('DELETE', '/health'));

  // Faults: a 500 and the 503s.
  const faulty = await TestApp.init(mode, {
    baseUrl,
    store: withFaults(app.store, {
      listLinks: () => Promise.reject(new Error('boom')),
      ping: () => Promise.reject(new StoreUnavailableError()),
      recordClicks: () => Promise.reject(new StoreUnavailableError()),
      findLinkByCode: (code: string) =>
        code === 'down'
          ? Promise.reject(new StoreUnavailableError())
          : app.store.findLinkByCode(code),
    }),
  });
  add('fault', 500, await faulty.get('/api/links', { token }));
  add('health, database down', 503, await faulty.get('/health'));
  add('redirect, click not committed', 503, await faulty.get('/abc'));
  add('redirect, database down', 503, await faulty.get('/down'));
  return answers;
}

describe.each(['accounts', 'open'] as const)('every answer of the app (%s mode)', (mode) => {
  test('carries nosniff, and HSTS with an https base URL', async () => {
    expectSecurityHeaders(await everyAnswer(mode), true);
  });

  test('carries nosniff but no HSTS with an http base URL', async () => {
    expectSecurityHeaders(await everyAnswer(mode, 'http://localhost:3000'), false);
  });
});

describe.each(['accounts', 'open'] as const)('the natively served redirect (%s mode)', (mode) => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  /** Listens on 127.0.0.1, port 0; returns the address. */
  function listen(app: TestApp): string {
    app.app.listen({ hostname: '127.0.0.1', port: 0 });
    const server = app.app.server;
    if (server === null) throw new Error('not listening');
    const previous = stop;
    stop = async () => {
      await previous?.();
      await server.stop(true);
    };
    return `http://127.0.0.1:${server.port}`;
  }

  test.each([
    ['https://kurz.test', true],
    ['http://localhost:3000', false],
  ])('with base URL %p: 307, 404 and 503 all carry the headers', async (baseUrl, https) => {
    const app = await TestApp.init(mode, { baseUrl });
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    await client.link('https://example.com/', { custom_code: 'abc' });
    const faulty = await TestApp.init(mode, {
      baseUrl,
      store: withFaults(app.store, {
        recordClicks: () => Promise.reject(new StoreUnavailableError()),
        findLinkByCode: (code: string) =>
          code === 'down'
            ? Promise.reject(new StoreUnavailableError())
            : code === 'boom'
              ? Promise.reject(new Error('boom'))
              : app.store.findLinkByCode(code),
      }),
    });
    const good = listen(app);
    const bad = listen(faulty);
    const get = (base: string, path: string, method = 'GET') =>
      fetch(base + path, { method, redirect: 'manual' });
    const answers: [string, number, Response][] = [
      ['307 from the store', 307, await get(good, '/abc')],
      ['307 from the cache', 307, await get(good, '/abc')],
      ['HEAD 307', 307, await get(good, '/abc', 'HEAD')],
      ['404 unknown', 404, await get(good, '/nope')],
      ['404 unknown, from the cache', 404, await get(good, '/nope')],
      ['404 not a code', 404, await get(good, '/no.pe')],
      ['503 click not committed', 503, await get(bad, '/abc')],
      ['503 lookup', 503, await get(bad, '/down')],
      ['500 lookup', 500, await get(bad, '/boom')],
    ];
    for (const [what, status, response] of answers) {
      expect({ what, status: response.status }).toEqual({ what, status });
      await response.arrayBuffer();
    }
    const first = answers[0]?.[2];
    expect(first?.headers.get('location')).toBe('https://example.com/');
    expect(first?.headers.get('cache-control')).toBe('private, no-store');
    expectSecurityHeaders(
      answers.map(([what, , response]) => answer(what, response)),
      https,
    );
  });
});

describe('answers that carry a token', () => {
  test('register and login are no-store; answers without a token keep their own caching', async () => {
    const app = await TestApp.init('accounts');
    const credentials = { email: 'ann@example.com', password: 'correct horse 42' };
    const register = await app.post('/api/auth/register', credentials);
    const login = await app.post('/api/auth/login', credentials);
    for (const reply of [register, login]) {
      expect(reply.json.token).toBeString();
      expect(reply.headers.get('cache-control')).toBe('no-store');
    }
    const ann = await app.user();
    await ann.link('https://example.com/', { custom_code: 'abc' });
    const qr = await app.get('/api/links/abc/qr.svg', { token: ann.token });
    expect(qr.headers.get('cache-control')).toBe('private, max-age=300');
    expect((await app.get('/assets/app.js')).headers.get('cache-control')).toBe(
      'public, max-age=300, must-revalidate',
    );
  });
});

describe('the web UI', () => {
  test('keeps its strict Content Security Policy', async () => {
    const app = await TestApp.init('open');
    const page = await app.get('/');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data: https:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });
});
