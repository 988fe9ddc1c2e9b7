// Redirect rules and A/B variants through the API, in both modes: set at creation (one
// link or in bulk), shown in details, replaced and cleared by PATCH and followed at once,
// refused with the place of the broken part, and applied by the redirect (after the
// password of a protected link; the country through a trusted proxy).

import { describe, expect, test } from 'bun:test';
import { ADMIN_TOKEN, PEER_HEADER, TestApp } from '../support/test-app.ts';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const APP_STORE = 'https://apps.apple.com/app/id123';
const PLAY = 'https://play.google.com/store/apps/details?id=example';
const SITE = 'https://example.com/app';
const STORE_RULES = [
  { url: APP_STORE, conditions: [{ type: 'os', value: 'ios' }] },
  { url: PLAY, conditions: [{ type: 'os', value: 'android' }] },
];
const SPLIT = [
  { url: 'https://example.com/a', weight: 50 },
  { url: 'https://example.com/b', weight: 50 },
];

async function setup(mode: 'accounts' | 'open') {
  const app = await TestApp.init(mode, {
    adminToken: ADMIN_TOKEN,
    trustedProxies: ['10.0.0.0/8'],
  });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const manage = mode === 'accounts' ? client.token : ADMIN_TOKEN;
  const visit = (code: string, headers: Record<string, string> = {}) =>
    app.get(`/${code}`, { headers });
  const patch = (code: string, json: unknown) =>
    app.request('PATCH', `/api/links/${code}`, { json, token: manage });
  const detail = (code: string) => app.get(`/api/links/${code}`, { token: client.token });
  return { app, client, visit, patch, detail };
}

