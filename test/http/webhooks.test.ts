// Webhooks: /api/webhooks in both modes (who may use it, the URL and events it takes, the
// addresses it refuses), and delivery to a local receiver: every event with its body and
// a Standard Webhooks signature, clicks in batches, retries until a failing receiver
// recovers, giving up on one that never answers, and the outbox written in the very
// transaction of the change it reports.

import { describe, expect, test } from 'bun:test';
import { VERSION } from '../../src/version.ts';
import type { Resolve } from '../../src/webhooks/targets.ts';
import { eventually } from '../support/binary.ts';
import {
  ADMIN_TOKEN,
  type AppOptions,
  BASE_URL,
  type Client,
  TestApp,
} from '../support/test-app.ts';
import { type Call, Receiver, verifyStandardWebhook } from '../support/webhook-receiver.ts';

type Mode = 'accounts' | 'open';
const MODES: Mode[] = ['accounts', 'open'];
const ALL_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'clicks'];

const MSG = {
  urlRequired: 'url is required',
  https: 'Webhook URL must start with https://',
  httpOrHttps: 'Webhook URL must start with http:// or https://',
  credentials: 'Webhook URL must not contain a user name or password',
  private: 'Webhook URL must point to a public address',
  unresolved: 'Webhook URL host cannot be resolved',
  invalid: 'URL is not valid',
  events:
    'events must be a non-empty list of link.created, link.updated, link.deleted, clicks, report.created',
  body: 'Request body must be a JSON object',
  limit: 'Webhook limit reached',
};

/** A short retry schedule, so that retries and giving up happen within a test. */
const QUICK = { firstMs: 30, maxMs: 120, giveUpMs: 60_000 };

/**
 * An app in `mode`, a client that makes links, and the token that manages webhooks:
 * the user's own in accounts mode, the admin token in open mode.
 */
async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN, ...options });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const token = (mode === 'accounts' ? client.token : ADMIN_TOKEN) as string;
  return {
    app,
    client,
    token,
    register: (json: unknown, as: string | undefined = token) =>
      app.post('/api/webhooks', json, { token: as }),
    list: (as: string | undefined = token) => app.get('/api/webhooks', { token: as }),
    remove: (id: number | string, as: string | undefined = token) =>
      app.request('DELETE', `/api/webhooks/${id}`, { token: as }),
    deliveries: (id: number | string, as: string | undefined = token) =>
      app.get(`/api/webhooks/${id}/deliveries`, { token: as }),
    ping: (id: number | string, as: string | undefined = token) =>
      app.request('POST', `/api/webhooks/${id}/test`, { token: as }),
  };
}

/** The receiver's messages of one type, by arrival. */
const ofType = (receiver: Receiver, type: string) =>
  receiver.messages().filter((message) => message.type === type);

/** A webhook registered for `receiver`, failing the test when refused. */
async function hooked(
  register: (json: unknown) => Promise<{ status: number; json: { id: number; secret: string } }>,
  receiver: Receiver,
  events?: string[],
) {
  const made = await register({ url: receiver.url, ...(events ? { events } : {}) });
  expect(made.status).toBe(201);
  return made.json;
}

