// Managing one link: GET, PATCH and DELETE /api/links/{code}, who may use
// them in each mode, and the settings (expires_at, max_clicks, password) that PATCH
// changes and POST /api/shorten accepts. What the settings do to a redirect is in
// expiry.test.ts and password-links.test.ts.

import { describe, expect, test } from 'bun:test';
import { parseBlocklist } from '../../src/domain/targets.ts';
import { ADMIN_TOKEN, type AppOptions, BASE_URL, TestApp } from '../support/test-app.ts';

type Mode = 'accounts' | 'open';
const MODES: Mode[] = ['accounts', 'open'];

const MSG = {
  unauthorized: { error: 'Unauthorized' },
  notFound: { error: 'Not found' },
  adminTokenMissing: { error: 'Link management needs an admin token in open mode' },
  body: 'Request body must be a JSON object',
  urlRequired: 'url is required',
  urlScheme: 'URL must start with http:// or https://',
  urlInvalid: 'URL is not valid',
  urlSelf: 'URL must not point to this service',
  urlBlocked: 'URL is blocked',
  code: 'Custom code must be 1-32 characters long and contain only letters, numbers, underscores, and hyphens',
  source: 'source must be a string of at most 255 characters',
  expiresAt:
    'expires_at must be an ISO 8601 date-time with a time zone, such as 2026-12-31T23:59:59Z',
  maxClicks: 'max_clicks must be a whole number from 1 to 1000000000',
  password: 'password must be a string of 1 to 128 characters',
};

/** Settings each rule refuses, with its message: the same on create and on PATCH. */
const BAD_SETTINGS: [string, unknown, string][] = [
  ['expires_at', 'tomorrow', MSG.expiresAt],
  ['expires_at', '2030-01-01', MSG.expiresAt],
  ['expires_at', '2030-01-01T00:00:00', MSG.expiresAt], // no time zone
  ['expires_at', '2030-02-30T00:00:00Z', MSG.expiresAt], // no such day
  ['expires_at', '2030-01-01T24:00:00Z', MSG.expiresAt],
  ['expires_at', '', MSG.expiresAt],
  ['expires_at', 1893456000000, MSG.expiresAt],
  ['expires_at', true, MSG.expiresAt],
  ['max_clicks', 0, MSG.maxClicks],
  ['max_clicks', -1, MSG.maxClicks],
  ['max_clicks', 1.5, MSG.maxClicks],
  ['max_clicks', 1_000_000_001, MSG.maxClicks],
  ['max_clicks', '5', MSG.maxClicks],
  ['max_clicks', false, MSG.maxClicks],
  ['password', '', MSG.password],
  ['password', 'x'.repeat(129), MSG.password],
  ['password', 1234, MSG.password],
  ['password', ['secret'], MSG.password],
];

/** BAD_SETTINGS as test.each rows, long values shown by their length: [field, shown, value, message]. */
const badSettingRows = BAD_SETTINGS.map(([field, value, message]) => {
  const json = JSON.stringify(value);
  const shown = json.length > 40 ? `${json.slice(0, 12)}… (${json.length} characters)` : json;
  return [field, shown, value, message] as const;
});

/** Targets the url rules refuse (the service's own host; a blocklisted domain), with their messages. */
const BAD_URLS: [unknown, string][] = [
  [null, MSG.urlRequired],
  [42, MSG.urlRequired],
  ['ftp://example.com/', MSG.urlScheme],
  ['HTTPS://example.com/', MSG.urlScheme],
  ['https://exa mple.com/', MSG.urlInvalid],
  ['https://user@example.com/', MSG.urlInvalid],
  ['https:///path', MSG.urlInvalid],
  ['https://kurz.test/abc', MSG.urlSelf], // TestApp's base URL
  ['https://www.blocked.example/', MSG.urlBlocked],
];

/** Bodies that are not a JSON object, sent raw. */
const NOT_OBJECTS = ['[]', '"text"', 'null', '42', 'true', 'not json', '{"url": '];

const blocklist = parseBlocklist('blocked.example\n');

/**
 * An app in `mode`, a client that creates links, and the token that manages them: the
 * owner's in accounts mode, the admin token (configured unless told otherwise) in open mode.
 */
