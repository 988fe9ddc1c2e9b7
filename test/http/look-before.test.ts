// Looking at a link before following it: /{code}+ (a page, or JSON), /{code}+report (the
// report form) and /{code}+go, on any short domain; the new-account interstitial; and,
// in open mode, a password link's target kept from readers without the admin token
// (the list in both shapes, streamed too, the details, stats and the CSV).

import { describe, expect, test } from 'bun:test';
import { ADMIN_TOKEN, BASE_URL, redirectOutcome, TestApp } from '../support/test-app.ts';

const MODES = ['accounts', 'open'] as const;
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const JSON_ACCEPT = { accept: 'application/json' };
const METRICS_TOKEN = 'm'.repeat(32);
const DAY = 86_400_000;

async function setup(mode: (typeof MODES)[number], days?: number) {
  const app = await TestApp.init(mode, {
    adminToken: ADMIN_TOKEN,
    metricsToken: METRICS_TOKEN,
    newAccountInterstitialDays: days,
  });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const outcome = (name: string) => redirectOutcome(app, METRICS_TOKEN, name);
  return { app, client, outcome };
}

for (const mode of MODES) {
  describe(`GET /{code}+ (${mode} mode)`, () => {
    test('shows the target, the age and what may send a visit elsewhere, counting nothing', async () => {
      const { app, client, outcome } = await setup(mode);
      await client.link('https://example.com/a?x=<b>&y="1"', {
        custom_code: 'peek',
        expires_at: '2099-01-01T00:00:00Z',
        max_clicks: 50,
        rules: [
          { url: 'https://example.com/m', conditions: [{ type: 'device', value: 'mobile' }] },
        ],
        variants: [
          { url: 'https://example.com/v1', weight: 50 },
          { url: 'https://example.com/v2', weight: 50 },
        ],
      });
      const page = await app.get('/peek+', { headers: BROWSER });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(page.headers.get('cache-control')).toBe('private, no-store');
      // The target as text and a link, escaped.
      const target = 'https://example.com/a?x=&#60;b&#62;&#38;y=&#34;1&#34;';
      expect(page.text).toContain(`<a href="${target}" rel="noreferrer nofollow">${target}</a>`);
      expect(page.text).not.toContain('<b>');
      expect(page.text).toContain('less than a minute ago');
      expect(page.text).toContain('January 1, 2099 at 12:00 AM UTC');
      expect(page.text).toContain('Stops working after 50 clicks');
      expect(page.text).toContain('1 rule');
      expect(page.text).toContain('a split between 2 targets');
      expect(page.text).toContain('href="/peek+report"');
      expect(page.text).not.toContain('Continue');
      if (mode === 'accounts') expect(page.text).not.toContain('@example.com');

      const head = await app.request('HEAD', '/peek+', { headers: BROWSER });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');

      const json = await app.get('/peek+', { headers: JSON_ACCEPT });
      expect(json.status).toBe(200);
      expect(json.json).toEqual({
        code: 'peek',
        short_url: `${BASE_URL}/peek`,
        original_url: 'https://example.com/a?x=<b>&y="1"',
        created_at: expect.any(String),
        disabled: false,
        disabled_reason: null,
        expired: false,
        expires_at: '2099-01-01T00:00:00.000Z',
        max_clicks: 50,
        password: false,
        rules: 1,
        variants: 2,
      });
      expect(await client.clicksOf('peek')).toBe(0);
      expect(await outcome('info_page')).toBe(3);
      expect(await outcome('redirected')).toBe(0);
    });

    test('never shows the target of a password link; says when a link expired', async () => {
      const { app, client } = await setup(mode);
      await client.link('https://secret.example/hidden', {
        custom_code: 'locked',
        password: 'open sesame',
      });
      await client.link('https://example.com/gone', {
        custom_code: 'gone',
        expires_at: '2020-01-01T00:00:00Z',
      });
      const page = await app.get('/locked+', { headers: BROWSER });
      expect(page.text).not.toContain('secret.example');
      expect(page.text).toContain('protected by a password');
      expect((await app.get('/locked+', { headers: JSON_ACCEPT })).json).toMatchObject({
        original_url: `${BASE_URL}/locked`,
        password: true,
      });
      const gone = await app.get('/gone+', { headers: BROWSER });
      expect(gone.status).toBe(200);
      expect(gone.text).toContain('Expired');
      expect(gone.text).not.toContain('href="https://example.com/gone"');
      expect((await app.get('/gone+', { headers: JSON_ACCEPT })).json).toMatchObject({
        expired: true,
      });
    });

    test('unknown codes and paths that are no code with a suffix are the usual 404', async () => {
      const { app } = await setup(mode);
      for (const path of ['/nope+', '/nope+report', '/nope+go', '/a+b', '/+', '/x++', '/x+goo']) {
        const reply = await app.get(path);
        expect([path, reply.status, reply.json]).toEqual([path, 404, { error: 'Not found' }]);
      }
    });

    test('/{code}+go redirects as /{code} does, counted', async () => {
      const { app, client } = await setup(mode);
      await client.link('https://example.com/go', { custom_code: 'direct' });
      const reply = await app.get('/direct+go');
      expect(reply.status).toBe(307);
      expect(reply.headers.get('location')).toBe('https://example.com/go');
      expect(await client.clicksOf('direct')).toBe(1);
    });

    test('/{code}+report is a form posted by a script of kurz’s own', async () => {
      const { app, client } = await setup(mode);
      await client.link('https://example.com/r', { custom_code: 'rep' });
      const page = await app.get('/rep+report', { headers: BROWSER });
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.text).toContain('<script type="module" src="/assets/report.js"></script>');
      expect(page.text).toContain(`data-short-url="${BASE_URL}/rep"`);
      for (const reason of ['phishing', 'malware', 'spam', 'illegal', 'other']) {
        expect(page.text).toContain(`<option value="${reason}">`);
      }
      const script = await app.get('/assets/report.js');
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(script.text).toContain("fetch('/api/reports'");
      expect((await app.request('HEAD', '/rep+report')).status).toBe(200);
    });

    test('on another short domain, the Host chooses the link', async () => {
      const { app, client } = await setup(mode);
      await app.addDomain('https://go.example');
      await client.link('https://example.com/on-go', { custom_code: 'dom', domain: 'go.example' });
      const page = await app.get('/dom+', { headers: { ...JSON_ACCEPT, host: 'go.example' } });
      expect(page.json).toMatchObject({ short_url: 'https://go.example/dom' });
      expect((await app.get('/dom+')).status).toBe(404);
    });
  });
}