describe.each(MODES)('%s mode: registering webhooks', (mode) => {
  test('a webhook is made with its secret, listed without it, and removed', async () => {
    const { register, list, remove } = await setup(mode, {
      webhooks: { policy: { allowPrivate: false, resolve: async () => ['93.184.215.14'] } },
    });
    const before = Date.now();
    const made = await register({ url: 'https://hooks.example.com/kurz?team=7' });
    expect(made.status).toBe(201);
    expect(made.json).toEqual({
      id: expect.any(Number),
      url: 'https://hooks.example.com/kurz?team=7',
      events: ALL_EVENTS,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      created_at: expect.any(String),
    });
    // Standard Webhooks: 24 to 64 random bytes; kurz makes 32.
    expect(Buffer.from(made.json.secret.slice(6), 'base64')).toHaveLength(32);
    expect(Date.parse(made.json.created_at)).toBeGreaterThanOrEqual(before - 1);

    const some = await register({
      url: 'https://93.184.215.14/hook',
      events: ['clicks', 'link.created', 'clicks'],
    });
    expect(some.status).toBe(201);
    // Known names, each once, in the order they are listed everywhere.
    expect(some.json.events).toEqual(['link.created', 'clicks']);
    expect(some.json.secret).not.toBe(made.json.secret);

    const listed = await list();
    expect(listed.status).toBe(200);
    const { secret: _, ...shown } = made.json;
    expect(listed.json).toEqual([shown, { ...some.json, secret: undefined }].map(withoutUndefined));

    expect((await remove(made.json.id)).status).toBe(204);
    expect((await remove(made.json.id)).status).toBe(404);
    expect((await list()).json.map((w: { id: number }) => w.id)).toEqual([some.json.id]);
  });

  test.each([
    [{}, MSG.urlRequired],
    [{ url: 42 }, MSG.urlRequired],
    [{ url: 'http://hooks.example.com/' }, MSG.https],
    [{ url: 'ftp://hooks.example.com/' }, MSG.https],
    [{ url: 'HTTPS://hooks.example.com/' }, MSG.https],
    [{ url: 'https://user:pass@hooks.example.com/' }, MSG.credentials],
    [{ url: 'https://token@hooks.example.com/' }, MSG.credentials],
    [{ url: 'https://hooks example.com/' }, MSG.invalid],
    [{ url: 'https:///path' }, MSG.invalid],
    [{ url: `https://hooks.example.com/${'a'.repeat(2048)}` }, MSG.invalid],
    [{ url: 'https://127.0.0.1/' }, MSG.private],
    [{ url: 'https://127.1/' }, MSG.private],
    [{ url: 'https://2130706433/' }, MSG.private],
    [{ url: 'https://0x7f.1/' }, MSG.private],
    [{ url: 'https://017700000001/' }, MSG.private],
    [{ url: 'https://0.0.0.0/' }, MSG.private],
    [{ url: 'https://[::1]/' }, MSG.private],
    [{ url: 'https://[::ffff:127.0.0.1]/' }, MSG.private],
    [{ url: 'https://[::ffff:10.1.2.3]:8443/' }, MSG.private],
    [{ url: 'https://10.0.0.8/' }, MSG.private],
    [{ url: 'https://172.16.5.4/' }, MSG.private],
    [{ url: 'https://192.168.1.20/' }, MSG.private],
    [{ url: 'https://169.254.169.254/latest/meta-data/' }, MSG.private],
    [{ url: 'https://100.64.0.1/' }, MSG.private],
    [{ url: 'https://[fe80::1]/' }, MSG.private],
    [{ url: 'https://[fd00::1]/' }, MSG.private],
    [{ url: 'https://[ff02::1]/' }, MSG.private],
    [{ url: 'https://224.0.0.1/' }, MSG.private],
    // Names: the stub resolver below answers for them.
    [{ url: 'https://intranet.example/' }, MSG.private],
    [{ url: 'https://split.example/' }, MSG.private],
    [{ url: 'https://nowhere.example/' }, MSG.unresolved],
    [{ url: 'https://93.184.215.14/', events: 'clicks' }, MSG.events],
    [{ url: 'https://93.184.215.14/', events: [] }, MSG.events],
    [{ url: 'https://93.184.215.14/', events: ['link.created', 'link.viewed'] }, MSG.events],
    [{ url: 'https://93.184.215.14/', events: [1] }, MSG.events],
  ])('%j is refused: %s', async (body, message) => {
    const resolve: Resolve = async (host) => {
      if (host === 'intranet.example') return ['10.20.30.40'];
      // One public address and one private: refused, whichever fetch would pick.
      if (host === 'split.example') return ['93.184.215.14', '192.168.0.10'];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    };
    const { register, list } = await setup(mode, {
      webhooks: { policy: { allowPrivate: false, resolve } },
    });
    const reply = await register(body);
    expect({ status: reply.status, body: reply.json }).toEqual({
      status: 400,
      body: { error: message },
    });
    expect((await list()).json).toEqual([]);
  });

  test('a host named in DNS is checked by its addresses: localhost is refused', async () => {
    const { register } = await setup(mode);
    const reply = await register({ url: 'https://localhost/hook' });
    expect(reply.json).toEqual({ error: MSG.private });
  });

  test('a body that is not a JSON object is refused', async () => {
    const { app, token } = await setup(mode);
    for (const raw of ['[]', '"https://x.example/"', 'null', 'not json']) {
      const reply = await app.request('POST', '/api/webhooks', { raw, token });
      expect({ status: reply.status, body: reply.json }).toEqual({
        status: 400,
        body: { error: MSG.body },
      });
    }
  });

  test('with --webhook-allow-private, http:// and private addresses are allowed; credentials are not', async () => {
    const { register } = await setup(mode, { webhooks: {} });
    for (const url of ['http://127.0.0.1:9000/hook', 'http://192.168.1.20/', 'https://[::1]/']) {
      expect((await register({ url })).status).toBe(201);
    }
    expect((await register({ url: 'ftp://127.0.0.1/' })).json).toEqual({
      error: MSG.httpOrHttps,
    });
    expect((await register({ url: 'http://a:b@127.0.0.1/' })).json).toEqual({
      error: MSG.credentials,
    });
  });

  test('one owner may have 20 webhooks', async () => {
    const { register, list } = await setup(mode);
    for (let i = 0; i < 20; i++) {
      expect((await register({ url: `https://93.184.215.14/${i}` })).status).toBe(201);
    }
    const refused = await register({ url: 'https://93.184.215.14/20' });
    expect({ status: refused.status, body: refused.json }).toEqual({
      status: 403,
      body: { error: MSG.limit },
    });
    expect((await list()).json).toHaveLength(20);
  });

  test('an id that is not one, or of no webhook, is 404', async () => {
    const { remove, deliveries, ping } = await setup(mode);
    for (const id of ['0', 'abc', '99999', '1.5', '-1', '2147483648', '9999999999', '1e3']) {
      for (const reply of [await remove(id), await deliveries(id), await ping(id)]) {
        expect({ status: reply.status, body: reply.json }).toEqual({
          status: 404,
          body: { error: 'Not found' },
        });
      }
    }
  });
});

