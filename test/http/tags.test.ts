// Tags of links: GET /api/tags (each tag with its links and their clicks) and
// GET /api/tags/{tag}/stats (a link's stats, summed over the links carrying the tag),
// the caller's links only in accounts mode, every link in open mode; the same answers
// whether the clicks are still in the log or rolled up, and after a link's tags change.

import { describe, expect, test } from 'bun:test';
import type { Mode } from '../../src/config/config.ts';
import { UA } from '../support/clicks.ts';
import { ADMIN_TOKEN, Client, PEER_HEADER, type Reply, TestApp } from '../support/test-app.ts';

const MODES = ['accounts', 'open'] as const;

const NOT_FOUND = { error: 'Not found' };
const TAG_RULE = { error: 'tag must be 1 to 32 letters, digits, hyphens or underscores' };
const RANGE_RULE = {
  error: 'from and to must be dates (YYYY-MM-DD), from not after to, at most 366 days apart',
};

async function setup(mode: Mode) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  return { app, client, ...helpers(app, client) };
}

function helpers(app: TestApp, client: Client) {
  const token = client.token;
  // Changes to links: the owner's in accounts mode, the operator's in open mode.
  const manager = app.mode === 'accounts' ? token : ADMIN_TOKEN;
  return {
    tags: () => app.get('/api/tags', { token }),
    tagStats: (tag: string, query = '') => app.get(`/api/tags/${tag}/stats${query}`, { token }),
    linkStats: (code: string) => app.get(`/api/links/${code}/stats`, { token }),
    /** A link of `client` carrying `tags`. */
    tagged: (code: string, tags: string[], extra: Record<string, unknown> = {}) =>
      client.link(`https://example.com/${code}`, { custom_code: code, tags, ...extra }),
    retag: (code: string, tags: string[] | null) =>
      app.request('PATCH', `/api/links/${code}`, { json: { tags }, token: manager }),
    remove: (code: string) => app.request('DELETE', `/api/links/${code}`, { token: manager }),
  };
}

/** A redirect followed by a browser at a US address; `bot` sends a crawler's User-Agent. */
async function visit(app: TestApp, code: string, n = 1, bot = false): Promise<void> {
  for (let i = 0; i < n; i++) {
    const reply = await app.get(`/${code}`, {
      headers: {
        [PEER_HEADER]: '8.8.8.8',
        'user-agent': bot ? UA.googlebot : UA.chrome,
        referer: `https://r${i % 2}.example/page`,
      },
    });
    expect(reply.status).toBe(307);
  }
}

/** A stats answer without what it is of: the traffic fields a link's and a tag's share. */
function traffic(reply: Reply) {
  expect(reply.status).toBe(200);
  const { short_code: _code, domain: _domain, tag: _tag, links: _links, ...rest } = reply.json;
  return rest;
}

describe.each(MODES)('GET /api/tags (%s mode)', (mode) => {
  test('each tag once, in code-unit order, with its links and their clicks, rolled up or not', async () => {
    const { app, tags, tagged } = await setup(mode);
    await tagged('a', ['promo', 'z-last']);
    await tagged('b', ['promo', 'a_b', 'a-b', 'a0']);
    await tagged('untagged', []);
    await visit(app, 'a', 3);
    await visit(app, 'b', 2);
    await visit(app, 'untagged', 4);
    const expected = [
      { tag: 'a-b', links: 1, clicks: 2 },
      { tag: 'a0', links: 1, clicks: 2 },
      { tag: 'a_b', links: 1, clicks: 2 },
      { tag: 'promo', links: 2, clicks: 5 },
      { tag: 'z-last', links: 1, clicks: 3 },
    ];
    expect((await tags()).json).toEqual(expected);
    await app.store.rollUpClicks();
    const reply = await tags();
    expect([reply.status, reply.json]).toEqual([200, expected]);
  });

  test('no tags: an empty list', async () => {
    const { client, tags } = await setup(mode);
    await client.link();
    expect([(await tags()).status, (await tags()).json]).toEqual([200, []]);
  });
});

