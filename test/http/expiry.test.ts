// Links that expire: past `expires_at`, or once `max_clicks` clicks are
// counted, GET and HEAD /{code} answer 410 "Link expired" and count nothing, and the
// link's status is "expired". max_clicks is exact however many visit at once.
// Time is moved with setSystemTime rather than waited for: a link expires at the very
// millisecond its expires_at names.

import { describe, expect, onTestFinished, setSystemTime, test } from 'bun:test';
import { ADMIN_TOKEN, TestApp } from '../support/test-app.ts';

type Mode = 'accounts' | 'open';
const EXPIRED = { error: 'Link expired' };
const MINUTE = 60_000;

/** An app, a client that creates links, and PATCH / GET of a link as its manager. */
async function setup(mode: Mode) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN });
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

/** Stops the clock at `ms` (since the epoch) for the rest of the test. */
function clockAt(ms: number): void {
  setSystemTime(new Date(ms));
  onTestFinished(() => setSystemTime());
}

/** `status location-or-error` of a follow, one string to compare. */
async function follow(app: TestApp, code: string, method = 'GET'): Promise<string> {
  const reply = await app.request(method, `/${code}`);
  if (reply.status === 307) return `307 ${reply.headers.get('location')}`;
  if (method === 'HEAD') return String(reply.status);
  return `${reply.status} ${reply.json?.error ?? reply.text}`;
}

/** Clicks of a link as the API shows them, and its click records in the database. */
async function counted(
  app: TestApp,
  detail: (code: string) => Promise<{ clicks: number }>,
  code: string,
  id: number,
) {
  return { clicks: (await detail(code)).clicks, records: (await app.clickRecords(id)).length };
}

/** Counts how often each value occurs. */
function tally(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

describe.each(['accounts', 'open'] as const)('expiry by time (%s mode)', (mode) => {
  test('a link answers up to the millisecond before expires_at, and 410 from that moment on, counting nothing', async () => {
    const { app, client, detail } = await setup(mode);
    const at = Date.now() + 10 * MINUTE;
    const link = await client.link('https://example.com/sale', {
      custom_code: 'sale',
      expires_at: new Date(at).toISOString(),
    });
    // Followed now: the redirect has it cached from here on.
    expect(await follow(app, 'sale')).toBe('307 https://example.com/sale');
    clockAt(at - 1);
    expect(await follow(app, 'sale')).toBe('307 https://example.com/sale');
    expect((await detail('sale')).status).toBe('active');

    clockAt(at);
    expect(await follow(app, 'sale')).toBe('410 Link expired');
    const reply = await app.get('/sale');
    expect(reply.json).toEqual(EXPIRED);
    expect(reply.headers.get('location')).toBeNull();
    expect(await follow(app, 'sale', 'HEAD')).toBe('410');
    // Later still (within the token's hour, so the owner can still look).
    clockAt(at + 30 * MINUTE);
    expect(await follow(app, 'sale')).toBe('410 Link expired');
    expect(await follow(app, 'sale', 'HEAD')).toBe('410');

    expect(await counted(app, detail, 'sale', link.id)).toEqual({ clicks: 2, records: 2 });
    expect(await detail('sale')).toMatchObject({
      clicks: 2,
      expires_at: new Date(at).toISOString(),
      status: 'expired',
    });
    // The list still shows it, with its clicks.
    expect((await client.links()).json).toEqual([{ ...link, clicks: 2 }]);
  });

  test('PATCH to a moment already past is accepted and expires the link at once, even when cached', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'ended' });
    expect(await follow(app, 'ended')).toBe('307 https://example.com/');
    const reply = await change('ended', { expires_at: '2020-01-01T00:00:00Z' });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ expires_at: '2020-01-01T00:00:00.000Z', status: 'expired' });
    expect(await follow(app, 'ended')).toBe('410 Link expired');
    expect(await follow(app, 'ended', 'HEAD')).toBe('410');
    expect(await counted(app, detail, 'ended', link.id)).toEqual({ clicks: 1, records: 1 });
  });

  test('a later expires_at, or null, makes an expired link active again', async () => {
    const { app, client, change } = await setup(mode);
    await client.link('https://example.com/', {
      custom_code: 'back',
      expires_at: '2021-06-01T00:00:00Z',
    });
    expect(await follow(app, 'back')).toBe('410 Link expired');
    const later = await change('back', { expires_at: new Date(Date.now() + MINUTE).toISOString() });
    expect(later.json.status).toBe('active');
    expect(await follow(app, 'back')).toBe('307 https://example.com/');
    expect((await change('back', { expires_at: '2021-06-01T00:00:00Z' })).json.status).toBe(
      'expired',
    );
    expect(await follow(app, 'back')).toBe('410 Link expired');
    const never = await change('back', { expires_at: null });
    expect(never.json).toMatchObject({ expires_at: null, status: 'active', clicks: 1 });
    expect(await follow(app, 'back')).toBe('307 https://example.com/');
  });
});