describe('who may use webhooks', () => {
  test('accounts mode: a token is needed, and each user sees and removes only their own', async () => {
    const { app, register, list, remove, deliveries, ping } = await setup('accounts');
    const mine = (await register({ url: 'https://93.184.215.14/mine' })).json;
    const other = await app.user();
    const theirs = (await register({ url: 'https://93.184.215.14/theirs' }, other.token)).json;

    for (const reply of [
      await app.get('/api/webhooks'),
      await app.post('/api/webhooks', { url: 'https://93.184.215.14/' }),
      await app.request('DELETE', `/api/webhooks/${mine.id}`),
      await app.get('/api/webhooks', { token: 'not-a-token' }),
    ]) {
      expect({ status: reply.status, body: reply.json }).toEqual({
        status: 401,
        body: { error: 'Unauthorized' },
      });
    }
    expect((await list()).json.map((w: { id: number }) => w.id)).toEqual([mine.id]);
    expect((await list(other.token)).json.map((w: { id: number }) => w.id)).toEqual([theirs.id]);
    // Another user's webhook is 404, as if it did not exist, and stays.
    expect((await remove(theirs.id)).status).toBe(404);
    expect((await deliveries(theirs.id)).status).toBe(404);
    expect((await ping(theirs.id)).status).toBe(404);
    expect((await list(other.token)).json).toHaveLength(1);
  });

  test('open mode: only with the admin token; without one configured, refused', async () => {
    const refusedApp = await TestApp.init('open');
    for (const reply of [
      await refusedApp.get('/api/webhooks'),
      await refusedApp.post('/api/webhooks', { url: 'https://93.184.215.14/' }),
      await refusedApp.request('DELETE', '/api/webhooks/1'),
      await refusedApp.get('/api/webhooks/1/deliveries'),
      await refusedApp.request('POST', '/api/webhooks/1/test'),
    ]) {
      expect({ status: reply.status, body: reply.json }).toEqual({
        status: 403,
        body: { error: 'Link management needs an admin token in open mode' },
      });
    }

    const { app, register, list } = await setup('open');
    for (const token of [undefined, 'wrong-token-wrong-token-wrong-token-0']) {
      for (const reply of [
        await app.get('/api/webhooks', { token }),
        await app.post('/api/webhooks', { url: 'https://93.184.215.14/' }, { token }),
      ]) {
        expect({ status: reply.status, body: reply.json }).toEqual({
          status: 401,
          body: { error: 'Unauthorized' },
        });
      }
    }
    const made = await register({ url: 'https://93.184.215.14/' });
    expect(made.status).toBe(201);
    expect((await list()).json).toHaveLength(1);
    // Open mode's webhooks belong to no one.
    expect(await app.query('SELECT user_id FROM webhooks')).toEqual([{ user_id: null }]);
  });
});