describe.each(MODES)('GET /api/tags/{tag}/stats (%s mode)', (mode) => {
  test('a tag of one link has the link’s stats, before and after the rollup', async () => {
    const { app, tagStats, linkStats, tagged } = await setup(mode);
    await tagged('only', ['solo'], { source: 'newsletter' });
    await visit(app, 'only', 3);
    await visit(app, 'only', 1, true);
    const before = await tagStats('solo');
    expect(before.json.tag).toBe('solo');
    expect(before.json.links).toBe(1);
    expect(traffic(before)).toEqual(traffic(await linkStats('only')));
    expect(before.json.range).toEqual({ clicks: 4, humans: 3, bots: 1 });
    expect(before.json.top.sources).toEqual([{ value: 'newsletter', clicks: 4 }]);
    await app.store.rollUpClicks();
    expect(await tagStats('solo')).toMatchObject({ status: 200, json: before.json });
  });

  test('sums the traffic of every link carrying the tag, and of no other', async () => {
    const { app, tagStats, tagged } = await setup(mode);
    await tagged('a', ['promo']);
    await tagged('b', ['promo', 'other']);
    await tagged('c', ['other']);
    await visit(app, 'a', 3);
    await visit(app, 'b', 2, true);
    await visit(app, 'c', 5);
    // Part of it rolled up, part of it still in the log.
    await app.store.rollUpClicks();
    await visit(app, 'a', 1);
    const reply = await tagStats('promo');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      tag: 'promo',
      links: 2,
      clicks: 6,
      range: { clicks: 6, humans: 4, bots: 2 },
    });
    const today = reply.json.days.at(-1);
    expect(today).toEqual({ date: reply.json.to, clicks: 6, humans: 4, bots: 2 });
    expect(reply.json.days).toHaveLength(30);
    expect(reply.json.top.referrers).toEqual([
      { value: 'r0.example', clicks: 4 },
      { value: 'r1.example', clicks: 2 },
    ]);
    expect(reply.json.top.countries).toEqual([{ value: 'US', clicks: 6 }]);
    await app.store.rollUpClicks();
    expect((await tagStats('promo')).json).toEqual(reply.json);
    expect((await tagStats('other')).json).toMatchObject({ links: 2, clicks: 7 });
  });

  test('tags are compared case-insensitively and shown lower-cased', async () => {
    const { app, tagStats, tagged } = await setup(mode);
    await tagged('a', ['promo']);
    await visit(app, 'a', 2);
    const reply = await tagStats('PrOmO');
    expect(reply.json).toMatchObject({ tag: 'promo', links: 1, clicks: 2 });
  });

  test('a link’s clicks count for the tags it carries now', async () => {
    const { app, tagStats, tagged } = await setup(mode);
    const a = await tagged('a', ['before']);
    await tagged('b', ['before']);
    await visit(app, 'a', 3);
    await app.store.rollUpClicks();
    await app.store.updateLink(a.id, { tags: ['after'] });
    expect((await tagStats('after')).json).toMatchObject({ links: 1, clicks: 3 });
    expect((await tagStats('before')).json).toMatchObject({ links: 1, clicks: 0 });
    expect((await tagStats('before')).json.range.clicks).toBe(0);
  });

  test('the range: from and to as for a link; a range without clicks is zeros', async () => {
    const { app, tagStats, tagged } = await setup(mode);
    await tagged('a', ['promo']);
    await visit(app, 'a', 2);
    const reply = await tagStats('promo', '?from=2020-01-01&to=2020-01-03');
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ from: '2020-01-01', to: '2020-01-03', clicks: 2 });
    expect(reply.json.range).toEqual({ clicks: 0, humans: 0, bots: 0 });
    expect(reply.json.days.map((day: { clicks: number }) => day.clicks)).toEqual([0, 0, 0]);
    expect(await tagStats('promo', '?from=2020-01-03&to=2020-01-01')).toMatchObject({
      status: 400,
      json: RANGE_RULE,
    });
    expect(await tagStats('promo', '?from=yesterday')).toMatchObject({
      status: 400,
      json: RANGE_RULE,
    });
  });

  test('a tag no link carries is 404; a tag that breaks the rule is 400', async () => {
    const { tagStats, tagged } = await setup(mode);
    await tagged('a', ['promo']);
    expect(await tagStats('nothing')).toMatchObject({ status: 404, json: NOT_FOUND });
    expect(await tagStats('a'.repeat(33))).toMatchObject({ status: 400, json: TAG_RULE });
    expect(await tagStats('not.a.tag')).toMatchObject({ status: 400, json: TAG_RULE });
    expect(await tagStats('caf%C3%A9')).toMatchObject({ status: 400, json: TAG_RULE });
  });
});