async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, {
    adminToken: ADMIN_TOKEN,
    blocklist: () => blocklist,
    ...options,
  });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  const token = mode === 'accounts' ? client.token : ADMIN_TOKEN;
  // `as`: another bearer token to send, or null for none.
  const bearer = (as: string | null | undefined) => ({ token: as ?? undefined });
  return {
    app,
    client,
    token,
    detail: (code: string, as: string | null | undefined = token) =>
      app.get(`/api/links/${code}`, bearer(as)),
    change: (code: string, json: unknown, as: string | null | undefined = token) =>
      app.request('PATCH', `/api/links/${code}`, { json, ...bearer(as) }),
    remove: (code: string, as: string | null | undefined = token) =>
      app.request('DELETE', `/api/links/${code}`, bearer(as)),
  };
}

/** The detail object of a link as created (the create response), with `settings` over the defaults. */
function detailOf(link: Record<string, unknown>, settings: Record<string, unknown> = {}) {
  return {
    ...link,
    short_url: `https://kurz.test/${link.short_code}`,
    domain: 'kurz.test',
    tags: [],
    source: null,
    expires_at: null,
    max_clicks: null,
    password_protected: false,
    rules: [],
    variants: [],
    preview: null,
    status: 'active',
    disabled: false,
    disabled_reason: null,
    ...settings,
  };
}

/** `{status, body}` of a reply, for one comparison that shows both on failure. */
const answer = (reply: { status: number; json: unknown }) => ({
  status: reply.status,
  body: reply.json,
});

describe('who may manage a link, in accounts mode', () => {
  test("only the owner: another user's link is 404 to read, change or delete, as if it did not exist", async () => {
    const { app, client: ann, detail, change, remove } = await setup('accounts');
    const link = await ann.link('https://example.com/ann', { custom_code: 'anns' });
    const bob = await app.user();
    for (const code of ['anns', 'nosuchcode']) {
      expect(answer(await detail(code, bob.token))).toEqual({ status: 404, body: MSG.notFound });
      expect(answer(await change(code, { url: 'https://example.com/bob' }, bob.token))).toEqual({
        status: 404,
        body: MSG.notFound,
      });
      expect(answer(await remove(code, bob.token))).toEqual({ status: 404, body: MSG.notFound });
    }
    expect((await detail('anns')).json).toEqual(detailOf(link));
    expect((await app.get('/anns')).headers.get('location')).toBe('https://example.com/ann');
  });

  test('no token, or one that is not valid, is 401 on every management request', async () => {
    const { app, client, detail, change, remove } = await setup('accounts');
    const link = await client.link('https://example.com/', { custom_code: 'kept' });
    for (const token of [undefined, 'junk', ADMIN_TOKEN]) {
      const as = { token };
      expect(answer(await app.get('/api/links/kept', as))).toEqual({
        status: 401,
        body: MSG.unauthorized,
      });
      expect(
        answer(
          await app.request('PATCH', '/api/links/kept', {
            ...as,
            json: { url: 'https://example.com/x' },
          }),
        ),
      ).toEqual({ status: 401, body: MSG.unauthorized });
      expect(answer(await app.request('DELETE', '/api/links/kept', as))).toEqual({
        status: 401,
        body: MSG.unauthorized,
      });
      // The token is checked before the body, and before the code is looked up.
      expect(
        (await app.request('PATCH', '/api/links/kept', { ...as, raw: 'not json' })).status,
      ).toBe(401);
      expect((await app.request('DELETE', '/api/links/nosuchcode', as)).status).toBe(401);
    }
    expect((await detail('kept')).json).toEqual(detailOf(link));
    expect((await change('kept', {})).status).toBe(200);
    expect((await remove('kept')).status).toBe(204);
  });
});

