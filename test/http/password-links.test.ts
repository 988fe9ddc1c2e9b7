// Password-protected links: GET /{code} shows a small page with a form,
// counting nothing; its POST with the right password counts the click and answers 303
// See Other (a 307 would have the browser post the password on to the target); a wrong
// one shows the page again with 401, and too many of them, per link and client
// address, 429. The password is kept as an argon2id hash only.

import { describe, expect, test } from 'bun:test';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../src/config/config.ts';
import {
  ADMIN_TOKEN,
  type AppOptions,
  PEER_HEADER,
  type Reply,
  TestApp,
} from '../support/test-app.ts';

type Mode = 'accounts' | 'open';
const WRONG = 'Wrong password. Please try again.';
const FORM = 'application/x-www-form-urlencoded';
/** Three wrong passwords per link and client address, and no refill within a test. */
const TRIES = 3;
const LIMITS: RateLimits = {
  ...DEFAULT_RATE_LIMITS,
  linkPassword: { count: TRIES, windowMs: 3_600_000 },
};

async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN, ...options });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const token = mode === 'accounts' ? client.token : ADMIN_TOKEN;
  return {
    app,
    client,
    change: (code: string, json: unknown) =>
      app.request('PATCH', `/api/links/${code}`, { json, token }),
    detail: async (code: string) => (await app.get(`/api/links/${code}`, { token })).json,
  };
}

/** What the password form sends: `password=…` form-encoded (undefined: an empty form). */
function submit(app: TestApp, path: string, password: string | undefined, peer?: string) {
  return app.request('POST', path, {
    raw: password === undefined ? '' : new URLSearchParams({ password }).toString(),
    headers: { 'content-type': FORM, ...(peer === undefined ? {} : { [PEER_HEADER]: peer }) },
  });
}

/** Clicks of a link as the API shows them, and its click records. */
async function counted(
  app: TestApp,
  detail: (code: string) => Promise<{ clicks: number }>,
  code: string,
  id: number,
) {
  return { clicks: (await detail(code)).clicks, records: (await app.clickRecords(id)).length };
}

interface Element {
  tag: string;
  attributes: Record<string, string>;
  /** Tags of the elements it is inside, outermost first. */
  inside: string[];
}

/** Every element of a page with its attributes (parsed by Bun's HTMLRewriter). */
async function elementsOf(html: string): Promise<Element[]> {
  const elements: Element[] = [];
  const open: string[] = [];
  await new HTMLRewriter()
    .on('*', {
      element(element) {
        const tag = element.tagName.toLowerCase();
        elements.push({
          tag,
          attributes: Object.fromEntries(element.attributes),
          inside: [...open],
        });
        if (!element.selfClosing && element.canHaveContent) {
          open.push(tag);
          element.onEndTag(() => {
            open.pop();
          });
        }
      },
    })
    .transform(new Response(html))
    .text();
  return elements;
}

/** Checks that a reply is the password page: its form, its labels, its headers. */
async function expectPasswordPage(reply: Reply, notice?: string) {
  expect(reply.headers.get('content-type')).toStartWith('text/html');
  expect(reply.headers.get('location')).toBeNull();
  expect(reply.headers.get('cache-control')).toContain('no-store');
  const csp = reply.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  // The form may post to kurz only.
  expect(csp).toContain("form-action 'self'");
  expect(csp).not.toContain('script-src');
  expect(csp).not.toContain('unsafe-inline');

  const elements = await elementsOf(reply.text);
  const one = (tag: string) => {
    const found = elements.filter((element) => element.tag === tag);
    expect(found.map((element) => element.tag)).toEqual([tag]);
    return found[0] as Element;
  };
  expect(one('html').attributes.lang).toMatch(/^[a-z]{2}/);
  const viewport = elements.find(
    (element) => element.tag === 'meta' && element.attributes.name === 'viewport',
  );
  expect(viewport?.attributes.content).toContain('width=device-width');
  expect(elements.filter((element) => element.tag === 'script')).toEqual([]);

  // One form, posting back to this address (no action, or an empty one).
  const form = one('form');
  expect(form.attributes.method?.toLowerCase()).toBe('post');
  expect(form.attributes.action ?? '').toBe('');
  const inputs = elements.filter((element) => element.tag === 'input');
  const password = inputs.find((element) => element.attributes.type === 'password');
  expect(password?.attributes.name).toBe('password');
  expect(password?.inside).toContain('form');
  const id = password?.attributes.id ?? '';
  expect(id).not.toBe('');
  const labels = elements.filter(
    (element) => element.tag === 'label' && element.attributes.for === id,
  );
  expect(labels).toHaveLength(1);

  if (notice === undefined) {
    expect(reply.text).not.toContain(WRONG);
  } else {
    expect(reply.text).toContain(notice);
  }
}

