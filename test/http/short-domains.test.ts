// Several short domains: a link belongs to one, chosen with `domain` at creation; codes
// are unique per domain; the redirect chooses by Host; the per-link endpoints take
// ?domain=; details, stats and CSV name the domain; each domain may send its bare
// address and its unknown codes elsewhere. Managing domains is in domains.test.ts.

import { describe, expect, test } from 'bun:test';
import { ADMIN_TOKEN, type Client, TestApp } from '../support/test-app.ts';

type Mode = 'accounts' | 'open';
const MODES: Mode[] = ['accounts', 'open'];
const UNKNOWN_DOMAIN = {
  error: "domain must name one of this service's short domains (its host or base URL)",
};

async function setUp(mode: Mode) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN });
  const go = await app.addDomain('https://Go.Example.com/');
  const other = await app.addDomain('http://s.example.org:8080');
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  // Changes need the admin token in open mode, the owner's in accounts mode.
  const manager = mode === 'accounts' ? client.token : ADMIN_TOKEN;
  return { app, client, manager, go, other };
}

/** A redirect as a visitor on `host` asks for it. */
function visit(app: TestApp, code: string, host: string) {
  return app.request('GET', `/${code}`, { headers: { host } });
}

for (const mode of MODES) {
  describe(`short domains (${mode} mode)`, () => {
    test('a link is made on the domain its host or base URL names; the 201 keeps the link object exactly', async () => {
      const { client } = await setUp(mode);
      for (const domain of ['go.example.com', 'https://go.example.com', 'GO.EXAMPLE.COM.']) {
        const reply = await client.shorten({ url: 'https://example.com/', domain });
        expect(reply.status).toBe(201);
        const fields = ['id', 'original_url', 'short_code', 'created_at', 'clicks'];
        if (mode === 'accounts') fields.splice(1, 0, 'user_id');
        expect(Object.keys(reply.json).sort()).toEqual(fields.sort());
      }
      const onPort = await client.shorten({
        url: 'https://example.com/',
        domain: 's.example.org:8080',
      });
      expect(onPort.status).toBe(201);
    });

    test('an unknown domain, or one that is not a string, is refused with 400 and nothing is made', async () => {
      const { app, client } = await setUp(mode);
      for (const domain of [
        'nope.example',
        'https://go.example.com/path',
        's.example.org',
        42,
        ['go.example.com'],
      ]) {
        const reply = await client.shorten({ url: 'https://example.com/', domain });
        expect(reply.status).toBe(400);
        if (typeof domain === 'string') expect(reply.json).toEqual(UNKNOWN_DOMAIN);
      }
      expect((await client.links()).json).toEqual([]);
      // null and absent mean the default domain.
      const plain = await client.link('https://example.com/', { domain: null });
      const detail = await app.get(`/api/links/${plain.short_code}`, { token: client.token });
      expect(detail.json.domain).toBe('kurz.test');
      expect(detail.json.short_url).toBe(`https://kurz.test/${plain.short_code}`);
    });

    test('a code is unique per domain: promo on two domains is two links, each reached by ?domain=', async () => {
      const { app, client, manager } = await setUp(mode);
      const onDefault = await client.link('https://a.example/', { custom_code: 'promo' });
      const onGo = await client.link('https://b.example/', {
        custom_code: 'promo',
        domain: 'go.example.com',
      });
      expect(onGo.id).not.toBe(onDefault.id);
      const again = await client.shorten({
        url: 'https://c.example/',
        custom_code: 'promo',
        domain: 'go.example.com',
      });
      expect(again.status).toBe(400);
      expect(again.json).toEqual({ error: 'Custom code already taken' });

      const plain = await app.get('/api/links/promo', { token: client.token });
      expect(plain.json).toMatchObject({
        original_url: 'https://a.example/',
        domain: 'kurz.test',
        short_url: 'https://kurz.test/promo',
      });
      const go = await app.get('/api/links/promo?domain=go.example.com', { token: client.token });
      expect(go.json).toMatchObject({
        original_url: 'https://b.example/',
        domain: 'go.example.com',
        short_url: 'https://go.example.com/promo',
      });
      const byUrl = await app.get(
        `/api/links/promo?domain=${encodeURIComponent('https://go.example.com')}`,
        { token: client.token },
      );
      expect(byUrl.json.id).toBe(onGo.id);
      expect(
        (await app.get('/api/links/promo?domain=s.example.org:8080', { token: client.token }))
          .status,
      ).toBe(404);
      expect(
        (await app.get('/api/links/promo?domain=nope.example', { token: client.token })).json,
      ).toEqual(UNKNOWN_DOMAIN);

      // PATCH and DELETE reach the link of the domain named, and no other.
      const changed = await app.request('PATCH', '/api/links/promo?domain=go.example.com', {
        token: manager,
        json: { url: 'https://b2.example/', tags: ['Sale'] },
      });
      expect(changed.status).toBe(200);
      expect(changed.json).toMatchObject({
        original_url: 'https://b2.example/',
        domain: 'go.example.com',
        tags: ['sale'],
      });
      expect((await app.get('/api/links/promo', { token: client.token })).json.original_url).toBe(
        'https://a.example/',
      );
      const gone = await app.request('DELETE', '/api/links/promo?domain=go.example.com', {
        token: manager,
      });
      expect(gone.status).toBe(204);
      expect(
        (await app.get('/api/links/promo?domain=go.example.com', { token: client.token })).status,
      ).toBe(404);
      expect((await app.get('/api/links/promo', { token: client.token })).status).toBe(200);
    });

    test('the redirect chooses by Host, normalised; a host that is no domain is the default one', async () => {
      const { app, client } = await setUp(mode);
      await client.link('https://default.example/', { custom_code: 'x' });
      await client.link('https://go.example/', { custom_code: 'x', domain: 'go.example.com' });
      await client.link('https://port.example/', {
        custom_code: 'x',
        domain: 's.example.org:8080',
      });
      const cases: [string, string][] = [
        ['go.example.com', 'https://go.example/'],
        ['GO.example.COM', 'https://go.example/'],
        ['go.example.com.', 'https://go.example/'],
        ['go.example.com:443', 'https://go.example/'],
        ['s.example.org:8080', 'https://port.example/'],
        ['s.example.org', 'https://default.example/'],
        ['localhost:3000', 'https://default.example/'],
        ['kurz.test', 'https://default.example/'],
        ['127.0.0.1', 'https://default.example/'],
      ];
      for (const [host, target] of cases) {
        const reply = await visit(app, 'x', host);
        expect([host, reply.status, reply.headers.get('location')]).toEqual([host, 307, target]);
      }
      // Each click counted on its own link.
      const go = await app.get('/api/links/x?domain=go.example.com', { token: client.token });
      expect(go.json.clicks).toBe(4);
    });

    test('a code on one domain is unknown on another, and a miss remembered there hides nothing here', async () => {
      const { app, client } = await setUp(mode);
      expect((await visit(app, 'only', 'go.example.com')).status).toBe(404);
      await client.link('https://go.example/', { custom_code: 'only', domain: 'go.example.com' });
      expect((await visit(app, 'only', 'go.example.com')).status).toBe(307);
      expect((await visit(app, 'only', 'kurz.test')).status).toBe(404);
    });

    test('a domain may send unknown codes and its bare address elsewhere; the default one keeps the 404 and the web UI', async () => {
      const app = await TestApp.init(mode);
      await app.addDomain('https://go.example.com', {
        rootRedirect: 'https://www.example.com/',
        notFoundRedirect: 'https://www.example.com/missing?x=1',
      });
      const unknown = await visit(app, 'nothing', 'go.example.com');
      expect(unknown.status).toBe(302);
      expect(unknown.headers.get('location')).toBe('https://www.example.com/missing?x=1');
      expect((await visit(app, 'nothing', 'kurz.test')).status).toBe(404);
      const root = await app.request('GET', '/', { headers: { host: 'go.example.com' } });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('https://www.example.com/');
      const ui = await app.request('GET', '/', { headers: { host: 'kurz.test' } });
      expect(ui.status).toBe(200);
      expect(ui.headers.get('content-type')).toContain('text/html');
      // Reserved words stay reserved on every domain.
      const client = mode === 'accounts' ? await app.user() : app.anonymous();
      const reserved = await client.shorten({
        url: 'https://example.com/',
        custom_code: 'api',
        domain: 'go.example.com',
      });
      expect(reserved.json).toEqual({ error: 'This code is reserved and cannot be used' });
    });

    test('every added domain is kurz itself: a target on it is refused, a browser may write under it', async () => {
      const { app, client } = await setUp(mode);
      for (const url of [
        'https://go.example.com/x',
        'http://GO.example.com./y',
        'http://s.example.org:8080/z',
      ]) {
        const reply = await client.shorten({ url });
        expect([url, reply.json]).toEqual([url, { error: 'URL must not point to this service' }]);
      }
      expect((await client.shorten({ url: 'http://s.example.org/elsewhere' })).status).toBe(201);
      // In process, the request's URL carries the Host, as Bun builds it when serving.
      const write = (host: string) =>
        app.handle(
          new Request(`http://${host}/api/shorten`, {
            method: 'POST',
            headers: {
              origin: `http://${host}`,
              'sec-fetch-site': 'same-origin',
              'content-type': 'application/json',
              ...(client.token ? { authorization: `Bearer ${client.token}` } : {}),
            },
            body: JSON.stringify({ url: 'https://example.com/', domain: 'go.example.com' }),
          }),
        );
      expect((await write('go.example.com')).status).toBe(201);
      const rebound = await write('evil.example');
      expect(rebound.status).toBe(403);
    });

    test('stats, CSV and QR codes of a link on a domain name it', async () => {
      const { app, client } = await setUp(mode);
      await client.link('https://go.example/', { custom_code: 'st', domain: 'go.example.com' });
      await visit(app, 'st', 'go.example.com');
      const stats = await app.get('/api/links/st/stats?domain=go.example.com', {
        token: client.token,
      });
      expect(stats.status).toBe(200);
      expect(stats.json).toMatchObject({ short_code: 'st', domain: 'go.example.com', clicks: 1 });
      const csv = await app.get('/api/links/st/clicks.csv?domain=go.example.com', {
        token: client.token,
      });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-disposition')).toBe(
        'attachment; filename="go.example.com-st-clicks.csv"',
      );
      expect(csv.text.split('\n').filter((line) => line !== '')).toHaveLength(2);
      const qr = await app.get('/api/links/st/qr.svg?domain=go.example.com', {
        token: client.token,
      });
      expect(qr.status).toBe(200);
      expect((await app.get('/api/links/st/stats', { token: client.token })).status).toBe(404);
    });

    test('50 creates of one custom code at once on one domain: exactly one 201; the same code on two domains: both', async () => {
      const { client } = await setUp(mode);
      const replies = await Promise.all(
        Array.from({ length: 50 }, () =>
          client.shorten({
            url: 'https://example.com/',
            custom_code: 'race',
            domain: 'go.example.com',
          }),
        ),
      );
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 400)).toHaveLength(49);
      const both = await Promise.all(
        ['go.example.com', 's.example.org:8080'].map((domain) =>
          client.shorten({ url: 'https://example.com/', custom_code: 'twin', domain }),
        ),
      );
      expect(both.map((r) => r.status)).toEqual([201, 201]);
    });

    test('tags are set at creation and replaced by PATCH, lower-cased and sorted, shown in details', async () => {
      const { app, client, manager } = await setUp(mode);
      const link = await client.link('https://example.com/', {
        tags: ['Spring', 'mail', 'spring'],
      });
      const detail = await app.get(`/api/links/${link.short_code}`, { token: client.token });
      expect(detail.json.tags).toEqual(['mail', 'spring']);
      const cleared = await app.request('PATCH', `/api/links/${link.short_code}`, {
        token: manager,
        json: { tags: null },
      });
      expect(cleared.json.tags).toEqual([]);
      const bad = await client.shorten({ url: 'https://example.com/', tags: ['no spaces'] });
      expect(bad.status).toBe(400);
      expect(bad.json.error).toStartWith('tags must be');
      const tooMany = await client.shorten({
        url: 'https://example.com/',
        tags: Array.from({ length: 11 }, (_, i) => `t${i}`),
      });
      expect(tooMany.status).toBe(400);
    });
  });
}

describe('short domains across users (accounts mode)', () => {
  test("another user's link on a domain is 404, as on the default domain", async () => {
    const app = await TestApp.init('accounts');
    await app.addDomain('https://go.example.com');
    const ann: Client = await app.user();
    const bob: Client = await app.user();
    await ann.link('https://example.com/', { custom_code: 'mine', domain: 'go.example.com' });
    expect(
      (await app.get('/api/links/mine?domain=go.example.com', { token: bob.token })).status,
    ).toBe(404);
    // Bob may take the same code on the default domain.
    expect((await bob.shorten({ url: 'https://example.com/', custom_code: 'mine' })).status).toBe(
      201,
    );
  });
});
