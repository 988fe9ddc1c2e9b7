// Reports of abusive links: POST /api/reports (anyone, limited per client), the admins'
// queue (GET /api/admin/reports) and its resolution (disable the link, its owner too,
// or dismiss), and the report.created webhook event, told to admins' webhooks (and open
// mode's) only.

import { describe, expect, test } from 'bun:test';
import { DEFAULT_RATE_LIMITS } from '../../src/config/config.ts';
import { eventually } from '../support/binary.ts';
import {
  ADMIN_TOKEN,
  type AppOptions,
  BASE_URL,
  PEER_HEADER,
  TestApp,
} from '../support/test-app.ts';
import { Receiver } from '../support/webhook-receiver.ts';

const MODES = ['accounts', 'open'] as const;
type Mode = (typeof MODES)[number];

async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN, ...options });
  const owner = mode === 'accounts' ? await app.user('owner@example.com') : app.anonymous();
  const adminToken =
    mode === 'accounts' ? ((await app.admin('boss@example.com')).token as string) : ADMIN_TOKEN;
  return {
    app,
    owner,
    adminToken,
    report: (json: unknown, headers: Record<string, string> = {}) =>
      app.post('/api/reports', json, { headers }),
    // `token`: another bearer token to send, or null for none.
    queue: (query = '', token: string | null = adminToken) =>
      app.get(`/api/admin/reports${query}`, { token: token ?? undefined }),
    resolve: (id: number | string, json: unknown, token: string | null = adminToken) =>
      app.post(`/api/admin/reports/${id}/resolve`, json, { token: token ?? undefined }),
  };
}