/** What a browser sends for a step taken on kurz's own page (the Continue, the form behind it). */
const OWN_PAGE = { 'sec-fetch-site': 'same-origin' };

describe('--new-account-interstitial', () => {
  test("a new account's links answer the `+` page with Continue; /{code}+go is counted", async () => {
    const { app, client, outcome } = await setup('accounts', 7);
    await client.link('https://example.com/fresh', { custom_code: 'fresh' });
    for (const method of ['GET', 'HEAD']) {
      const page = await app.request(method, '/fresh', { headers: BROWSER });
      expect(page.status).toBe(200);
      expect(page.headers.get('location')).toBeNull();
      if (method === 'GET') {
        expect(page.text).toContain('made by a new account');
        expect(page.text).toContain(
          '<a class="button" href="/fresh+go" rel="noreferrer">Continue</a>',
        );
        expect(page.text).toContain('https://example.com/fresh');
      }
    }
    expect(await client.clicksOf('fresh')).toBe(0);
    expect(await outcome('interstitial')).toBe(2);
    const go = await app.get('/fresh+go', { headers: { ...BROWSER, ...OWN_PAGE } });
    expect(go.status).toBe(307);
    expect(await client.clicksOf('fresh')).toBe(1);
  });

  test('/{code}+go shared elsewhere, or asked for without Sec-Fetch-Site, shows the interstitial', async () => {
    const { app, client, outcome } = await setup('accounts', 7);
    await client.link('https://example.com/lure', { custom_code: 'lure' });
    for (const site of ['cross-site', 'same-site', 'none', undefined]) {
      const headers = site === undefined ? BROWSER : { ...BROWSER, 'sec-fetch-site': site };
      const page = await app.get('/lure+go', { headers });
      expect(page.status).toBe(200);
      expect(page.headers.get('location')).toBeNull();
      expect(page.text).toContain('made by a new account');
    }
    expect(await outcome('interstitial')).toBe(4);
    expect(await client.clicksOf('lure')).toBe(0);
  });

  test("an older account's links redirect; a password link's form posts through +go", async () => {
    const { app, client } = await setup('accounts', 7);
    const old = await app.user('old@example.com');
    await app.query('UPDATE users SET created_at = ? WHERE id = ?', [
      Date.now() - 8 * DAY,
      old.user?.id,
    ]);
    await old.link('https://example.com/trusted', { custom_code: 'trusted' });
    expect((await app.get('/trusted')).status).toBe(307);

    await client.link('https://example.com/pw', { custom_code: 'pw', password: 'open sesame' });
    expect((await app.get('/pw')).text).toContain('href="/pw+go"');
    expect((await app.get('/pw+go', { headers: OWN_PAGE })).text).toContain(
      'This link is protected',
    );
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const unlocked = await app.request('POST', '/pw+go', {
      raw: 'password=open+sesame',
      headers: { ...form, ...OWN_PAGE },
    });
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers.get('location')).toBe('https://example.com/pw');
    // The password posted from elsewhere does not pass the interstitial either.
    const posted = await app.request('POST', '/pw', { raw: 'password=open+sesame', headers: form });
    expect(posted.status).toBe(200);
    expect(posted.text).toContain('made by a new account');
  });

  test('off by default, and never in open mode (its links are no one’s)', async () => {
    const off = await setup('accounts');
    await off.client.link('https://example.com/x', { custom_code: 'x' });
    expect((await off.app.get('/x')).status).toBe(307);
    const open = await setup('open', 7);
    await open.client.link('https://example.com/y', { custom_code: 'y' });
    expect((await open.app.get('/y')).status).toBe(307);
  });
});