describe.each(['accounts', 'open'] as const)('a password-protected link (%s mode)', (mode) => {
  test('GET shows a page with a labelled password form and a strict CSP, and counts nothing', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/secret', {
      custom_code: 'locked',
      password: 'open sesame',
    });
    for (let i = 0; i < 3; i++) {
      const reply = await app.get('/locked');
      expect(reply.status).toBe(200);
      await expectPasswordPage(reply);
      expect(reply.text).not.toContain('https://example.com/secret');
    }
    const head = await app.request('HEAD', '/locked');
    expect(head.status).toBe(200);
    expect(head.headers.get('location')).toBeNull();
    expect(await counted(app, detail, 'locked', link.id)).toEqual({ clicks: 0, records: 0 });
  });

  test("a browser's right password gets a page that refreshes to the target (the policy's form-action refuses a redirect out)", async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/secret?a=1&b="2"', {
      custom_code: 'locked',
      password: 'open sesame',
    });
    const page = await app.request('POST', '/locked', {
      raw: 'password=open+sesame',
      headers: { 'content-type': FORM, accept: 'text/html,application/xhtml+xml' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('location')).toBeNull();
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const target = 'https://example.com/secret?a=1&#38;b=&#34;2&#34;';
    expect(page.text).toContain(`<meta http-equiv="refresh" content="0; url=${target}">`);
    expect(page.text).toContain(`href="${target}"`);
    expect(await counted(app, detail, 'locked', link.id)).toEqual({ clicks: 1, records: 1 });
    // The form's page links to the report form.
    expect((await app.get('/locked')).text).toContain('href="/locked+report"');
  });

  test('the right password answers 303 See Other to the target, counting the click with its record', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/secret?x=1', {
      custom_code: 'locked',
      source: 'flyer',
      password: 'pä ss&=wörd',
    });
    // The form posts back to the address it was shown at, query and all.
    const reply = await app.request('POST', '/locked?source=qr', {
      raw: new URLSearchParams({ password: 'pä ss&=wörd' }).toString(),
      headers: { 'content-type': FORM, 'user-agent': 'Browser/1.0' },
    });
    expect(reply.status).toBe(303);
    expect(reply.headers.get('location')).toBe('https://example.com/secret?x=1');
    expect(reply.headers.get('cache-control')).toBe('private, no-store');
    expect(reply.headers.get('set-cookie')).toBeNull();
    expect(await counted(app, detail, 'locked', link.id)).toEqual({ clicks: 1, records: 1 });
    expect(await app.clickRecords(link.id)).toEqual([
      {
        link_id: link.id,
        source: 'flyer',
        query_source: mode === 'accounts' ? 'qr' : null,
        referrer: null,
        user_agent: 'Browser/1.0',
        created_at: expect.any(Number),
        country: null,
      },
    ]);
    // Nothing is remembered: the next visit asks again, and each right answer counts.
    const again = await app.get('/locked');
    expect(again.status).toBe(200);
    await expectPasswordPage(again);
    expect((await submit(app, '/locked', 'pä ss&=wörd')).status).toBe(303);
    expect(await counted(app, detail, 'locked', link.id)).toEqual({ clicks: 2, records: 2 });
  });

  test('a wrong or missing password answers 401 with the page and a message, counting nothing', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/', {
      custom_code: 'locked',
      password: 'open sesame',
    });
    const bodies: [string, string][] = [
      ['a wrong password', 'password=wrong'],
      ['another case', 'password=Open+sesame'],
      ['an empty form', ''],
      ['an empty password', 'password='],
      ['another field', 'secret=open+sesame'],
      ['a JSON body', JSON.stringify({ password: 'open sesame' })],
    ];
    for (const [what, raw] of bodies) {
      const reply = await app.request('POST', '/locked', {
        raw,
        headers: { 'content-type': FORM },
      });
      expect(`${what}: ${reply.status}`).toBe(`${what}: 401`);
      await expectPasswordPage(reply, WRONG);
    }
    expect(await counted(app, detail, 'locked', link.id)).toEqual({ clicks: 0, records: 0 });
    // Without rate limits, wrong tries never lock the right one out.
    expect((await submit(app, '/locked', 'open sesame')).status).toBe(303);
  });

  test('wrong tries are limited per link and client address: then 429 with Retry-After and the page', async () => {
    const { app, client, detail } = await setup(mode, { rateLimits: LIMITS });
    const one = await client.link('https://example.com/1', { custom_code: 'one', password: 'pw1' });
    const two = await client.link('https://example.com/2', { custom_code: 'two', password: 'pw2' });
    const guesser = '198.51.100.7';
    for (let i = 0; i < TRIES; i++) {
      expect((await submit(app, '/one', `guess ${i}`, guesser)).status).toBe(401);
    }
    for (const password of ['guess again', 'pw1', undefined]) {
      const refused = await submit(app, '/one', password, guesser);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeInteger();
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      await expectPasswordPage(refused);
    }
    expect(await counted(app, detail, 'one', one.id)).toEqual({ clicks: 0, records: 0 });
    // The page itself is still shown.
    expect((await app.get('/one', { headers: { [PEER_HEADER]: guesser } })).status).toBe(200);

    // Another address has its own tries on the same link …
    expect((await submit(app, '/one', 'guess', '198.51.100.8')).status).toBe(401);
    expect((await submit(app, '/one', 'pw1', '198.51.100.8')).status).toBe(303);
    // … and the same address its own on another link.
    expect((await submit(app, '/two', 'guess', guesser)).status).toBe(401);
    expect((await submit(app, '/two', 'pw2', guesser)).status).toBe(303);
    expect(await counted(app, detail, 'one', one.id)).toEqual({ clicks: 1, records: 1 });
    expect(await counted(app, detail, 'two', two.id)).toEqual({ clicks: 1, records: 1 });
  });

  test('the right password after wrong ones gives the client all its tries back', async () => {
    const { app, client } = await setup(mode, { rateLimits: LIMITS });
    await client.link('https://example.com/', { custom_code: 'locked', password: 'pw' });
    for (let i = 0; i < TRIES - 1; i++) {
      expect((await submit(app, '/locked', 'typo')).status).toBe(401);
    }
    expect((await submit(app, '/locked', 'pw')).status).toBe(303);
    for (let i = 0; i < TRIES; i++) {
      expect((await submit(app, '/locked', 'typo')).status).toBe(401);
    }
    expect((await submit(app, '/locked', 'pw')).status).toBe(429);
  });

  test('the password is stored as an argon2id hash; PATCH replaces it, and null removes the protection', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/t', {
      custom_code: 'locked',
      password: 'first one',
    });
    const hashOf = async () =>
      (
        await app.query<{ hash: string | null }>(
          'SELECT password_hash AS hash FROM links WHERE id = ?',
          [link.id],
        )
      )[0]?.hash;
    const first = await hashOf();
    expect(first).toStartWith('$argon2id$');
    expect(first).not.toContain('first one');

    expect((await change('locked', { password: 'second one' })).json.password_protected).toBe(true);
    const second = await hashOf();
    expect(second).toStartWith('$argon2id$');
    expect(second).not.toBe(first);
    expect((await submit(app, '/locked', 'first one')).status).toBe(401);
    expect((await submit(app, '/locked', 'second one')).status).toBe(303);

    expect((await change('locked', { password: null })).json.password_protected).toBe(false);
    expect(await hashOf()).toBeNull();
    const open = await app.get('/locked');
    expect(open.status).toBe(307);
    expect(open.headers.get('location')).toBe('https://example.com/t');
    expect((await detail('locked')).clicks).toBe(2);
  });

  test('a password set by PATCH protects the link at once, even when the redirect had it cached', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/t', { custom_code: 'later' });
    expect((await app.get('/later')).status).toBe(307);
    expect((await change('later', { password: 'now locked' })).status).toBe(200);
    const reply = await app.get('/later');
    expect(reply.status).toBe(200);
    await expectPasswordPage(reply);
    expect(await counted(app, detail, 'later', link.id)).toEqual({ clicks: 1, records: 1 });
  });

  test('a link without a password takes no POST: 404, counting nothing', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/t', { custom_code: 'plain' });
    const reply = await submit(app, '/plain', 'whatever was typed');
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
    expect(await counted(app, detail, 'plain', link.id)).toEqual({ clicks: 0, records: 0 });
  });

  test('an expired protected link answers 410 to GET and to the right password, counting nothing', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/t', {
      custom_code: 'gone',
      password: 'pw',
      max_clicks: 1,
    });
    expect((await submit(app, '/gone', 'pw')).status).toBe(303);
    for (const reply of [await submit(app, '/gone', 'pw'), await app.get('/gone')]) {
      expect(reply.status).toBe(410);
      expect(reply.json).toEqual({ error: 'Link expired' });
    }
    expect(await counted(app, detail, 'gone', link.id)).toEqual({ clicks: 1, records: 1 });

    // By time as well.
    await change('gone', { max_clicks: null, expires_at: '2020-01-01T00:00:00Z' });
    for (const reply of [await submit(app, '/gone', 'pw'), await app.get('/gone')]) {
      expect(reply.status).toBe(410);
      expect(reply.json).toEqual({ error: 'Link expired' });
    }
    expect((await app.request('HEAD', '/gone')).status).toBe(410);
    expect(await counted(app, detail, 'gone', link.id)).toEqual({ clicks: 1, records: 1 });
  });

  test.each(['/nosuchcode', '/has.dot', `/${'a'.repeat(33)}`])(
    'POST to %s, which has no link, is 404',
    async (path) => {
      const { app, client } = await setup(mode);
      await client.link('https://example.com/', { custom_code: 'locked', password: 'pw' });
      const reply = await submit(app, path, 'pw');
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual({ error: 'Not found' });
    },
  );
});