for (const mode of MODES) {
  describe(`POST /api/reports (${mode} mode)`, () => {
    test('takes a code or a short URL, with no credential, and answers 201 received', async () => {
      const { app, owner, report, queue } = await setup(mode);
      await owner.link('https://evil.example/login', { custom_code: 'bad' });
      const byCode = await report({
        code: 'bad',
        reason: 'phishing',
        details: 'asks for my bank password',
      });
      expect(byCode.status).toBe(201);
      expect(byCode.json).toEqual({ id: expect.any(Number), status: 'received' });
      for (const url of [`${BASE_URL}/bad`, `${BASE_URL}/bad+`, `${BASE_URL}/bad+report`]) {
        expect((await report({ short_url: url, reason: 'spam' })).status).toBe(201);
      }
      await app.addDomain('https://go.example');
      await owner.link('https://evil.example/2', { custom_code: 'bad', domain: 'go.example' });
      expect((await report({ code: 'bad', domain: 'go.example', reason: 'malware' })).status).toBe(
        201,
      );
      expect((await report({ short_url: 'https://go.example/bad', reason: 'other' })).status).toBe(
        201,
      );

      const listed = await queue();
      expect(listed.status).toBe(200);
      expect(listed.headers.get('x-total-count')).toBe('6');
      expect(listed.json.map((r: { reason: string }) => r.reason)).toEqual([
        'other',
        'malware',
        'spam',
        'spam',
        'spam',
        'phishing',
      ]);
      expect(listed.json.at(-1)).toEqual({
        id: byCode.json.id,
        code: 'bad',
        short_url: `${BASE_URL}/bad`,
        domain: 'kurz.test',
        reason: 'phishing',
        details: 'asks for my bank password',
        created_at: expect.any(String),
        resolved_at: null,
        resolution: null,
        link: {
          original_url: 'https://evil.example/login',
          disabled: false,
          owner: mode === 'accounts' ? { id: owner.user?.id, email: 'owner@example.com' } : null,
          clicks: 0,
        },
      });
      expect(listed.json[0]).toMatchObject({
        short_url: 'https://go.example/bad',
        domain: 'go.example',
      });
    });

    test('refuses what is not a report, in the documented order', async () => {
      const { owner, report } = await setup(mode);
      await owner.link('https://evil.example/', { custom_code: 'bad' });
      const cases: [unknown, number, string][] = [
        [[], 400, 'Request body must be a JSON object'],
        [{ reason: 'spam' }, 400, 'code or short_url is required'],
        [{ code: '', reason: 'spam' }, 400, 'code or short_url is required'],
        [{ code: 'bad' }, 400, 'reason must be phishing, malware, spam, illegal or other'],
        [
          { code: 'bad', reason: 'rude' },
          400,
          'reason must be phishing, malware, spam, illegal or other',
        ],
        [
          { code: 'bad', reason: 'spam', details: 'x'.repeat(1001) },
          400,
          'details must be a string of at most 1000 characters',
        ],
        [
          { code: 'bad', reason: 'spam', details: 7 },
          400,
          'details must be a string of at most 1000 characters',
        ],
        [{ code: 'nope', reason: 'spam' }, 404, 'Not found'],
        [{ code: 'no+pe', reason: 'spam' }, 404, 'Not found'],
        [{ short_url: 'https://elsewhere.example/bad', reason: 'spam' }, 404, 'Not found'],
        [{ short_url: 'not a url', reason: 'spam' }, 404, 'Not found'],
        [
          { code: 'bad', domain: 'unknown.example', reason: 'spam' },
          400,
          "domain must name one of this service's short domains (its host or base URL)",
        ],
      ];
      for (const [body, status, error] of cases) {
        const reply = await report(body);
        expect([body, reply.status, reply.json]).toEqual([body, status, { error }]);
      }
      expect(
        (await report({ code: 'bad', reason: 'spam', details: 'x'.repeat(1000) })).status,
      ).toBe(201);
      // A browser on another site may not report in the visitor's name.
      const crossSite = await report(
        { code: 'bad', reason: 'spam' },
        { origin: 'https://elsewhere.example' },
      );
      expect(crossSite.status).toBe(403);
    });

    test('is limited per client address: 429 with Retry-After', async () => {
      const { owner, report } = await setup(mode, {
        rateLimits: { ...DEFAULT_RATE_LIMITS, report: { count: 2, windowMs: 3_600_000 } },
      });
      await owner.link('https://evil.example/', { custom_code: 'bad' });
      const from = (peer: string) => ({ [PEER_HEADER]: peer });
      for (let i = 0; i < 2; i++) {
        expect((await report({ code: 'bad', reason: 'spam' }, from('198.51.100.1'))).status).toBe(
          201,
        );
      }
      const limited = await report({ code: 'bad', reason: 'spam' }, from('198.51.100.1'));
      expect(limited.status).toBe(429);
      expect(limited.json).toEqual({ error: 'Too many requests' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await report({ code: 'bad', reason: 'spam' }, from('198.51.100.2'))).status).toBe(
        201,
      );
    });
  });

  describe(`the admins' queue of reports (${mode} mode)`, () => {
    test('lists waiting, resolved or all reports, newest first, in pages', async () => {
      const { owner, report, queue, resolve } = await setup(mode);
      await owner.link('https://evil.example/', { custom_code: 'bad' });
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await report({ code: 'bad', reason: 'spam' })).json.id);
      expect((await resolve(ids[0] as number, { action: 'dismiss' })).status).toBe(200);
      const waiting = await queue();
      expect(waiting.json.map((r: { id: number }) => r.id)).toEqual([ids[2], ids[1]]);
      expect((await queue('?status=resolved')).json.map((r: { id: number }) => r.id)).toEqual([
        ids[0],
      ]);
      const page = await queue('?status=all&limit=1&offset=1');
      expect(page.headers.get('x-total-count')).toBe('3');
      expect(page.json.map((r: { id: number }) => r.id)).toEqual([ids[1]]);
      expect((await queue('?status=new')).json).toEqual({
        error: 'status must be waiting, resolved or all',
      });
      expect((await queue('?limit=0')).status).toBe(400);
    });

    test('is for admins only', async () => {
      const { app, queue, resolve } = await setup(mode);
      expect((await queue('', null)).status).toBe(401);
      expect((await queue('', 'wrong')).status).toBe(401);
      expect((await resolve(1, { action: 'dismiss' }, null)).status).toBe(401);
      if (mode === 'accounts') {
        const user = await app.user();
        expect((await queue('', user.token as string)).status).toBe(403);
        expect((await resolve(1, { action: 'dismiss' }, user.token as string)).status).toBe(403);
      }
    });

    test('a report is resolved once: dismissed, or its link disabled (its host blocked too)', async () => {
      const { app, owner, adminToken, report, resolve, queue } = await setup(mode);
      await owner.link('https://evil.example/x', { custom_code: 'bad' });
      await owner.link('https://meh.example/x', { custom_code: 'meh' });
      const first = (await report({ code: 'bad', reason: 'phishing' })).json.id;
      const second = (await report({ code: 'meh', reason: 'spam' })).json.id;

      expect((await resolve(second, { action: 'dismiss' })).json).toMatchObject({
        id: second,
        resolution: 'dismiss',
        resolved_at: expect.any(String),
      });
      expect((await app.get('/meh')).status).toBe(307);
      expect((await resolve(second, { action: 'dismiss' })).json).toEqual({
        error: 'Report already resolved',
      });
      expect((await resolve(9999, { action: 'dismiss' })).status).toBe(404);
      expect((await resolve('abc', { action: 'dismiss' })).status).toBe(404);
      expect((await resolve(first, { action: 'ban' })).json).toEqual({
        error: 'action must be disable_link, disable_user or dismiss',
      });
      expect(
        (await resolve(first, { action: 'disable_link', reason: 'x'.repeat(501) })).json,
      ).toEqual({
        error: 'reason must be a string of at most 500 characters',
      });
      // Counted as the body's schema counts it (UTF-16 units): 300 emoji are 600.
      expect(
        (await resolve(first, { action: 'disable_link', reason: '🎣'.repeat(300) })).json,
      ).toEqual({
        error: 'reason must be a string of at most 500 characters',
      });
      expect((await resolve(first, { action: 'disable_link', block_host: null })).json).toEqual({
        error: 'block_host must be true or false',
      });

      const disabled = await resolve(first, {
        action: 'disable_link',
        reason: 'Phishing',
        block_host: true,
      });
      expect(disabled.status).toBe(200);
      expect(disabled.json).toMatchObject({
        resolution: 'disable_link',
        link: { original_url: 'https://evil.example/x', disabled: true },
      });
      expect((await app.get('/bad')).json).toEqual({ error: 'Link disabled' });
      expect((await app.get('/bad', { headers: { accept: 'text/html' } })).text).toContain(
        'Phishing',
      );
      const blocklist = await app.get('/api/admin/blocklist', { token: adminToken });
      expect(blocklist.json).toMatchObject([{ host: 'evil.example', reason: 'Phishing' }]);
      expect((await queue('?status=waiting')).json).toEqual([]);
      // New links to the blocked host are refused.
      expect((await owner.shorten({ url: 'https://evil.example/again' })).json).toEqual({
        error: 'URL is blocked',
      });
    });

    test('disable_user disables the owner and the link; a link of no one has no owner to disable', async () => {
      const { app, owner, report, resolve } = await setup(mode);
      await owner.link('https://evil.example/x', { custom_code: 'bad' });
      const id = (await report({ code: 'bad', reason: 'malware' })).json.id;
      const reply = await resolve(id, { action: 'disable_user' });
      if (mode === 'open') {
        expect(reply.json).toEqual({ error: 'The link has no owner to disable' });
        expect((await app.get('/bad')).status).toBe(307);
        return;
      }
      expect(reply.status).toBe(200);
      expect(reply.json).toMatchObject({ resolution: 'disable_user', link: { disabled: true } });
      expect((await owner.links()).status).toBe(401);
      expect((await app.get('/bad')).status).toBe(410);
    });
  });
}