/** The short URL of a code, as link events carry it. */
const shortUrl = (code: string) => `${BASE_URL}/${code}`;

/** A link event's data: the link as GET /api/links/{code} shows it, and its short URL. */
function linkData(detail: Record<string, unknown>) {
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(detail)) {
    data[key] = value;
    if (key === 'short_code') data.short_url = shortUrl(value as string);
  }
  return data;
}

describe.each(MODES)('%s mode: delivery', (mode) => {
  test('each event arrives once, signed by Standard Webhooks, with the link as the API shows it', async () => {
    const receiver = Receiver.start();
    const { app, client, token, register } = await setup(mode, { webhooks: {} });
    const { secret } = await hooked(register, receiver);

    const made = await client.link('https://example.com/launch', {
      custom_code: 'launch',
      source: 'newsletter',
      max_clicks: 10,
      expires_at: '2099-01-01T00:00:00Z',
      password: 'open sesame',
    });
    const created = (await app.get('/api/links/launch', { token })).json;
    const changed = await app.request('PATCH', '/api/links/launch', {
      json: { url: 'https://example.com/launch-2', password: null },
      token,
    });
    expect(changed.status).toBe(200);
    const clicked = await app.get('/launch?source=qr', {
      headers: {
        referer: 'https://news.example/today?utm=x',
        'user-agent':
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      },
    });
    expect(clicked.status).toBe(307);
    const before = (await app.get('/api/links/launch', { token })).json;
    expect((await app.request('DELETE', '/api/links/launch', { token })).status).toBe(204);

    await eventually(
      () => receiver.messages().length === 4,
      () => `4 messages, got ${receiver.messages().map((m) => m.type)}`,
    );
    expect(ofType(receiver, 'link.created').map((m) => m.data)).toEqual([linkData(created)]);
    expect(ofType(receiver, 'link.updated').map((m) => m.data)).toEqual([linkData(changed.json)]);
    expect(ofType(receiver, 'link.deleted').map((m) => m.data)).toEqual([linkData(before)]);
    expect(created).toMatchObject({ short_code: 'launch', password_protected: true });
    expect(before.clicks).toBe(1);
    expect(ofType(receiver, 'clicks').map((m) => m.data)).toEqual([
      {
        clicks: [
          {
            code: 'launch',
            at: expect.any(String),
            referrer: 'https://news.example/today',
            country: null,
            source: 'newsletter',
            query_source: mode === 'accounts' ? 'qr' : null,
            user_agent: expect.stringContaining('Chrome/120'),
            browser: 'Chrome',
            os: 'Windows',
            device: 'desktop',
            bot: false,
          },
        ],
      },
    ]);
    expect(made.short_code).toBe('launch');

    for (const call of receiver.calls) {
      expect(call.headers.get('content-type')).toBe('application/json');
      expect(call.headers.get('user-agent')).toBe(`kurz/${VERSION} (webhooks)`);
      expect(call.headers.get('webhook-id')).toMatch(/^msg_\d+_\d+$/);
      expect(verifyStandardWebhook(secret, call)).toBe(true);
      // Tampering with any signed part breaks the signature.
      expect(verifyStandardWebhook(secret, { ...call, body: `${call.body} ` })).toBe(false);
      expect(verifyStandardWebhook(`whsec_${Buffer.alloc(32).toString('base64')}`, call)).toBe(
        false,
      );
      const { type, timestamp, data } = call.json;
      expect(Object.keys(call.json)).toEqual(['type', 'timestamp', 'data']);
      expect(ALL_EVENTS).toContain(type);
      expect(new Date(timestamp).toISOString()).toBe(timestamp);
      expect(data).toBeObject();
    }
    expect(receiver.calls).toHaveLength(4);
  });

  test('a webhook hears only the events it asked for, and only of its owner’s links', async () => {
    const receiver = Receiver.start();
    const { app, client, token, register } = await setup(mode, { webhooks: {} });
    await hooked(register, receiver, ['link.deleted']);
    await client.link('https://example.com/', { custom_code: 'kept' });
    await client.link('https://example.com/', { custom_code: 'gone' });
    await app.get('/kept');
    expect((await app.request('DELETE', '/api/links/gone', { token })).status).toBe(204);
    if (mode === 'accounts') {
      // Another user's link, deleted: not this webhook's business.
      const other: Client = await app.user();
      await other.link('https://example.com/', { custom_code: 'theirs' });
      await app.request('DELETE', '/api/links/theirs', { token: other.token });
    }
    // A ping after them all: once it is in, the rest would be too.
    const second = await hooked(register, receiver, ['clicks']);
    await app.request('POST', `/api/webhooks/${second.id}/test`, { token });
    await eventually(() => ofType(receiver, 'ping').length === 1, 'the ping');
    await eventually(() => ofType(receiver, 'link.deleted').length === 1, 'the deletion');
    expect(receiver.messages().map((m) => [m.type, m.data.short_code])).toEqual(
      expect.arrayContaining([
        ['link.deleted', 'gone'],
        ['ping', undefined],
      ]),
    );
    expect(receiver.messages()).toHaveLength(2);
  });

  test('clicks arrive in batches: 50 clicks, far fewer calls, each click exactly once', async () => {
    const receiver = Receiver.start();
    const { app, client, token: adminOrOwner, register } = await setup(mode, { webhooks: {} });
    await hooked(register, receiver, ['clicks']);
    await client.link('https://example.com/', { custom_code: 'busy' });
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        app.get('/busy', { headers: { referer: `https://ref.example/${i}` } }),
      ),
    );
    expect(replies.every((reply) => reply.status === 307)).toBe(true);
    const clicks = () => receiver.messages().flatMap((m) => m.data.clicks);
    await eventually(
      () => clicks().length >= 50,
      () => `50 clicks, got ${clicks().length}`,
    );
    const referrers = clicks().map((click) => click.referrer);
    expect(referrers.sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `https://ref.example/${i}`).sort(),
    );
    // Each click's moment is its record's, to the millisecond.
    const link = (await app.get('/api/links/busy', { token: adminOrOwner })).json;
    const records = await app.clickRecords(link.id);
    expect(
      clicks()
        .map((click) => click.at)
        .sort(),
    ).toEqual(records.map((record) => new Date(record.created_at).toISOString()).sort());
    expect(receiver.calls.length).toBeLessThanOrEqual(5);
  });

  test('clicks waiting in the outbox go out together: 30 batches, one call', async () => {
    const receiver = Receiver.start();
    // No sender yet: the batches stay in the outbox, as while a receiver is down. (The
    // webhook is stored as it is, since this app refuses private targets.)
    const { app, client } = await setup(mode);
    await app.store.createWebhook(
      {
        userId: client.user?.id ?? null,
        url: receiver.url,
        secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        events: ['clicks'],
        createdAt: Date.now(),
      },
      20,
    );
    await client.link('https://example.com/', { custom_code: 'steady' });
    for (let i = 0; i < 30; i++) {
      expect(
        (await app.get('/steady', { headers: { referer: `https://r.example/${i}` } })).status,
      ).toBe(307);
    }
    expect(await app.query('SELECT count(*) AS n FROM webhook_deliveries')).toEqual([{ n: 30 }]);
    const sender = await TestApp.init(mode, { store: app.store, webhooks: {} });
    await eventually(() => receiver.calls.length === 1, 'one call');
    await eventually(
      async () =>
        (await app.query('SELECT delivered_at FROM webhook_deliveries'))[0]?.delivered_at != null,
      'delivered',
    );
    expect(
      receiver.calls[0]?.json.data.clicks.map((c: { referrer: string }) => c.referrer),
    ).toEqual(Array.from({ length: 30 }, (_, i) => `https://r.example/${i}`));
    expect(await app.query('SELECT count(*) AS n FROM webhook_deliveries')).toEqual([{ n: 1 }]);
    expect(sender.webhooks).toBeDefined();
  });
});

