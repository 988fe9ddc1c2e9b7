// The access log (--access-log on, off by default): a line per request once its answer is
// made, with method, path (no query string), status, duration, client address (as
// --trusted-proxies resolves it) and a request id, which a fault's log line and its 500
// share. The executable's JSON lines, its natively served redirect and what is never
// logged are in observability.test.ts.

import { describe, expect, test } from 'bun:test';
import { withFaults } from '../support/faulty-store.ts';
import { type AppOptions, PEER_HEADER, TestApp } from '../support/test-app.ts';

type Mode = 'accounts' | 'open';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Lets the hooks that run once an answer is made (Elysia runs them on the next turn) finish. */
const answered = () => new Promise((resolve) => setImmediate(resolve));

async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, { accessLog: true, ...options });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  return { app, client };
}

/** The access lines logged so far, by their fields. */
async function accessLines(app: TestApp) {
  await answered();
  return app.log.entries.filter((entry) => entry.fields?.duration_ms !== undefined);
}

describe.each(['accounts', 'open'] as const)('access log (%s mode)', (mode) => {
  test('is off by default', async () => {
    const app = await TestApp.init(mode);
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    const link = await client.link('https://example.com/');
    await app.get(`/${link.short_code}`);
    await app.get('/api/nothing');
    await answered();
    expect(app.log.lines).toEqual([]);
  });

  test('a line per request: method, path without its query, status, duration, client, request id', async () => {
    const { app, client } = await setup(mode);
    await client.link('https://example.com/', { custom_code: 'logged' });
    expect((await app.get('/logged?source=newsletter&token=abc')).status).toBe(307);
    expect((await app.get('/api/links?limit=1', { token: client.token })).status).toBe(200);
    expect((await app.get('/api/nothing')).status).toBe(404);

    const lines = await accessLines(app);
    const shown = lines.map((line) => [
      line.fields?.method,
      line.fields?.path,
      line.fields?.status,
    ]);
    expect(shown.slice(-4)).toEqual([
      ['POST', '/api/shorten', 201],
      ['GET', '/logged', 307],
      ['GET', '/api/links', 200],
      ['GET', '/api/nothing', 404],
    ]);
    const ids = new Set<unknown>();
    for (const { level, message, fields } of lines) {
      expect(level).toBe('info');
      expect(fields?.request_id).toMatch(UUID);
      ids.add(fields?.request_id);
      expect(fields?.client).toBe('192.0.2.1');
      expect(fields?.duration_ms).toBeNumber();
      expect(fields?.duration_ms as number).toBeGreaterThanOrEqual(0);
      // The text line says the same in a few words.
      expect(message).toBe(
        `${fields?.method} ${fields?.path} ${fields?.status} ${fields?.duration_ms} ms from 192.0.2.1 (request ${fields?.request_id})`,
      );
      expect(message).not.toContain('?');
    }
    expect(ids.size).toBe(lines.length);
  });

  test('the client is the address --trusted-proxies allows to be believed', async () => {
    const forwarded = { [PEER_HEADER]: '10.0.0.5', 'x-forwarded-for': '203.0.113.7' };
    const trusting = await setup(mode, { trustedProxies: ['10.0.0.0/8'] });
    await trusting.app.get('/api/nothing', { headers: forwarded });
    expect((await accessLines(trusting.app)).at(-1)?.fields?.client).toBe('203.0.113.7');
    const wary = await setup(mode);
    await wary.app.get('/api/nothing', { headers: forwarded });
    expect((await accessLines(wary.app)).at(-1)?.fields?.client).toBe('10.0.0.5');
  });

  test('a fault is logged under the request id of its access line and of its 500', async () => {
    const base = await TestApp.init(mode);
    const store = withFaults(base.store, {
      listLinks: () => Promise.reject(new Error('table exploded')),
    });
    const { app, client } = await setup(mode, { store });
    const reply = await client.links();
    expect(reply.status).toBe(500);
    const id = reply.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    const fault = app.log.entries.find((entry) => entry.level === 'error');
    expect(fault?.fields).toEqual({ request_id: id, method: 'GET', path: '/api/links' });
    expect(fault?.message).toContain(`request ${id} GET /api/links failed`);
    const access = (await accessLines(app)).at(-1);
    expect(access?.fields).toMatchObject({ request_id: id, status: 500, path: '/api/links' });
  });
});
