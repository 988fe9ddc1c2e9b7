// POST /api/links/bulk: up to 1,000 links in one call, each item POST /api/shorten's body,
// checked by the same rules and answered in its own result, in order; items count as
// creates against the rate limit and the quota; each link made is announced (redirect
// cache, webhooks) as a single create is.

import { describe, expect, test } from 'bun:test';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../src/config/config.ts';
import { parseBlocklist } from '../../src/domain/targets.ts';
import { eventually } from '../support/binary.ts';
import {
  ADMIN_TOKEN,
  type AppOptions,
  BASE_URL,
  type Client,
  TestApp,
} from '../support/test-app.ts';
import { Receiver } from '../support/webhook-receiver.ts';

type Mode = 'accounts' | 'open';
const MODES: Mode[] = ['accounts', 'open'];
const MSG = {
  bulk: 'links must be a list of 1 to 1000 links',
  body: 'Request body must be a JSON object',
  taken: 'Custom code already taken',
  limit: 'Link limit reached',
  tooMany: 'Too many requests',
  tooLarge: 'Request body too large',
  unknownDomain: "domain must name one of this service's short domains (its host or base URL)",
};
const HOUR = 3_600_000;
/** The default limits, with `count` creates an hour (none comes back within a test). */
const creates = (count: number): RateLimits => ({
  ...DEFAULT_RATE_LIMITS,
  create: { count, windowMs: HOUR },
});

async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, {
    blocklist: () => parseBlocklist('evil.example\n'),
    ...options,
  });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  return { app, client, bulk: (json: unknown) => bulkOf(client, json) };
}

function bulkOf(client: Client, json: unknown, headers?: Record<string, string>) {
  return client.app.post('/api/links/bulk', json, { token: client.token, headers });
}

/** The links of a call: `{url}` items for these targets. */
const links = (n: number, url = (i: number) => `https://example.com/${i}`) =>
  Array.from({ length: n }, (_, i) => ({ url: url(i) }));

// biome-ignore lint/suspicious/noExplicitAny: results are free-form JSON
const statuses = (reply: { json: any }) => reply.json.results.map((r: any) => r.status);

/** Bodies that break a rule, each in a different way, in the API's order of checks. */
const REFUSED: unknown[] = [
  {},
  { url: 42 },
  { url: 'ftp://example.com/' },
  { url: 'https://exa mple.com/' },
  { url: `${BASE_URL}/abc` },
  { url: 'https://www.evil.example/x' },
  { url: 'https://example.com/', custom_code: 'no spaces' },
  { url: 'https://example.com/', custom_code: 'API' },
  { url: 'https://example.com/', source: 's'.repeat(256) },
  { url: 'https://example.com/', expires_at: 'tomorrow' },
  { url: 'https://example.com/', max_clicks: 0 },
  { url: 'https://example.com/', password: '' },
  { url: 'https://example.com/', tags: ['no spaces'] },
  { url: 'https://example.com/', domain: 'nope.example' },
  { url: 'https://example.com/', domain: 42 },
  // Several rules broken: the first in the order answers.
  { url: 'nope', custom_code: '!', domain: 'nope.example' },
  { url: 'https://example.com/', custom_code: '!', tags: 'x' },
  5,
  null,
  ['https://example.com/'],
  'https://example.com/',
];