describe('report.created webhooks', () => {
  test("go to an admin's webhook, not to a user's; a user may not ask for them", async () => {
    const { app, owner, adminToken, report } = await setup('accounts', { webhooks: {} });
    const forAdmin = Receiver.start();
    const forUser = Receiver.start();
    const made = await app.post(
      '/api/webhooks',
      { url: forAdmin.url, events: ['report.created'] },
      { token: adminToken },
    );
    expect(made.status).toBe(201);
    expect(made.json.events).toEqual(['report.created']);
    const refused = await app.post(
      '/api/webhooks',
      { url: forUser.url, events: ['link.created', 'report.created'] },
      { token: owner.token },
    );
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'Forbidden' });
    // Without events, a webhook hears of its owner's links only.
    const plain = await app.post('/api/webhooks', { url: forUser.url }, { token: owner.token });
    expect(plain.json.events).toEqual(['link.created', 'link.updated', 'link.deleted', 'clicks']);

    await owner.link('https://evil.example/x', { custom_code: 'bad' });
    const id = (await report({ code: 'bad', reason: 'phishing', details: 'fake bank' })).json.id;
    await eventually(() => forAdmin.messages().length === 1, 'the admin is told');
    const [message] = forAdmin.messages();
    expect(message.type).toBe('report.created');
    expect(message.data).toEqual({
      id,
      code: 'bad',
      short_url: `${BASE_URL}/bad`,
      domain: 'kurz.test',
      reason: 'phishing',
      details: 'fake bank',
      created_at: expect.any(String),
      resolved_at: null,
      resolution: null,
      link: {
        original_url: 'https://evil.example/x',
        disabled: false,
        owner: { id: owner.user?.id, email: 'owner@example.com' },
        clicks: 0,
      },
    });
    await eventually(() => forUser.messages().length === 1, "the user's link.created");
    expect(forUser.messages().map((m) => m.type)).toEqual(['link.created']);
  });

  test("go to open mode's webhooks, registered with the admin token", async () => {
    const { app, owner, report } = await setup('open', { webhooks: {} });
    const receiver = Receiver.start();
    const made = await app.post(
      '/api/webhooks',
      { url: receiver.url, events: ['report.created'] },
      { token: ADMIN_TOKEN },
    );
    expect(made.status).toBe(201);
    await owner.link('https://evil.example/x', { custom_code: 'bad' });
    await report({ code: 'bad', reason: 'illegal' });
    await eventually(() => receiver.messages().length === 1, 'the operator is told');
    expect(receiver.messages()[0]).toMatchObject({
      type: 'report.created',
      data: { code: 'bad', reason: 'illegal', link: { owner: null } },
    });
  });
});
