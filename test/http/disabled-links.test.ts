// A link an admin disabled, as its visitors meet it: 410 before every other check (expiry,
// password, rules, previews), JSON for API clients and a small page for browsers with
// the operator's reason escaped, HEAD alike, nothing counted, and the redirect cache
// forgetting it at once on this instance and, on PostgreSQL, on another one too.

import { describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/store/postgres/postgres-store.ts';
import { eventually } from '../support/binary.ts';
import { atCleanUp } from '../support/cleanup.ts';
import { freshSchemaUrl } from '../support/postgres.ts';
import {
  ADMIN_TOKEN,
  moderatorOf,
  type Reply,
  redirectOutcome,
  TestApp,
} from '../support/test-app.ts';

const MODES = ['accounts', 'open'] as const;
const METRICS_TOKEN = 'm'.repeat(32);
const HOSTILE = '<script>alert("x")</script> & "quotes"';
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const SLACK = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

async function setup(mode: (typeof MODES)[number]) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN, metricsToken: METRICS_TOKEN });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  // The admin: an admin user in accounts mode, the operator's token in open mode.
  const { token: adminToken, disable, enable } = await moderatorOf(app);
  const outcome = (name: string) => redirectOutcome(app, METRICS_TOKEN, name);
  return { app, client, adminToken, disable, enable, outcome };
}

function expectDisabledJson(reply: Reply) {
  expect(reply.status).toBe(410);
  expect(reply.json).toEqual({ error: 'Link disabled' });
  expect(reply.headers.get('location')).toBeNull();
}

for (const mode of MODES) {
  describe(`disabled links (${mode} mode)`, () => {
    test('answer 410 Link disabled to API clients, GET and HEAD, counting nothing', async () => {
      const { app, client, disable, outcome } = await setup(mode);
      await client.link('https://example.com/target', { custom_code: 'off' });
      expect((await app.get('/off')).status).toBe(307);
      await disable('off', 'Phishing');
      expectDisabledJson(await app.get('/off'));
      const head = await app.request('HEAD', '/off');
      expect(head.status).toBe(410);
      expect(head.text).toBe('');
      expectDisabledJson(await app.get('/off+go'));
      expect(await outcome('disabled')).toBe(3);
      expect(await outcome('redirected')).toBe(1);
      // Only the click before the disabling was counted.
      expect(await client.clicksOf('off')).toBe(1);
    });

    test('show browsers a page with the reason, escaped, and links to look at and report it', async () => {
      const { app, client, disable } = await setup(mode);
      await client.link('https://example.com/target', { custom_code: 'bad' });
      await disable('bad', HOSTILE);
      for (const method of ['GET', 'HEAD']) {
        const page = await app.request(method, '/bad', { headers: BROWSER });
        expect(page.status).toBe(410);
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        const csp = page.headers.get('content-security-policy') ?? '';
        expect(csp).toContain("default-src 'none'");
        expect(csp).toContain("form-action 'self'");
        expect(csp).not.toContain('script-src');
        expect(page.headers.get('cache-control')).toBe('private, no-store');
        expect(page.headers.get('referrer-policy')).toBe('no-referrer');
        if (method === 'HEAD') expect(page.text).toBe('');
        else {
          expect(page.text).toContain('This link was disabled by the operator.');
          expect(page.text).not.toContain('<script>');
          expect(page.text).toContain(
            '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#34;quotes&#34;',
          );
          expect(page.text).toContain('href="/bad+report"');
          expect(page.text).toContain('href="/bad+"');
          expect(page.text).not.toContain('example.com/target');
        }
      }
      // Without a reason, the page says only that.
      await client.link('https://example.com/t2', { custom_code: 'bare' });
      await disable('bare');
      const bare = await app.get('/bare', { headers: BROWSER });
      expect(bare.status).toBe(410);
      expect(bare.text).not.toContain('Reason');
    });

    test('come before expiry, password, rules and previews', async () => {
      const { app, client, disable } = await setup(mode);
      await client.link('https://example.com/a', {
        custom_code: 'old',
        expires_at: '2020-01-01T00:00:00Z',
      });
      await client.link('https://example.com/b', {
        custom_code: 'locked',
        password: 'open sesame',
      });
      await client.link('https://example.com/c', {
        custom_code: 'routed',
        rules: [{ url: 'https://example.com/mobile', conditions: [{ type: 'bot', value: false }] }],
        preview: { title: 'A card', description: 'shown to crawlers' },
      });
      expect((await app.get('/old')).json).toEqual({ error: 'Link expired' });
      for (const code of ['old', 'locked', 'routed']) await disable(code);
      for (const code of ['old', 'locked', 'routed']) expectDisabledJson(await app.get(`/${code}`));
      // A crawler gets no card, a password form no chance.
      const crawler = await app.get('/routed', { headers: { 'user-agent': SLACK } });
      expect(crawler.status).toBe(410);
      expect(crawler.text).not.toContain('og:title');
      const form = await app.request('POST', '/locked', {
        raw: 'password=open+sesame',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectDisabledJson(form);
    });

    test('enabled again, the link redirects at once (the cache forgot both changes)', async () => {
      const { app, client, disable, enable } = await setup(mode);
      await client.link('https://example.com/back', { custom_code: 'back' });
      expect((await app.get('/back')).status).toBe(307);
      await disable('back');
      expectDisabledJson(await app.get('/back'));
      await enable('back');
      const again = await app.get('/back');
      expect(again.status).toBe(307);
      expect(again.headers.get('location')).toBe('https://example.com/back');
    });

    test('the `+` page of a disabled link says so, and shows the target as text only', async () => {
      const { app, client, disable } = await setup(mode);
      await client.link('https://example.com/shown', { custom_code: 'look' });
      await disable('look', 'Spam');
      const page = await app.get('/look+', { headers: BROWSER });
      expect(page.status).toBe(200);
      expect(page.text).toContain('Disabled by the operator: Spam');
      expect(page.text).toContain('https://example.com/shown');
      expect(page.text).not.toContain('href="https://example.com/shown"');
      const json = await app.get('/look+', { headers: { accept: 'application/json' } });
      expect(json.json).toMatchObject({ disabled: true, disabled_reason: 'Spam' });
    });
  });
}

describe('PostgreSQL: two instances on one database', () => {
  test('a link disabled on one instance answers 410 on the other, which had cached it', async () => {
    const url = await freshSchemaUrl();
    const open = async () => {
      const store = await openPostgres({ url, pool: 2, analyticsIntervalMs: 0 });
      atCleanUp(() => store.close());
      return TestApp.init('open', { store, adminToken: ADMIN_TOKEN });
    };
    const [one, two] = [await open(), await open()];
    await one.anonymous().link('https://example.com/both', { custom_code: 'both' });
    expect((await two.get('/both')).status).toBe(307);
    const off = await one.post('/api/admin/links/both/disable', {}, { token: ADMIN_TOKEN });
    expect(off.status).toBe(200);
    await eventually(
      async () => (await two.get('/both')).status === 410,
      'the other instance answers 410',
      2000,
    );
    expect((await two.get('/both')).json).toEqual({ error: 'Link disabled' });
    await one.request('POST', '/api/admin/links/both/enable', { token: ADMIN_TOKEN });
    await eventually(
      async () => (await two.get('/both')).status === 307,
      'the other instance redirects again',
      2000,
    );
  });
});