for (const mode of ['accounts', 'open'] as const) {
  describe(`redirect rules and A/B variants (${mode} mode)`, () => {
    test('rules set at creation are shown in details and send each visitor to their target', async () => {
      const { client, visit, detail } = await setup(mode);
      const made = await client.shorten({ url: SITE, custom_code: 'app', rules: STORE_RULES });
      expect(made.status).toBe(201);
      expect((await detail('app')).json).toMatchObject({ rules: STORE_RULES, variants: [] });
      const iphone = await visit('app', { 'user-agent': IPHONE });
      expect([iphone.status, iphone.headers.get('location')]).toEqual([307, APP_STORE]);
      const android = await visit('app', { 'user-agent': ANDROID });
      expect(android.headers.get('location')).toBe(PLAY);
      const other = await visit('app', { 'user-agent': 'curl/8.5.0' });
      expect(other.headers.get('location')).toBe(SITE);
      expect(other.headers.get('set-cookie')).toBeNull();
      expect(await client.clicksOf('app')).toBe(3);
    });

    test('PATCH replaces the rules and the redirect follows at once; [] and null clear them', async () => {
      const { client, visit, patch, detail } = await setup(mode);
      await client.link(SITE, { custom_code: 'app', rules: STORE_RULES });
      expect((await visit('app', { 'user-agent': IPHONE })).headers.get('location')).toBe(
        APP_STORE,
      );
      const german = [
        { url: 'https://example.com/de', conditions: [{ type: 'language', value: 'DE' }] },
      ];
      const changed = await patch('app', { rules: german });
      expect(changed.status).toBe(200);
      expect(changed.json.rules).toEqual([
        { url: 'https://example.com/de', conditions: [{ type: 'language', value: 'de' }] },
      ]);
      expect((await visit('app', { 'user-agent': IPHONE })).headers.get('location')).toBe(SITE);
      const de = await visit('app', { 'accept-language': 'de-AT, en;q=0.3' });
      expect(de.headers.get('location')).toBe('https://example.com/de');
      const en = await visit('app', { 'accept-language': 'en, de;q=0.9' });
      expect(en.headers.get('location')).toBe(SITE);
      // Other fields leave the rules alone; [] clears them, as null does.
      expect((await patch('app', { tags: ['x'] })).json.rules).toHaveLength(1);
      expect((await patch('app', { rules: [] })).json.rules).toEqual([]);
      await patch('app', { rules: german });
      expect((await patch('app', { rules: null })).json.rules).toEqual([]);
      expect((await visit('app', { 'accept-language': 'de' })).headers.get('location')).toBe(SITE);
      expect((await detail('app')).json.rules).toEqual([]);
    });

    test('a broken rule or split is refused with its place, and nothing changes', async () => {
      const { client, patch, detail } = await setup(mode);
      const refused = await client.shorten({
        url: SITE,
        rules: [STORE_RULES[0], { url: PLAY, conditions: [{ type: 'os', value: 'symbian' }] }],
      });
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({
        error: 'rules[1].conditions[0]: os must be ios, android, windows, macos or linux',
      });
      await client.link(SITE, { custom_code: 'app', rules: STORE_RULES });
      const cases: [unknown, string][] = [
        [
          { rules: [{ url: 'http://localhost/app', conditions: [{ type: 'bot', value: true }] }] },
          'rules[0].url: URL must not point to this service',
        ],
        [
          { rules: [{ url: SITE, conditions: [] }] },
          'rules[0].conditions: conditions must be a list of 1 to 10 conditions',
        ],
        [
          { rules: 'ios' },
          'rules must be a list of at most 20 rules, each with url and conditions',
        ],
        [
          {
            variants: [
              { url: SITE, weight: 60 },
              { url: PLAY, weight: 60 },
            ],
          },
          'variants must be a list of 2 to 4 variants whose weights add up to 100',
        ],
        [
          {
            variants: [
              { url: SITE, weight: 50 },
              { url: 'ftp://x', weight: 50 },
            ],
          },
          'variants[1].url: URL must start with http:// or https://',
        ],
        [
          { tags: ['ok'], rules: [{ url: SITE, conditions: [{ type: 'after', value: 'soon' }] }] },
          'rules[0].conditions[0]: after and before must be ISO 8601 date-times with a time zone, such as 2026-12-31T23:59:59Z',
        ],
      ];
      for (const [body, error] of cases) {
        const reply = await patch('app', body);
        expect({ status: reply.status, body: reply.json }).toEqual({
          status: 400,
          body: { error },
        });
      }
      expect((await detail('app')).json).toMatchObject({
        rules: STORE_RULES,
        tags: [],
        variants: [],
      });
    });

    test('a split sends each new visitor to a variant, which a cookie on the link keeps', async () => {
      const { client, visit, detail } = await setup(mode);
      await client.link(SITE, { custom_code: 'ab', variants: SPLIT });
      expect((await detail('ab')).json.variants).toEqual(SPLIT);
      const seen = new Set<string>();
      let cookie = '';
      let kept = '';
      for (let i = 0; i < 40; i++) {
        const first = await visit('ab');
        const location = first.headers.get('location') as string;
        seen.add(location);
        const set = first.headers.get('set-cookie') as string;
        expect(set).toMatch(
          /^kurz_variant=[0-9a-z]+\.[01]; Path=\/ab; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/,
        );
        cookie = set.split(';')[0] as string;
        kept = location;
      }
      expect(seen).toEqual(new Set(SPLIT.map((v) => v.url)));
      for (let i = 0; i < 5; i++) {
        const again = await visit('ab', { cookie: `theme=dark; ${cookie}` });
        expect(again.headers.get('location')).toBe(kept);
        expect(again.headers.get('set-cookie')).toBeNull();
      }
    });

    test("a protected link's rules apply once its password is accepted", async () => {
      const { app, client } = await setup(mode);
      await client.link(SITE, {
        custom_code: 'locked',
        password: 'open sesame',
        rules: STORE_RULES,
      });
      const form = await app.request('POST', '/locked', {
        raw: 'password=open+sesame',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': IPHONE },
      });
      expect([form.status, form.headers.get('location')]).toEqual([303, APP_STORE]);
    });

    test("a country is the client's, through a trusted proxy", async () => {
      const { client, visit } = await setup(mode);
      const rules = [
        { url: 'https://example.com/us', conditions: [{ type: 'country', value: 'us' }] },
      ];
      await client.link(SITE, { custom_code: 'geo', rules });
      const viaProxy = await visit('geo', {
        [PEER_HEADER]: '10.1.2.3',
        'x-forwarded-for': '8.8.8.8',
      });
      expect(viaProxy.headers.get('location')).toBe('https://example.com/us');
      const direct = await visit('geo', { [PEER_HEADER]: '81.2.69.160' });
      expect(direct.headers.get('location')).toBe(SITE);
      // An untrusted peer's forwarded address is not believed.
      const spoofed = await visit('geo', {
        [PEER_HEADER]: '81.2.69.160',
        'x-forwarded-for': '8.8.8.8',
      });
      expect(spoofed.headers.get('location')).toBe(SITE);
    });

    test("each click keeps its route: the link's stats list them, its CSV has a column", async () => {
      const { app, client, visit } = await setup(mode);
      await client.link(SITE, { custom_code: 'app', rules: STORE_RULES });
      await visit('app', { 'user-agent': IPHONE });
      await visit('app', { 'user-agent': IPHONE });
      await visit('app', { 'user-agent': ANDROID });
      await visit('app', { 'user-agent': 'curl/8.5.0' });
      const stats = async () =>
        (await app.get('/api/links/app/stats', { token: client.token })).json.top.routes;
      const expected = [
        { value: 'rule:0', clicks: 2 },
        { value: 'default', clicks: 1 },
        { value: 'rule:1', clicks: 1 },
      ];
      // The same whether the clicks are still in the log or rolled up.
      expect(await stats()).toEqual(expected);
      const csv = await app.get('/api/links/app/clicks.csv', { token: client.token });
      const lines = csv.text.trim().split('\n');
      expect(lines[0]?.endsWith(',route')).toBe(true);
      expect(lines.slice(1).map((line) => line.split(',').at(-1))).toEqual([
        'rule:0',
        'rule:0',
        'rule:1',
        'default',
      ]);
      await app.store.rollUpClicks();
      expect(await stats()).toEqual(expected);
      const split = await client.link(SITE, { custom_code: 'ab', variants: SPLIT });
      expect(split.short_code).toBe('ab');
      const served = (await visit('ab')).headers.get('location');
      const routes = (await app.get('/api/links/ab/stats', { token: client.token })).json.top
        .routes;
      expect(routes).toEqual([{ value: `variant:${served === SPLIT[0]?.url ? 0 : 1}`, clicks: 1 }]);
    });

    test('bulk creation takes rules and variants per item, each refused on its own', async () => {
      const { app, client, visit } = await setup(mode);
      const reply = await app.post(
        '/api/links/bulk',
        {
          links: [
            { url: SITE, custom_code: 'b1', rules: STORE_RULES },
            { url: SITE, custom_code: 'b2', variants: [{ url: SITE, weight: 100 }] },
            { url: SITE, custom_code: 'b3', variants: SPLIT },
          ],
        },
        { token: client.token },
      );
      expect(reply.json.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 201]);
      expect(reply.json.results[1].body).toEqual({
        error: 'variants must be a list of 2 to 4 variants whose weights add up to 100',
      });
      expect((await visit('b1', { 'user-agent': IPHONE })).headers.get('location')).toBe(APP_STORE);
      expect(SPLIT.map((v) => v.url)).toContain(
        String((await visit('b3')).headers.get('location')),
      );
    });
  });
}