for (const mode of MODES) {
  describe(`POST /api/links/bulk (${mode} mode)`, () => {
    test('each item is answered in order as POST /api/shorten answers it alone', async () => {
      const { client, bulk } = await setup(mode);
      const items = [{ url: 'https://example.com/first' }, ...REFUSED, { url: 'https://x.test/' }];
      const reply = await bulk({ links: items });
      expect(reply.status).toBe(200);
      expect(reply.json.results).toHaveLength(items.length);
      const [first, ...rest] = reply.json.results;
      const last = rest.pop();
      for (const made of [first, last]) {
        expect(made.status).toBe(201);
        expect(made.short_url).toBe(`${BASE_URL}/${made.body.short_code}`);
      }
      expect(first.body.original_url).toBe('https://example.com/first');
      expect(last.body.original_url).toBe('https://x.test/');
      for (const [i, item] of REFUSED.entries()) {
        const alone = await client.shorten(item);
        expect(alone.status).toBe(400);
        expect(rest[i]).toEqual({ status: 400, body: alone.json });
      }
      expect(rest.map((r: { body: { error: string } }) => r.body.error)).toEqual([
        'url is required',
        'url is required',
        'URL must start with http:// or https://',
        'URL is not valid',
        'URL must not point to this service',
        'URL is blocked',
        'Custom code must be 1-32 characters long and contain only letters, numbers, underscores, and hyphens',
        'This code is reserved and cannot be used',
        'source must be a string of at most 255 characters',
        'expires_at must be an ISO 8601 date-time with a time zone, such as 2026-12-31T23:59:59Z',
        'max_clicks must be a whole number from 1 to 1000000000',
        'password must be a string of 1 to 128 characters',
        'tags must be a list of at most 10 tags, each 1 to 32 letters, digits, hyphens or underscores',
        MSG.unknownDomain,
        MSG.unknownDomain,
        'URL must start with http:// or https://',
        'Custom code must be 1-32 characters long and contain only letters, numbers, underscores, and hyphens',
        MSG.body,
        MSG.body,
        MSG.body,
        MSG.body,
      ]);
      // Only the two valid items were made.
      expect((await client.links()).json.map((l: { id: number }) => l.id).sort()).toEqual(
        [first.body.id, last.body.id].sort(),
      );
    });

    test('a link made keeps the link object of POST /api/shorten exactly, and every setting asked', async () => {
      // Open mode shows a password link's target to the operator only (the admin token).
      const { app, client, bulk } = await setup(mode, { adminToken: ADMIN_TOKEN });
      await app.addDomain('https://go.example.com');
      const reply = await bulk({
        links: [
          {
            url: 'https://example.com/launch',
            custom_code: 'launch',
            source: 'newsletter',
            domain: 'go.example.com',
            tags: ['Spring', 'news', 'spring'],
            expires_at: '2099-01-01T00:00:00Z',
            max_clicks: 10,
            password: 'open sesame',
          },
          { url: 'https://example.com/plain', custom_code: null, domain: null, tags: null },
        ],
      });
      const [launch, plain] = reply.json.results;
      const fields = ['id', 'original_url', 'short_code', 'created_at', 'clicks'];
      if (mode === 'accounts') fields.push('user_id');
      for (const made of [launch, plain]) {
        expect(made.status).toBe(201);
        expect(Object.keys(made.body).sort()).toEqual(fields.sort());
        expect(made.body.clicks).toBe(0);
        if (mode === 'accounts') expect(made.body.user_id).toBe(client.user?.id);
      }
      expect(launch.short_url).toBe('https://go.example.com/launch');
      expect(plain.short_url).toBe(`${BASE_URL}/${plain.body.short_code}`);
      expect(plain.body.short_code).toMatch(/^[A-Za-z0-9]{7}$/);
      const token = mode === 'accounts' ? client.token : ADMIN_TOKEN;
      const detail = await app.get('/api/links/launch?domain=go.example.com', { token });
      expect(detail.json).toMatchObject({
        ...launch.body,
        short_url: 'https://go.example.com/launch',
        domain: 'go.example.com',
        tags: ['news', 'spring'],
        source: 'newsletter',
        expires_at: '2099-01-01T00:00:00.000Z',
        max_clicks: 10,
        password_protected: true,
      });
      const other = await app.get(`/api/links/${plain.body.short_code}`, { token });
      expect(other.json).toMatchObject({
        domain: 'kurz.test',
        tags: [],
        password_protected: false,
      });
    });

    test('1,000 items of 8,192-character URLs are taken in one call; 1,001 are refused whole', async () => {
      const { client, bulk } = await setup(mode);
      const long = (i: number) => {
        const head = `https://example.com/${i}/`;
        return head + 'x'.repeat(8192 - head.length);
      };
      const reply = await bulk({ links: links(1000, long) });
      expect(reply.status).toBe(200);
      expect(statuses(reply)).toEqual(Array(1000).fill(201));
      const codes = new Set(
        reply.json.results.map((r: { body: { short_code: string } }) => r.body.short_code),
      );
      expect(codes.size).toBe(1000);
      expect(reply.json.results[999].body.original_url).toBe(long(999));
      const page = await client.links('?limit=1');
      expect(page.headers.get('x-total-count')).toBe('1000');

      const over = await bulk({ links: links(1001) });
      expect([over.status, over.json]).toEqual([400, { error: MSG.bulk }]);
      expect((await client.links('?limit=1')).headers.get('x-total-count')).toBe('1000');
    });

    test('a body that is not an object, or links that is not a list of 1 to 1,000, is 400 and makes nothing', async () => {
      const { client, bulk } = await setup(mode);
      for (const json of [{}, { links: null }, { links: {} }, { links: 'x' }, { links: [] }]) {
        const reply = await bulk(json);
        expect([reply.status, reply.json]).toEqual([400, { error: MSG.bulk }]);
      }
      for (const json of [[{ url: 'https://example.com/' }], 'x', 5, null]) {
        const reply = await bulk(json);
        expect([reply.status, reply.json]).toEqual([400, { error: MSG.body }]);
      }
      const raw = await client.app.request('POST', '/api/links/bulk', {
        raw: '{"links": [',
        token: client.token,
      });
      expect([raw.status, raw.json]).toEqual([400, { error: MSG.body }]);
      expect((await client.links()).json).toEqual([]);
    });

    test('a body over 8 MiB is 413, declared or not; one over 64 KiB is read', async () => {
      const { client, bulk } = await setup(mode);
      const big = JSON.stringify({
        links: [{ url: 'https://example.com/' }],
        pad: 'x'.repeat(8 * 1024 * 1024),
      });
      const declared = await client.app.request('POST', '/api/links/bulk', {
        raw: big,
        token: client.token,
      });
      expect([declared.status, declared.json]).toEqual([413, { error: MSG.tooLarge }]);
      const chunks = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      const headers = new Headers(client.token ? { authorization: `Bearer ${client.token}` } : {});
      const chunked = await client.app.handle(
        new Request('http://localhost/api/links/bulk', { method: 'POST', body: chunks, headers }),
      );
      expect([chunked.status, await chunked.json()]).toEqual([413, { error: MSG.tooLarge }]);
      // POST /api/shorten keeps its 64 KiB.
      const padded = { links: [{ url: 'https://example.com/' }], pad: 'x'.repeat(100 * 1024) };
      expect((await bulk(padded)).status).toBe(200);
      expect((await client.shorten({ url: 'https://example.com/', pad: padded.pad })).status).toBe(
        413,
      );
      expect((await client.links()).json).toHaveLength(1);
    });

    test('a custom code asked twice in one call goes to the first; one already taken is refused; a code is unique per domain', async () => {
      const { app, client, bulk } = await setup(mode);
      await app.addDomain('https://go.example.com');
      await client.link('https://example.com/old', { custom_code: 'old' });
      const reply = await bulk({
        links: [
          { url: 'https://example.com/a', custom_code: 'twin' },
          { url: 'https://example.com/b', custom_code: 'twin' },
          { url: 'https://example.com/c', custom_code: 'twin', domain: 'go.example.com' },
          { url: 'https://example.com/d', custom_code: 'old' },
          { url: 'https://example.com/e', custom_code: 'Twin' },
          { url: 'https://example.com/f', custom_code: 'twin', domain: 'go.example.com' },
        ],
      });
      expect(statuses(reply)).toEqual([201, 400, 201, 400, 201, 400]);
      const [a, b, c, d, e, f] = reply.json.results;
      expect([a.body.original_url, c.body.original_url, e.body.original_url]).toEqual([
        'https://example.com/a',
        'https://example.com/c',
        'https://example.com/e',
      ]);
      for (const refused of [b, d, f]) expect(refused.body).toEqual({ error: MSG.taken });
      expect(c.short_url).toBe('https://go.example.com/twin');
      expect((await client.links()).json).toHaveLength(4);
    });

    test('the links made redirect at once, even where a miss was remembered, on their own domain', async () => {
      const { app, bulk } = await setup(mode);
      await app.addDomain('https://go.example.com');
      expect((await app.get('/soon')).status).toBe(404);
      expect((await app.get('/soon', { headers: { host: 'go.example.com' } })).status).toBe(404);
      const reply = await bulk({
        links: [
          { url: 'https://example.com/here', custom_code: 'soon' },
          { url: 'https://example.com/there', custom_code: 'soon', domain: 'go.example.com' },
          { url: 'https://example.com/made' },
        ],
      });
      expect(statuses(reply)).toEqual([201, 201, 201]);
      const here = await app.get('/soon');
      expect([here.status, here.headers.get('location')]).toEqual([
        307,
        'https://example.com/here',
      ]);
      const there = await app.get('/soon', { headers: { host: 'go.example.com' } });
      expect([there.status, there.headers.get('location')]).toEqual([
        307,
        'https://example.com/there',
      ]);
      const made = await app.get(`/${reply.json.results[2].body.short_code}`);
      expect(made.headers.get('location')).toBe('https://example.com/made');
    });

    test('protected links ask for their own password (one hash for items that share one)', async () => {
      const { app, bulk } = await setup(mode);
      const reply = await bulk({
        links: [
          { url: 'https://example.com/1', custom_code: 'p1', password: 'same secret' },
          { url: 'https://example.com/2', custom_code: 'p2', password: 'same secret' },
          { url: 'https://example.com/3', custom_code: 'p3', password: 'another' },
        ],
      });
      expect(statuses(reply)).toEqual([201, 201, 201]);
      const form = (password: string) => ({
        raw: new URLSearchParams({ password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      for (const [code, password] of [
        ['p1', 'same secret'],
        ['p2', 'same secret'],
        ['p3', 'another'],
      ] as const) {
        expect((await app.request('POST', `/${code}`, form(password))).status).toBe(303);
        expect((await app.request('POST', `/${code}`, form('wrong'))).status).toBe(401);
      }
      const hashes = await app.query<{ h: string }>(
        "SELECT password_hash AS h FROM links WHERE short_code IN ('p1', 'p2', 'p3') ORDER BY short_code",
      );
      expect(hashes[0]?.h).toBe(hashes[1]?.h as string);
      expect(hashes[2]?.h).not.toBe(hashes[0]?.h as string);
    });

    test('items count against the create rate limit; past it each is 429, with none left the call is', async () => {
      const { client, bulk } = await setup(mode, { rateLimits: creates(5) });
      const reply = await bulk({ links: [...links(2), { url: 'bad' }, ...links(4)] });
      expect(reply.status).toBe(200);
      expect(statuses(reply)).toEqual([201, 201, 400, 201, 201, 429, 429]);
      expect(reply.json.results[6].body).toEqual({ error: MSG.tooMany });
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
      const none = await bulk({ links: links(1) });
      expect([none.status, none.json]).toEqual([429, { error: MSG.tooMany }]);
      expect(Number(none.headers.get('retry-after'))).toBeGreaterThan(0);
      // One allowance for both routes.
      expect((await client.shorten({ url: 'https://example.com/' })).status).toBe(429);
      expect((await client.links()).json).toHaveLength(4);
      // A call with the whole allowance left answers no Retry-After.
      const fresh = await setup(mode, { rateLimits: creates(5) });
      const within = await fresh.bulk({ links: links(5) });
      expect(statuses(within)).toEqual(Array(5).fill(201));
      expect(within.headers.get('retry-after')).toBeNull();
    });

    test('a call refused whole for its links spends one create, as a refused shorten does', async () => {
      const { bulk } = await setup(mode, { rateLimits: creates(2) });
      expect((await bulk({ links: [] })).status).toBe(400);
      expect(statuses(await bulk({ links: links(3) }))).toEqual([201, 429, 429]);
    });

    test('each link made is announced to webhooks as link.created, once', async () => {
      const receiver = Receiver.start();
      const { app, client, bulk } = await setup(mode, { webhooks: {}, adminToken: ADMIN_TOKEN });
      const manager = mode === 'accounts' ? client.token : ADMIN_TOKEN;
      const hook = await app.post(
        '/api/webhooks',
        { url: receiver.url, events: ['link.created'] },
        { token: manager },
      );
      expect(hook.status).toBe(201);
      const reply = await bulk({
        links: [
          { url: 'https://example.com/1', custom_code: 'w1' },
          { url: 'nope' },
          { url: 'https://example.com/2', custom_code: 'w1' },
          { url: 'https://example.com/3', custom_code: 'w3', tags: ['t'] },
          { url: 'https://example.com/4' },
        ],
      });
      expect(statuses(reply)).toEqual([201, 400, 400, 201, 201]);
      const made = reply.json.results.filter((r: { status: number }) => r.status === 201);
      await eventually(
        () => receiver.messages().length >= 3,
        () => `3 messages, got ${receiver.messages().length}`,
      );
      const messages = receiver.messages();
      expect(messages.every((m) => m.type === 'link.created')).toBe(true);
      expect(messages.map((m) => m.data.short_code).sort()).toEqual(
        made.map((r: { body: { short_code: string } }) => r.body.short_code).sort(),
      );
      for (const result of made) {
        const message = messages.find((m) => m.data.short_code === result.body.short_code);
        expect(message.data).toMatchObject({ ...result.body, short_url: result.short_url });
      }
      // A second look at the outbox finds nothing more.
      await client.link('https://example.com/after', { custom_code: 'after' });
      await eventually(
        () => receiver.messages().length === 4,
        () => `4 messages, got ${receiver.messages().length}`,
      );
    });
  });
}

describe('POST /api/links/bulk in accounts mode', () => {
  test('needs a token (before the body is looked at), and a write-scope API key will do', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    for (const json of [{ links: links(1) }, 'not an object']) {
      const reply = await app.post('/api/links/bulk', json);
      expect([reply.status, reply.json]).toEqual([401, { error: 'Unauthorized' }]);
    }
    const key = async (scope: string) =>
      (await app.post('/api/keys', { name: scope, scope }, { token: ann.token })).json.key;
    const read = await app.post(
      '/api/links/bulk',
      { links: links(1) },
      { token: await key('read') },
    );
    expect([read.status, read.json]).toEqual([403, { error: 'Forbidden' }]);
    const write = await app.post(
      '/api/links/bulk',
      { links: links(1) },
      { token: await key('write') },
    );
    expect(statuses(write)).toEqual([201]);
    expect(write.json.results[0].body.user_id).toBe(ann.user?.id);
  });

  test("items count against the owner's quota, in order; refused items take no place", async () => {
    const app = await TestApp.init('accounts', { maxLinksPerUser: 5 });
    const ann = await app.user();
    const bob = await app.user();
    await ann.link('https://example.com/old', { custom_code: 'old' });
    const reply = await bulkOf(ann, {
      links: [
        { url: 'https://example.com/1' },
        { url: 'bad' },
        { url: 'https://example.com/2', custom_code: 'old' },
        { url: 'https://example.com/3' },
        { url: 'https://example.com/4', custom_code: 'four' },
        { url: 'https://example.com/5' },
        { url: 'https://example.com/6', custom_code: 'old' },
        { url: 'https://example.com/7' },
      ],
    });
    // `old` was counted while its insert was tried: losing it gave its place to item 5.
    expect(statuses(reply)).toEqual([201, 400, 400, 201, 201, 201, 400, 403]);
    expect(reply.json.results[6].body).toEqual({ error: MSG.taken });
    expect(reply.json.results[7].body).toEqual({ error: MSG.limit });
    expect((await ann.links()).json).toHaveLength(5);
    expect((await ann.shorten({ url: 'https://example.com/' })).json).toEqual({ error: MSG.limit });
    // Another user's quota is their own.
    expect(statuses(await bulkOf(bob, { links: links(6) }))).toEqual([
      201, 201, 201, 201, 201, 403,
    ]);
  });
});

describe('POST /api/links/bulk in open mode', () => {
  test('ignores Authorization, and is refused from a foreign site as any write', async () => {
    const app = await TestApp.init('open');
    const reply = await app.post('/api/links/bulk', { links: links(1) }, { token: 'whatever' });
    expect(statuses(reply)).toEqual([201]);
    const foreign = await app.post(
      '/api/links/bulk',
      { links: links(1) },
      { headers: { origin: 'https://evil.example' } },
    );
    expect([foreign.status, foreign.json]).toEqual([
      403,
      { error: 'Cross-origin request refused' },
    ]);
    expect((await app.anonymous().links()).json).toHaveLength(1);
  });
});