describe('tags in accounts mode', () => {
  test('each user sees the tags of their own links only', async () => {
    const app = await TestApp.init('accounts');
    const [ann, bob] = [await app.user(), await app.user()];
    const a = helpers(app, ann);
    const b = helpers(app, bob);
    await a.tagged('ann1', ['promo', 'ann-only']);
    await b.tagged('bob1', ['promo']);
    await b.tagged('bob2', ['promo']);
    await visit(app, 'ann1', 2);
    await visit(app, 'bob1', 3);
    await visit(app, 'bob2', 4);
    await app.store.rollUpClicks();

    expect((await a.tags()).json).toEqual([
      { tag: 'ann-only', links: 1, clicks: 2 },
      { tag: 'promo', links: 1, clicks: 2 },
    ]);
    expect((await b.tags()).json).toEqual([{ tag: 'promo', links: 2, clicks: 7 }]);
    expect((await a.tagStats('promo')).json).toMatchObject({
      links: 1,
      clicks: 2,
      range: { clicks: 2 },
    });
    expect((await b.tagStats('promo')).json).toMatchObject({
      links: 2,
      clicks: 7,
      range: { clicks: 7 },
    });
    // Another user's tag is no tag of theirs.
    expect(await b.tagStats('ann-only')).toMatchObject({ status: 404, json: NOT_FOUND });
  });

  test('both need a token or an API key; a read key is enough', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    const { tagged } = helpers(app, ann);
    await tagged('a', ['promo']);
    for (const path of ['/api/tags', '/api/tags/promo/stats']) {
      expect(await app.get(path)).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
      expect(await app.get(path, { token: 'not-a-token' })).toMatchObject({ status: 401 });
    }
    // Refused before the tag is looked at.
    expect(await app.get('/api/tags/not.a.tag/stats')).toMatchObject({ status: 401 });
    const key = await app.post(
      '/api/keys',
      { name: 'reader', scope: 'read' },
      { token: ann.token },
    );
    expect(key.status).toBe(201);
    const reader = helpers(app, new Client(app, key.json.key, ann.user));
    expect((await reader.tags()).json).toEqual([{ tag: 'promo', links: 1, clicks: 0 }]);
    expect((await reader.tagStats('promo')).status).toBe(200);
  });
});

describe('tags in open mode', () => {
  test('every link’s tags, whoever made it, without a token', async () => {
    const app = await TestApp.init('open');
    const { tagged } = helpers(app, app.anonymous());
    await tagged('a', ['promo']);
    await tagged('b', ['promo']);
    await visit(app, 'a', 1);
    await visit(app, 'b', 2);
    expect((await app.get('/api/tags')).json).toEqual([{ tag: 'promo', links: 2, clicks: 3 }]);
    expect((await app.get('/api/tags/promo/stats')).json).toMatchObject({ links: 2, clicks: 3 });
  });
});