/** The deliveries of a webhook as its owner sees them. */
async function deliveriesOf(
  deliveries: (id: number) => Promise<{ status: number; json: Record<string, unknown>[] }>,
  id: number,
) {
  const reply = await deliveries(id);
  expect(reply.status).toBe(200);
  return reply.json;
}

describe.each(MODES)('%s mode: messages stored by an earlier kurz', (mode) => {
  test('a link event whose data is the link JSON itself (as outboxes held it before they kept records) is sent as it was', async () => {
    const receiver = Receiver.start();
    const { app, client, token, register } = await setup(mode, { webhooks: {} });
    const hook = await hooked(register, receiver, ['link.updated']);
    await client.link('https://example.com/old', { custom_code: 'old' });
    const shown = (await app.get('/api/links/old', { token })).json;
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    await app.store.addDelivery(hook.id, 'link.updated', JSON.stringify(shown), at);
    await eventually(() => receiver.messages().length === 1, 'the stored message');
    expect(receiver.messages()[0]).toMatchObject({
      type: 'link.updated',
      timestamp: new Date(at).toISOString(),
      data: linkData(shown),
    });
  });
});

describe.each(MODES)('%s mode: retries', (mode) => {
  test('a receiver that fails and recovers gets the message, the same each time, after retries', async () => {
    const receiver = Receiver.start();
    receiver.answerWith((_, n) =>
      n < 2 ? new Response('busy, try later', { status: 500 }) : new Response('ok'),
    );
    const { client, register, deliveries } = await setup(mode, { webhooks: { schedule: QUICK } });
    const hook = await hooked(register, receiver, ['link.created']);
    await client.link('https://example.com/', { custom_code: 'retried' });
    await eventually(() => receiver.calls.length === 3, 'three attempts');
    await eventually(
      async () => (await deliveriesOf(deliveries, hook.id))[0]?.status === 'delivered',
      'delivered',
    );
    const [delivery] = await deliveriesOf(deliveries, hook.id);
    expect(delivery).toEqual({
      id: expect.any(Number),
      message_id: receiver.calls[0]?.headers.get('webhook-id'),
      type: 'link.created',
      created_at: expect.any(String),
      attempts: 3,
      status: 'delivered',
      last_status: 200,
      last_error: null,
      next_attempt_at: null,
      delivered_at: expect.any(String),
    });
    const [first, ...again] = receiver.calls as [Call, ...Call[]];
    for (const call of again) {
      expect(call.headers.get('webhook-id')).toBe(first.headers.get('webhook-id'));
      expect(call.body).toBe(first.body);
      expect(verifyStandardWebhook(hook.secret, call)).toBe(true);
    }
  });

  test('failures are recorded as they happen: the status and the start of the answer', async () => {
    const receiver = Receiver.start();
    receiver.answerWith(() => new Response('  no such\nhook  ', { status: 404 }));
    const { client, register, deliveries } = await setup(mode, {
      webhooks: { schedule: { ...QUICK, firstMs: 60_000 } },
    });
    const hook = await hooked(register, receiver, ['link.created']);
    await client.link('https://example.com/', { custom_code: 'missed' });
    await eventually(
      async () => (await deliveriesOf(deliveries, hook.id))[0]?.attempts === 1,
      'one attempt',
    );
    const [delivery] = await deliveriesOf(deliveries, hook.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status: 404,
      last_error: 'HTTP 404: no such hook',
      delivered_at: null,
    });
    // Tried again after the backoff (its schedule: webhook-rules.test.ts).
    expect(Date.parse(delivery?.next_attempt_at as string)).toBeGreaterThan(
      Date.parse(delivery?.created_at as string),
    );
  });

  test('a redirect is a failure: it is not followed', async () => {
    const receiver = Receiver.start();
    const elsewhere = Receiver.start();
    receiver.answerWith(() => Response.redirect(elsewhere.url, 302));
    const { client, register, deliveries } = await setup(mode, {
      webhooks: { schedule: { ...QUICK, firstMs: 60_000 } },
    });
    const hook = await hooked(register, receiver, ['link.created']);
    await client.link('https://example.com/', { custom_code: 'moved' });
    await eventually(
      async () => (await deliveriesOf(deliveries, hook.id))[0]?.attempts === 1,
      'one attempt',
    );
    expect((await deliveriesOf(deliveries, hook.id))[0]).toMatchObject({
      status: 'pending',
      last_status: 302,
      last_error: 'HTTP 302 (redirects are not followed)',
    });
    expect(elsewhere.calls).toHaveLength(0);
  });

  test('a receiver that never answers is given up once the day (here shortened) is over', async () => {
    const receiver = Receiver.start();
    receiver.answerWith(() => new Promise<Response>(() => {}));
    // Two seconds leave room for several attempts of 0.1 s even on a busy machine, where
    // half a second once held a single late one.
    const { app, client, register, deliveries } = await setup(mode, {
      webhooks: { schedule: { firstMs: 20, maxMs: 50, giveUpMs: 2000 }, timeoutMs: 100 },
    });
    const hook = await hooked(register, receiver, ['link.created']);
    await client.link('https://example.com/', { custom_code: 'silent' });
    await eventually(
      async () => (await deliveriesOf(deliveries, hook.id))[0]?.status === 'failed',
      'given up',
    );
    const [delivery] = await deliveriesOf(deliveries, hook.id);
    expect(delivery).toMatchObject({
      status: 'failed',
      last_status: null,
      last_error: 'no answer within 0.1 s',
      next_attempt_at: null,
      delivered_at: null,
    });
    expect(delivery?.attempts as number).toBeGreaterThanOrEqual(2);
    expect(receiver.calls.length).toBe(delivery?.attempts as number);
    expect(app.log.lines.join('\n')).toContain(
      `kurz: webhook ${hook.id} message ${receiver.calls[0]?.headers.get('webhook-id')} given up after ${delivery?.attempts} attempts (no answer within 0.1 s)`,
    );
    // No secret of the webhook, nor its URL, in the log.
    expect(app.log.lines.join('\n')).not.toContain(hook.secret);
    expect(app.log.lines.join('\n')).not.toContain(receiver.url);
  });

  test('each delivery checks the address again: a name that turned private is refused', async () => {
    let answer = '93.184.215.14';
    const { client, register, deliveries } = await setup(mode, {
      webhooks: {
        policy: { allowPrivate: false, resolve: async () => [answer] },
        schedule: { ...QUICK, firstMs: 60_000 },
      },
    });
    const hook = (await register({ url: 'https://hooks.example/kurz', events: ['link.created'] }))
      .json;
    expect(hook.id).toBeNumber();
    answer = '127.0.0.1';
    await client.link('https://example.com/', { custom_code: 'rebound' });
    await eventually(
      async () => (await deliveriesOf(deliveries, hook.id))[0]?.attempts === 1,
      'one attempt',
    );
    expect((await deliveriesOf(deliveries, hook.id))[0]).toMatchObject({
      status: 'pending',
      last_status: null,
      last_error:
        'refused: hooks.example is not a public address (127.0.0.1); see --webhook-allow-private',
    });
  });
});

