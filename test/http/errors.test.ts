import { describe, expect, test } from 'bun:test';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { withFaults } from '../support/faulty-store.ts';
import { TestApp } from '../support/test-app.ts';

const LIMIT = 64 * 1024;

describe.each(['accounts', 'open'] as const)('errors (%s mode)', (mode) => {
  async function setup() {
    const app = await TestApp.init(mode);
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    return { app, client };
  }

  test('a body over 64 KiB is 413 "Request body too large" and creates nothing', async () => {
    const { app, client } = await setup();
    const url = `https://example.com/${'x'.repeat(LIMIT)}`;
    const reply = await client.shorten({ url });
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({ error: 'Request body too large' });
    expect((await client.links()).json).toEqual([]);
    expect(await app.query('SELECT count(*) AS n FROM links')).toEqual([{ n: 0 }]);
  });

  test('a body of exactly 64 KiB is read', async () => {
    const { client } = await setup();
    const padding = 'p'.repeat(
      LIMIT - JSON.stringify({ url: 'https://example.com', pad: '' }).length,
    );
    const raw = JSON.stringify({ url: 'https://example.com', pad: padding });
    expect(Buffer.byteLength(raw)).toBe(LIMIT);
    expect((await client.shorten(undefined, { raw })).status).toBe(201);
  });

  test('a chunked body over 64 KiB is 413 too (no Content-Length to trust)', async () => {
    const { app, client } = await setup();
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (client.token) headers.authorization = `Bearer ${client.token}`;
    const response = await app.app.handle(
      new Request('http://localhost/api/shorten', { method: 'POST', body, headers }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'Request body too large' });
  });

  test('a lying Content-Length over the limit is refused before reading', async () => {
    const { client } = await setup();
    const reply = await client.shorten(undefined, {
      raw: '{"url":"https://example.com"}',
      headers: { 'content-length': String(LIMIT + 1) },
    });
    expect(reply.status).toBe(413);
  });

  test.each([
    ['GET', '/api'],
    ['GET', '/api/'],
    ['GET', '/api/nothing'],
    ['GET', '/api/shorten'],
    ['PUT', '/api/shorten'],
    ['DELETE', '/api/links'],
    ['POST', '/api/links'],
    ['PATCH', '/health'],
    ['POST', '/abc'],
    ['DELETE', '/abc'],
    ['POST', '/'],
    ['GET', '/assets/nothing.js'],
    ['GET', '/assets/'],
    ['GET', '/a/b/c'],
  ])('%s %s is 404 "Not found"', async (method, path) => {
    const { app, client } = await setup();
    await client.link('https://example.com', { custom_code: 'abc' });
    const reply = await app.request(method, path, { token: client.token });
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
  });

  test('an unexpected fault is 500 "Internal server error", logged with a request id, no stack out', async () => {
    const base = await TestApp.init(mode);
    const store = withFaults(base.store, {
      listLinks: () => Promise.reject(new Error('secret internals: table exploded')),
    });
    const app = await TestApp.init(mode, { store });
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    const reply = await client.links();
    expect(reply.status).toBe(500);
    expect(reply.json).toEqual({ error: 'Internal server error' });
    expect(reply.text).not.toContain('exploded');
    const id = reply.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const logged = app.log.lines.find((line) => line.includes(id as string));
    expect(logged).toContain('GET /api/links');
    expect(logged).toContain('table exploded');
  });

  test('a database that cannot be reached is 503 "Database unavailable" on every endpoint', async () => {
    const { app, client } = await setup();
    await client.link('https://example.com', { custom_code: 'abc' });
    await app.store.close();
    for (const reply of [
      await client.shorten({ url: 'https://example.com' }),
      await app.get('/abc'),
      await app.get('/other'),
    ]) {
      expect(reply.status).toBe(503);
      expect(reply.json).toEqual({ error: 'Database unavailable' });
    }
    if (mode === 'open') {
      const list = await client.links();
      expect(list.status).toBe(503);
      expect(list.json).toEqual({ error: 'Database unavailable' });
    }
  });

  test('a failed click commit answers 503, never a 307', async () => {
    const base = await TestApp.init(mode);
    const store = withFaults(base.store, {
      recordClicks: () => Promise.reject(new StoreUnavailableError()),
    });
    const app = await TestApp.init(mode, { store });
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    await client.link('https://example.com', { custom_code: 'abc' });
    const replies = await Promise.all([app.get('/abc'), app.get('/abc'), app.get('/abc')]);
    for (const reply of replies) {
      expect(reply.status).toBe(503);
      expect(reply.json).toEqual({ error: 'Database unavailable' });
      expect(reply.headers.get('location')).toBeNull();
    }
    expect(await client.clicksOf('abc')).toBe(0);
  });
});

describe('error precedence: body size → token → JSON object → url → custom_code → source', () => {
  test('413 before 401, 401 before 400', async () => {
    const app = await TestApp.init('accounts');
    const huge = JSON.stringify({ url: 'x'.repeat(LIMIT) });
    expect((await app.request('POST', '/api/shorten', { raw: huge })).status).toBe(413);
    const notJson = await app.request('POST', '/api/shorten', { raw: 'nope' });
    expect(notJson.status).toBe(401);
    expect(notJson.json).toEqual({ error: 'Unauthorized' });
    const badUrl = await app.post('/api/shorten', { url: 'ftp://x' }, { token: 'junk' });
    expect(badUrl.status).toBe(401);
    const ann = await app.user();
    const withToken = await app.request('POST', '/api/shorten', { raw: 'nope', token: ann.token });
    expect(withToken.status).toBe(400);
    expect(withToken.json).toEqual({ error: 'Request body must be a JSON object' });
  });

  test('register and login: 413 before 400', async () => {
    const app = await TestApp.init('accounts');
    for (const path of ['/api/auth/register', '/api/auth/login']) {
      const reply = await app.request('POST', path, { raw: 'x'.repeat(LIMIT + 1) });
      expect(reply.status).toBe(413);
      expect(reply.json).toEqual({ error: 'Request body too large' });
    }
  });
});