describe('who may manage a link, in open mode', () => {
  test('reading is open to anyone, as the list is, with or without an admin token configured', async () => {
    for (const adminToken of [ADMIN_TOKEN, undefined]) {
      const { app, client } = await setup('open', { adminToken });
      const link = await client.link('https://example.com/', { custom_code: 'open' });
      const reply = await app.get('/api/links/open');
      expect(answer(reply)).toEqual({ status: 200, body: detailOf(link) });
      // Authorization is ignored when reading.
      expect((await app.get('/api/links/open', { token: 'junk' })).json).toEqual(detailOf(link));
    }
  });

  test('without an admin token configured, changing and deleting are refused with 403, whatever is sent', async () => {
    const { app, client, change, remove } = await setup('open', { adminToken: undefined });
    const link = await client.link('https://example.com/', { custom_code: 'stays' });
    for (const token of [null, ADMIN_TOKEN, 'junk']) {
      expect(answer(await change('stays', { url: 'https://example.com/new' }, token))).toEqual({
        status: 403,
        body: MSG.adminTokenMissing,
      });
      expect(answer(await remove('stays', token))).toEqual({
        status: 403,
        body: MSG.adminTokenMissing,
      });
      expect(answer(await remove('nosuchcode', token))).toEqual({
        status: 403,
        body: MSG.adminTokenMissing,
      });
    }
    expect((await app.get('/api/links/stays')).json).toEqual(detailOf(link));
    expect((await app.get('/stays')).headers.get('location')).toBe('https://example.com/');
  });

  test('a missing or wrong admin token is 401, checked before the body and the code', async () => {
    const { app, client } = await setup('open');
    const link = await client.link('https://example.com/', { custom_code: 'guarded' });
    const wrong: (Record<string, string> | undefined)[] = [
      undefined,
      { authorization: 'Bearer junk' },
      { authorization: `Bearer ${ADMIN_TOKEN}x` },
      { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
      { authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` },
      { authorization: ADMIN_TOKEN },
      { authorization: `Basic ${ADMIN_TOKEN}` },
    ];
    for (const headers of wrong) {
      const patch = await app.request('PATCH', '/api/links/guarded', {
        headers,
        json: { url: 'https://example.com/new' },
      });
      expect(answer(patch)).toEqual({ status: 401, body: MSG.unauthorized });
      const del = await app.request('DELETE', '/api/links/guarded', { headers });
      expect(answer(del)).toEqual({ status: 401, body: MSG.unauthorized });
      expect(
        (await app.request('PATCH', '/api/links/guarded', { headers, raw: 'not json' })).status,
      ).toBe(401);
      expect((await app.request('DELETE', '/api/links/nosuchcode', { headers })).status).toBe(401);
    }
    expect((await app.get('/api/links/guarded')).json).toEqual(detailOf(link));
    // The right token, as `Authorization: Bearer …`.
    const right = await app.request('PATCH', '/api/links/guarded', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      json: { url: 'https://example.com/new' },
    });
    expect(right.status).toBe(200);
  });
});

describe.each(MODES)('GET /api/links/{code} (%s mode)', (mode) => {
  test('answers the link object with its settings, none set', async () => {
    const { client, detail } = await setup(mode);
    const link = await client.link('https://example.com/plain', { custom_code: 'plain' });
    const reply = await detail('plain');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toStartWith('application/json');
    expect(reply.json).toEqual(detailOf(link));
    expect(Object.keys(reply.json).sort()).toEqual(
      [
        ...Object.keys(link),
        'short_url',
        'domain',
        'tags',
        'source',
        'expires_at',
        'max_clicks',
        'password_protected',
        'rules',
        'variants',
        'preview',
        'status',
        'disabled',
        'disabled_reason',
      ].sort(),
    );
  });

  test('shows the source and settings given at creation, expires_at as ISO 8601 UTC with milliseconds', async () => {
    const { client, detail } = await setup(mode);
    const cases: [string, string][] = [
      ['2030-01-01T00:00:00Z', '2030-01-01T00:00:00.000Z'],
      ['2030-06-01T12:30:00+02:00', '2030-06-01T10:30:00.000Z'],
      ['2030-06-01t12:30z', '2030-06-01T12:30:00.000Z'],
      ['2030-06-01T12:30:15.5-01:30', '2030-06-01T14:00:15.500Z'],
    ];
    for (const [i, [given, shown]] of cases.entries()) {
      const link = await client.link('https://example.com/set', {
        custom_code: `set${i}`,
        source: 'newsletter',
        expires_at: given,
        max_clicks: 5,
        password: 'open sesame',
      });
      expect((await detail(`set${i}`)).json).toEqual(
        detailOf(link, {
          source: 'newsletter',
          expires_at: shown,
          max_clicks: 5,
          password_protected: true,
        }),
      );
    }
  });

  test('counts the clicks as the list does', async () => {
    const { app, client, detail } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'counted' });
    for (let i = 0; i < 3; i++) expect((await app.get('/counted')).status).toBe(307);
    expect((await detail('counted')).json).toEqual(detailOf({ ...link, clicks: 3 }));
    expect((await client.links()).json).toEqual([{ ...link, clicks: 3 }]);
  });

  test.each(['nosuchcode', 'Counted', 'has.dot', 'a'.repeat(33)])(
    'a code with no link (%s) is 404',
    async (code) => {
      const { client, detail } = await setup(mode);
      await client.link('https://example.com/', { custom_code: 'counted' });
      expect(answer(await detail(code))).toEqual({ status: 404, body: MSG.notFound });
    },
  );

  test('the password hash is never returned, by any endpoint', async () => {
    const { app, client, detail, change } = await setup(mode);
    const created = await client.shorten({
      url: 'https://example.com/',
      custom_code: 'secret',
      password: 'open sesame',
    });
    const [row] = await app.query<{ hash: string }>(
      'SELECT password_hash AS hash FROM links WHERE short_code = ?',
      ['secret'],
    );
    const hash = row?.hash ?? '';
    expect(hash).toStartWith('$argon2id$');
    const replies = [
      created,
      await client.links(),
      await client.links('?limit=1'),
      await detail('secret'),
      await change('secret', { max_clicks: 9 }),
      await change('secret', { password: 'another one' }),
      await detail('secret'),
    ];
    for (const reply of replies) {
      expect(reply.status).toBeLessThan(300);
      expect(reply.text).not.toContain('$argon2');
      expect(reply.text).not.toContain(hash.slice(hash.lastIndexOf('$') + 1));
      expect(reply.text).not.toContain('password_hash');
      expect(reply.text).not.toContain('open sesame');
      expect(reply.text).not.toContain('another one');
    }
  });
});

describe.each(MODES)('PATCH /api/links/{code} (%s mode)', (mode) => {
  test('a new url is answered with the detail object and followed at once, even when the old target was cached', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/old', { custom_code: 'moved' });
    // Followed once: the redirect now has the link cached.
    expect((await app.get('/moved')).headers.get('location')).toBe('https://example.com/old');
    const reply = await change('moved', { url: 'https://example.com/new?x=1' });
    const changed = detailOf({ ...link, original_url: 'https://example.com/new?x=1', clicks: 1 });
    expect(answer(reply)).toEqual({ status: 200, body: changed });
    const followed = await app.get('/moved');
    expect(followed.status).toBe(307);
    expect(followed.headers.get('location')).toBe('https://example.com/new?x=1');
    // The id, code and created_at stay, and so do the clicks counted before.
    expect((await detail('moved')).json).toEqual({ ...changed, clicks: 2 });
    expect((await client.links()).json).toEqual([
      { ...link, original_url: 'https://example.com/new?x=1', clicks: 2 },
    ]);
    // A HEAD shows the new target too.
    expect((await app.request('HEAD', '/moved')).headers.get('location')).toBe(
      'https://example.com/new?x=1',
    );
  });

  test('each setting is set by its field and cleared with null; the others stay', async () => {
    const { client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'tuned' });
    const steps: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ expires_at: '2031-03-04T05:06:07Z' }, { expires_at: '2031-03-04T05:06:07.000Z' }],
      [{ max_clicks: 1_000_000_000 }, { max_clicks: 1_000_000_000 }],
      [{ password: 'p'.repeat(128) }, { password_protected: true }],
      [{ max_clicks: 1 }, { max_clicks: 1 }],
      [{ expires_at: null }, { expires_at: null }],
      [{ password: null }, { password_protected: false }],
      [{ max_clicks: null }, { max_clicks: null }],
      [
        { url: 'https://example.org/all', expires_at: '2032-01-01T00:00:00.123Z', max_clicks: 7 },
        {
          original_url: 'https://example.org/all',
          expires_at: '2032-01-01T00:00:00.123Z',
          max_clicks: 7,
        },
      ],
    ];
    let expected = detailOf(link);
    for (const [body, shows] of steps) {
      expected = { ...expected, ...shows };
      expect(answer(await change('tuned', body))).toEqual({ status: 200, body: expected });
      expect((await detail('tuned')).json).toEqual(expected);
    }
  });

  test('a password of 128 characters of any kind is accepted, 129 is not', async () => {
    const { client, change, detail } = await setup(mode);
    await client.link('https://example.com/', { custom_code: 'emoji' });
    expect((await change('emoji', { password: '😀'.repeat(128) })).status).toBe(200);
    expect((await detail('emoji')).json.password_protected).toBe(true);
    expect(answer(await change('emoji', { password: '😀'.repeat(129) }))).toEqual({
      status: 400,
      body: { error: MSG.password },
    });
  });

  test('{} and unknown fields change nothing and answer 200 with the link', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/same', {
      custom_code: 'same',
      max_clicks: 3,
    });
    const before = detailOf(link, { max_clicks: 3 });
    for (const body of [
      {},
      {
        short_code: 'other',
        clicks: 99,
        id: 1234,
        user_id: 77,
        created_at: '2020-01-01T00:00:00Z',
      },
      { source: 'elsewhere', status: 'expired', password_protected: true, custom_code: 'x' },
    ]) {
      expect(answer(await change('same', body))).toEqual({ status: 200, body: before });
    }
    expect((await detail('same')).json).toEqual(before);
    expect((await detail('other')).status).toBe(404);
    expect((await app.get('/same')).headers.get('location')).toBe('https://example.com/same');
  });

  test.each(badSettingRows)(
    '%s: %s is 400 and changes nothing',
    async (field, _, value, message) => {
      const { client, change, detail } = await setup(mode);
      const link = await client.link('https://example.com/', { custom_code: 'rules' });
      expect(answer(await change('rules', { [field]: value }))).toEqual({
        status: 400,
        body: { error: message },
      });
      expect((await detail('rules')).json).toEqual(detailOf(link));
    },
  );

  test.each(BAD_URLS)('url %p is 400 as at creation, and changes nothing', async (url, message) => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/kept', { custom_code: 'target' });
    expect(answer(await change('target', { url }))).toEqual({
      status: 400,
      body: { error: message },
    });
    expect((await detail('target')).json).toEqual(detailOf(link));
    expect((await app.get('/target')).headers.get('location')).toBe('https://example.com/kept');
  });

  test.each(NOT_OBJECTS)('a body that is not a JSON object (%s) is 400', async (raw) => {
    const { app, client, token, detail } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'shape' });
    const reply = await app.request('PATCH', '/api/links/shape', { raw, token });
    expect(answer(reply)).toEqual({ status: 400, body: { error: MSG.body } });
    expect((await detail('shape')).json).toEqual(detailOf(link));
  });

  test('checks url first, then expires_at, max_clicks and password; a bad body changes none of its fields', async () => {
    const { app, client, change, detail } = await setup(mode);
    const link = await client.link('https://example.com/first', { custom_code: 'order' });
    const bad = { url: 'ftp://x', expires_at: 'soon', max_clicks: 0, password: '' };
    const expected: [Record<string, unknown>, string][] = [
      [bad, MSG.urlScheme],
      [{ ...bad, url: 'https://kurz.test/loop' }, MSG.urlSelf],
      [{ ...bad, url: 'https://example.com/fine' }, MSG.expiresAt],
      [{ ...bad, url: 'https://example.com/fine', expires_at: null }, MSG.maxClicks],
      [
        {
          ...bad,
          url: 'https://example.com/fine',
          expires_at: '2030-01-01T00:00:00Z',
          max_clicks: 5,
        },
        MSG.password,
      ],
      [{ url: 'https://example.com/fine', password: 'good one', max_clicks: 0 }, MSG.maxClicks],
    ];
    for (const [body, message] of expected) {
      expect(answer(await change('order', body))).toEqual({
        status: 400,
        body: { error: message },
      });
    }
    expect((await detail('order')).json).toEqual(detailOf(link));
    expect((await app.get('/order')).headers.get('location')).toBe('https://example.com/first');
  });

  test('a code with no link is 404, after the body is found to be an object', async () => {
    const { change } = await setup(mode);
    expect(answer(await change('nosuchcode', { url: 'https://example.com/' }))).toEqual({
      status: 404,
      body: MSG.notFound,
    });
    expect(answer(await change('has.dot', {}))).toEqual({ status: 404, body: MSG.notFound });
  });
});

describe.each(MODES)('DELETE /api/links/{code} (%s mode)', (mode) => {
  /** Rows of the link in each table that keeps clicks of it: the log, records, day rollups. */
  async function clickRows(app: TestApp, linkId: number) {
    const count = async (table: string) =>
      Number(
        (
          await app.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE link_id = ?`, [
            linkId,
          ])
        )[0]?.n,
      );
    return {
      clicks: await count('clicks'),
      click_records: await count('click_records'),
      click_days: await count('click_days'),
    };
  }

  /** The clicks a link's rows hold, in the log or moved into records, and whether it has day rollups. */
  async function clicksKept(app: TestApp, linkId: number) {
    const rows = await clickRows(app, linkId);
    return { clicks: rows.clicks + rows.click_records, days: rows.click_days > 0 };
  }

  test('204 with no body; the code answers 404 at once, even when the redirect had it cached', async () => {
    const { app, client, remove, detail } = await setup(mode);
    await client.link('https://example.com/doomed', { custom_code: 'doomed' });
    expect((await app.get('/doomed')).status).toBe(307);
    const reply = await remove('doomed');
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(answer(await app.get('/doomed'))).toEqual({ status: 404, body: MSG.notFound });
    expect((await app.request('HEAD', '/doomed')).status).toBe(404);
    expect(answer(await detail('doomed'))).toEqual({ status: 404, body: MSG.notFound });
  });

  test('its click records and stats go with it, moved or still in the log; other links keep theirs', async () => {
    const { app, client, remove } = await setup(mode);
    const doomed = await client.link('https://example.com/doomed', { custom_code: 'doomed' });
    const kept = await client.link('https://example.com/kept', { custom_code: 'kept' });
    const followBoth = async (times: number) => {
      for (let i = 0; i < times; i++) {
        expect((await app.get('/doomed')).status).toBe(307);
        expect((await app.get('/kept')).status).toBe(307);
      }
    };
    // Three clicks each moved into records and day rollups, then two more in the log
    // (until the rollup that runs by itself moves them too: only the sum is certain).
    await followBoth(3);
    await app.store.rollUpClicks();
    await followBoth(2);
    const kept5 = { clicks: 5, days: true };
    for (const link of [doomed, kept]) expect(await clicksKept(app, link.id)).toEqual(kept5);

    expect((await remove('doomed')).status).toBe(204);
    expect(await clickRows(app, doomed.id)).toEqual({ clicks: 0, click_records: 0, click_days: 0 });
    expect(await clicksKept(app, kept.id)).toEqual(kept5);
    // The kept link's count: 3 clicks moved into the records, 2 in the log or moved since.
    expect(await client.clicksOf('kept')).toBe(5);
  });

  test('the list and X-Total-Count no longer include it; a second DELETE is 404', async () => {
    const { client, remove } = await setup(mode);
    const first = await client.link('https://example.com/1', { custom_code: 'one' });
    await client.link('https://example.com/2', { custom_code: 'two' });
    const third = await client.link('https://example.com/3', { custom_code: 'three' });
    expect((await remove('two')).status).toBe(204);
    const listed = await client.links();
    expect(listed.json).toEqual([third, first]);
    expect(listed.headers.get('x-total-count')).toBe('2');
    const page = await client.links('?limit=1');
    expect(page.json).toEqual([third]);
    expect(page.headers.get('x-total-count')).toBe('2');
    expect(page.headers.get('link')).toBe('</api/links?limit=1&offset=1>; rel="next"');
    expect(answer(await remove('two'))).toEqual({ status: 404, body: MSG.notFound });
    expect(answer(await remove('nosuchcode'))).toEqual({ status: 404, body: MSG.notFound });
  });

  test('the code can be taken again as a custom code, a new link from zero clicks', async () => {
    const { app, client, remove, detail } = await setup(mode);
    const old = await client.link('https://example.com/old', {
      custom_code: 'again',
      max_clicks: 2,
      password: 'pw',
    });
    expect((await app.get('/again')).status).toBe(200); // the password page
    expect((await remove('again')).status).toBe(204);
    const reply = await client.shorten({ url: 'https://example.com/new', custom_code: 'again' });
    expect(reply.status).toBe(201);
    expect(reply.json.id).not.toBe(old.id);
    expect(reply.json).toMatchObject({ short_code: 'again', clicks: 0 });
    expect((await detail('again')).json).toEqual(detailOf(reply.json));
    const followed = await app.get('/again');
    expect(followed.status).toBe(307);
    expect(followed.headers.get('location')).toBe('https://example.com/new');
  });
});

describe.each(MODES)('POST /api/shorten with settings (%s mode)', (mode) => {
  const FIELDS =
    mode === 'accounts'
      ? ['clicks', 'created_at', 'id', 'original_url', 'short_code', 'user_id']
      : ['clicks', 'created_at', 'id', 'original_url', 'short_code'];

  test('accepts expires_at, max_clicks and password; the 201 keeps exactly the interface fields', async () => {
    const { app, client, detail, token } = await setup(mode);
    const reply = await client.shorten({
      url: 'https://example.com/set',
      custom_code: 'set',
      source: 'flyer',
      expires_at: '2030-12-31T23:59:59Z',
      max_clicks: 100,
      password: 'open sesame',
    });
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.json).sort()).toEqual(FIELDS);
    expect(reply.json).toMatchObject({
      original_url: 'https://example.com/set',
      short_code: 'set',
      clicks: 0,
    });
    expect((await detail('set')).json).toEqual(
      detailOf(reply.json, {
        source: 'flyer',
        expires_at: '2030-12-31T23:59:59.000Z',
        max_clicks: 100,
        password_protected: true,
      }),
    );
    // The list keeps the interface fields too (to whom may see the target: the owner, or
    // in open mode the admin token; anyone else sees the link's own short URL there).
    expect((await app.get('/api/links', { token })).json).toEqual([reply.json]);
    if (mode === 'open') {
      expect((await client.links()).json).toEqual([
        { ...reply.json, original_url: `${BASE_URL}/set` },
      ]);
    }
  });

  test('null settings mean none', async () => {
    const { client, detail } = await setup(mode);
    const link = await client.link('https://example.com/', {
      custom_code: 'nulls',
      expires_at: null,
      max_clicks: null,
      password: null,
    });
    expect(Object.keys(link).sort()).toEqual(FIELDS);
    expect((await detail('nulls')).json).toEqual(detailOf(link));
  });

  test.each(badSettingRows)(
    '%s: %s is 400 and creates nothing',
    async (field, _, value, message) => {
      const { client } = await setup(mode);
      const reply = await client.shorten({ url: 'https://example.com/', [field]: value });
      expect(answer(reply)).toEqual({ status: 400, body: { error: message } });
      expect((await client.links()).json).toEqual([]);
    },
  );

  test('settings are checked after url, custom_code and source, in the order expires_at, max_clicks, password', async () => {
    const { client } = await setup(mode);
    const bad = {
      url: 'ftp://x',
      custom_code: 'no way',
      source: 's'.repeat(256),
      expires_at: 'soon',
      max_clicks: 0,
      password: '',
    };
    const fine = { url: 'https://example.com/', custom_code: 'fine', source: 'ok' };
    const expected: [Record<string, unknown>, string][] = [
      [bad, MSG.urlScheme],
      [{ ...bad, url: fine.url }, MSG.code],
      [{ ...bad, url: fine.url, custom_code: fine.custom_code }, MSG.source],
      [{ ...bad, ...fine }, MSG.expiresAt],
      [{ ...bad, ...fine, expires_at: '2030-01-01T00:00:00Z' }, MSG.maxClicks],
      [{ ...bad, ...fine, expires_at: null, max_clicks: 1 }, MSG.password],
    ];
    for (const [body, message] of expected) {
      expect(answer(await client.shorten(body))).toEqual({
        status: 400,
        body: { error: message },
      });
    }
    expect((await client.links()).json).toEqual([]);
  });
});