describe.each(MODES)('%s mode: the outbox', (mode) => {
  test('a test ping is put in the outbox and sent', async () => {
    const receiver = Receiver.start();
    const { register, ping, deliveries } = await setup(mode, { webhooks: {} });
    const hook = await hooked(register, receiver);
    const queued = await ping(hook.id);
    expect(queued.status).toBe(202);
    expect(queued.json).toMatchObject({ type: 'ping', attempts: 0, status: 'pending' });
    await eventually(() => receiver.calls.length === 1, 'the ping');
    expect(receiver.calls[0]?.json).toEqual({
      type: 'ping',
      timestamp: queued.json.created_at,
      data: { webhook_id: hook.id },
    });
    expect(receiver.calls[0]?.headers.get('webhook-id')).toBe(queued.json.message_id);
    await eventually(
      async () => (await deliveriesOf(deliveries, hook.id))[0]?.status === 'delivered',
      'delivered',
    );
  });

  test('every change committed has its message; a change that fails leaves none', async () => {
    const { app, client, token, register } = await setup(mode);
    await register({ url: 'https://93.184.215.14/', events: ALL_EVENTS });
    await client.link('https://example.com/', { custom_code: 'kept' });
    await app.get('/kept');
    await app.request('PATCH', '/api/links/kept', { json: { max_clicks: 5 }, token });
    const rows = () =>
      app.query<{ type: string }>('SELECT type FROM webhook_deliveries ORDER BY id');
    expect((await rows()).map((row) => row.type)).toEqual([
      'link.created',
      'clicks',
      'link.updated',
    ]);

    // The outbox refuses: the change it reports is rolled back with it.
    await refuseInserts(app, 'webhook_deliveries');
    expect((await app.get('/kept')).status).toBe(503);
    const patched = await app.request('PATCH', '/api/links/kept', {
      json: { url: 'https://example.com/other' },
      token,
    });
    expect(patched.status).toBe(500);
    expect((await app.request('DELETE', '/api/links/kept', { token })).status).toBe(500);
    expect((await client.shorten({ url: 'https://example.com/', custom_code: 'new' })).status).toBe(
      503,
    );
    const kept = (await app.get('/api/links/kept', { token })).json;
    expect(kept).toMatchObject({ original_url: 'https://example.com/', clicks: 1, max_clicks: 5 });
    expect((await app.get('/api/links/new', { token })).status).toBe(404);
    await allowInserts(app, 'webhook_deliveries');

    // The change refuses: no message is written for it.
    await refuseInserts(app, 'clicks');
    expect((await app.get('/kept')).status).toBe(503);
    await allowInserts(app, 'clicks');
    expect((await rows()).map((row) => row.type)).toEqual([
      'link.created',
      'clicks',
      'link.updated',
    ]);
  });

  test('removing a webhook removes its messages; old finished ones are pruned', async () => {
    const { app, client, register, remove } = await setup(mode);
    const first = (await register({ url: 'https://93.184.215.14/a' })).json;
    const second = (await register({ url: 'https://93.184.215.14/b' })).json;
    await client.link('https://example.com/', { custom_code: 'twice' });
    const count = async (id: number) =>
      (await app.query('SELECT id FROM webhook_deliveries WHERE webhook_id = ?', [id])).length;
    expect([await count(first.id), await count(second.id)]).toEqual([1, 1]);
    expect((await remove(first.id)).status).toBe(204);
    expect([await count(first.id), await count(second.id)]).toEqual([0, 1]);

    const store = app.store;
    const now = Date.now();
    const done = await store.addDelivery(second.id, 'ping', '{}', now - 10_000);
    const failed = await store.addDelivery(second.id, 'ping', '{}', now - 10_000);
    const pending = await store.addDelivery(second.id, 'ping', '{}', now - 10_000);
    await store.finishDelivery({
      id: done.id,
      at: now,
      status: 200,
      error: null,
      delivered: true,
      nextAttemptAt: null,
    });
    await store.finishDelivery({
      id: failed.id,
      at: now,
      status: 500,
      error: 'HTTP 500',
      delivered: false,
      nextAttemptAt: null,
    });
    expect(await store.pruneDeliveries(now - 20_000)).toBe(0);
    expect(await store.pruneDeliveries(now)).toBe(2);
    const left = (await store.listDeliveries(second.id, 10)).map((d) => d.id);
    expect(left).toContain(pending.id);
    expect(left).not.toContain(done.id);
    expect(left).not.toContain(failed.id);
  });
});

/** Makes every insert into `table` fail, on either database. */
async function refuseInserts(app: TestApp, table: string): Promise<void> {
  if (app.store.kind === 'sqlite') {
    await app.query(
      `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    return;
  }
  await app.query(
    `CREATE OR REPLACE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'refused'; END$$`,
  );
  await app.query(
    `CREATE TRIGGER refuse_${table} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_insert()`,
  );
}

async function allowInserts(app: TestApp, table: string): Promise<void> {
  await app.query(
    `DROP TRIGGER refuse_${table}${app.store.kind === 'sqlite' ? '' : ` ON ${table}`}`,
  );
}

/** An object without its undefined fields. */
function withoutUndefined(object: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