describe.each(['accounts', 'open'] as const)('expiry by clicks (%s mode)', (mode) => {
  test('max_clicks clicks are followed; after them 410, counting nothing; HEAD never spends one', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/few', {
      custom_code: 'few',
      max_clicks: 3,
    });
    for (let i = 0; i < 3; i++) {
      expect(await follow(app, 'few', 'HEAD')).toBe('307 https://example.com/few');
    }
    expect(await counted(app, detail, 'few', link.id)).toEqual({ clicks: 0, records: 0 });
    for (let i = 0; i < 2; i++)
      expect(await follow(app, 'few')).toBe('307 https://example.com/few');
    expect((await detail('few')).status).toBe('active');
    expect(await follow(app, 'few')).toBe('307 https://example.com/few');
    expect((await detail('few')).status).toBe('expired');
    for (let i = 0; i < 3; i++) {
      expect(await follow(app, 'few')).toBe('410 Link expired');
      expect(await follow(app, 'few', 'HEAD')).toBe('410');
    }
    expect(await counted(app, detail, 'few', link.id)).toEqual({ clicks: 3, records: 3 });
    expect(await detail('few')).toMatchObject({ clicks: 3, max_clicks: 3, status: 'expired' });
  });

  test('raising max_clicks makes an expired link active again, for the clicks added', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'more', max_clicks: 1 });
    expect(await follow(app, 'more')).toBe('307 https://example.com/');
    expect(await follow(app, 'more')).toBe('410 Link expired');
    const raised = await change('more', { max_clicks: 3 });
    expect(raised.json).toMatchObject({ clicks: 1, max_clicks: 3, status: 'active' });
    expect(await follow(app, 'more')).toBe('307 https://example.com/');
    expect(await follow(app, 'more')).toBe('307 https://example.com/');
    expect(await follow(app, 'more')).toBe('410 Link expired');
    expect(await counted(app, detail, 'more', link.id)).toEqual({ clicks: 3, records: 3 });
    // null lifts the limit.
    expect((await change('more', { max_clicks: null })).json.status).toBe('active');
    for (let i = 0; i < 3; i++) expect(await follow(app, 'more')).toBe('307 https://example.com/');
    expect(await counted(app, detail, 'more', link.id)).toEqual({ clicks: 6, records: 6 });
  });

  test('max_clicks set on a link with clicks counts from them: at or below them, expired at once', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'used' });
    for (let i = 0; i < 4; i++) expect(await follow(app, 'used')).toBe('307 https://example.com/');

    const six = await change('used', { max_clicks: 6 });
    expect(six.json).toMatchObject({ clicks: 4, max_clicks: 6, status: 'active' });
    expect(await follow(app, 'used')).toBe('307 https://example.com/');
    expect(await follow(app, 'used')).toBe('307 https://example.com/');
    expect(await follow(app, 'used')).toBe('410 Link expired');

    for (const max of [6, 2, 1]) {
      const lower = await change('used', { max_clicks: max });
      expect(lower.json).toMatchObject({ clicks: 6, max_clicks: max, status: 'expired' });
      expect(await follow(app, 'used')).toBe('410 Link expired');
      expect(await follow(app, 'used', 'HEAD')).toBe('410');
    }
    expect(await counted(app, detail, 'used', link.id)).toEqual({ clicks: 6, records: 6 });
    expect((await change('used', { max_clicks: 7 })).json.status).toBe('active');
    expect(await follow(app, 'used')).toBe('307 https://example.com/');
    expect(await follow(app, 'used')).toBe('410 Link expired');
  });

  test('200 visitors at once of a link with max_clicks 10: exactly 10 are sent on, 190 get 410', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/rush', {
      custom_code: 'rush',
      max_clicks: 10,
    });
    const answers = await Promise.all(Array.from({ length: 200 }, () => follow(app, 'rush')));
    expect(tally(answers)).toEqual({ '307 https://example.com/rush': 10, '410 Link expired': 190 });
    expect(await counted(app, detail, 'rush', link.id)).toEqual({ clicks: 10, records: 10 });
    expect((await detail('rush')).status).toBe('expired');
  });

  test('the same when the link was followed, and so cached, before the rush', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/rush', {
      custom_code: 'rush',
      max_clicks: 11,
    });
    expect(await follow(app, 'rush')).toBe('307 https://example.com/rush');
    const answers = await Promise.all(Array.from({ length: 200 }, () => follow(app, 'rush')));
    expect(tally(answers)).toEqual({ '307 https://example.com/rush': 10, '410 Link expired': 190 });
    expect(await counted(app, detail, 'rush', link.id)).toEqual({ clicks: 11, records: 11 });
  });

  test('limits are per link: a rush on one spends nothing of another', async () => {
    const { app, client, detail } = await setup(mode);
    await client.link('https://example.com/a', { custom_code: 'a', max_clicks: 5 });
    await client.link('https://example.com/b', { custom_code: 'b', max_clicks: 5 });
    await client.link('https://example.com/c', { custom_code: 'c' });
    const codes = Array.from({ length: 60 }, (_, i) => ['a', 'b', 'c'][i % 3] as string);
    const answers = await Promise.all(codes.map((code) => follow(app, code)));
    expect(tally(answers)).toEqual({
      '307 https://example.com/a': 5,
      '307 https://example.com/b': 5,
      '307 https://example.com/c': 20,
      '410 Link expired': 30,
    });
    expect((await detail('a')).clicks).toBe(5);
    expect((await detail('b')).clicks).toBe(5);
    expect((await detail('c')).clicks).toBe(20);
  });
});