describe('open mode: the target of a password link is the operator’s to read', () => {
  test('readers without the admin token see the short URL in its place, everywhere', async () => {
    const { app, client } = await setup('open');
    const secret = 'https://secret.example/hidden';
    await client.link(secret, {
      custom_code: 'locked',
      password: 'open sesame',
      rules: [
        { url: 'https://secret.example/m', conditions: [{ type: 'device', value: 'mobile' }] },
      ],
      preview: { title: 'Hidden', description: 'a card' },
    });
    await client.link('https://example.com/plain', { custom_code: 'plain' });
    const shown = `${BASE_URL}/locked`;
    const admin = { token: ADMIN_TOKEN };

    const list = await app.get('/api/links');
    expect(list.json.map((l: { original_url: string }) => l.original_url)).toEqual([
      'https://example.com/plain',
      shown,
    ]);
    expect(Object.keys(list.json[1]).sort()).toEqual([
      'clicks',
      'created_at',
      'id',
      'original_url',
      'short_code',
    ]);
    for (const query of ['?limit=1&offset=1', '?q=locked', '?view=full', '?sort=code']) {
      const reply = await app.get(`/api/links${query}`);
      expect(reply.text).not.toContain('secret.example');
      expect(reply.text).toContain(shown);
    }
    const detail = await app.get('/api/links/locked');
    expect(detail.json).toMatchObject({
      original_url: shown,
      password_protected: true,
      rules: [],
      variants: [],
      preview: null,
    });
    for (const path of ['/api/links/locked/stats', '/api/links/locked/clicks.csv', '/locked+']) {
      expect((await app.get(path)).text).not.toContain('secret.example');
    }

    // The admin token reads the real values.
    expect((await app.get('/api/links', admin)).text).toContain(secret);
    expect((await app.get('/api/links?view=full', admin)).text).toContain('secret.example/m');
    const real = await app.get('/api/links/locked', admin);
    expect(real.json).toMatchObject({ original_url: secret, preview: { title: 'Hidden' } });
  });

  test('a streamed whole list hides them in every chunk', async () => {
    const { app, client } = await setup('open');
    const links = Array.from({ length: 1100 }, (_, i) => ({
      url: `https://secret.example/${i}`,
      custom_code: `s${i}`,
      password: 'pw',
    }));
    for (let i = 0; i < links.length; i += 1000) {
      const reply = await app.post('/api/links/bulk', { links: links.slice(i, i + 1000) });
      expect(reply.status).toBe(200);
    }
    const list = await client.links();
    expect(list.json.length).toBe(1100);
    expect(list.text).not.toContain('secret.example');
  });
});
