import { describe, expect, test } from 'bun:test';
import { TestApp } from '../support/test-app.ts';

const PAGE_MSG = 'limit must be 1 to 1000 and offset 0 or more';

describe('GET /api/links in accounts mode', () => {
  test("lists only the caller's links, with exactly the Variant A fields", async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    const bob = await app.user();
    const a = await ann.link('https://example.com/ann');
    await bob.link('https://example.com/bob');
    const reply = await ann.links();
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual([a]);
    expect(reply.headers.get('x-total-count')).toBe('1');
    expect(reply.headers.get('content-type')).toStartWith('application/json');
  });

  test('a user with no links gets an empty array', async () => {
    const app = await TestApp.init('accounts');
    const reply = await (await app.user()).links();
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual([]);
    expect(reply.headers.get('x-total-count')).toBe('0');
  });

  test('needs a valid token', async () => {
    const app = await TestApp.init('accounts');
    const reply = await app.anonymous().links();
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error: 'Unauthorized' });
  });

  test('links made in open mode on the same database belong to no one', async () => {
    const open = await TestApp.init('open');
    await open.anonymous().link('https://example.com/open');
    const accounts = await TestApp.init('accounts', { store: open.store });
    const ann = await accounts.user();
    expect((await ann.links()).json).toEqual([]);
    // … and open mode, on the same database, lists every link, whoever made it.
    await ann.link('https://example.com/ann');
    const all = (await open.anonymous().links()).json;
    expect(all.map((l: { original_url: string }) => l.original_url)).toEqual([
      'https://example.com/ann',
      'https://example.com/open',
    ]);
    expect(Object.keys(all[0])).not.toContain('user_id');
  });
});

describe.each(['accounts', 'open'] as const)('GET /api/links (%s mode)', (mode) => {
  async function withLinks(n: number) {
    const app = await TestApp.init(mode);
    const client = mode === 'accounts' ? await app.user() : app.anonymous();
    const made = [];
    for (let i = 0; i < n; i++) made.push(await client.link(`https://example.com/${i}`));
    return { app, client, newestFirst: made.reverse() };
  }

  test('returns the whole list, newest first, with the create fields', async () => {
    const { client, newestFirst } = await withLinks(5);
    const reply = await client.links();
    expect(reply.json).toEqual(newestFirst);
    expect(reply.headers.get('x-total-count')).toBe('5');
    expect(reply.headers.get('link')).toBeNull();
  });

  test('ties on created_at are broken by id, newest first', async () => {
    const { app, client } = await withLinks(3);
    await app.query('UPDATE links SET created_at = 1700000000000');
    const ids = (await client.links()).json.map((l: { id: number }) => l.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect((await client.links()).json[0].created_at).toBe('2023-11-14T22:13:20.000Z');
  });

  test('limit and offset page the list, with X-Total-Count and a next Link', async () => {
    const { client, newestFirst } = await withLinks(5);
    const first = await client.links('?limit=2');
    expect(first.json).toEqual(newestFirst.slice(0, 2));
    expect(first.headers.get('x-total-count')).toBe('5');
    expect(first.headers.get('link')).toBe('</api/links?limit=2&offset=2>; rel="next"');
    const second = await client.links('?limit=2&offset=2');
    expect(second.json).toEqual(newestFirst.slice(2, 4));
    expect(second.headers.get('link')).toBe('</api/links?limit=2&offset=4>; rel="next"');
    const last = await client.links('?offset=4&limit=2');
    expect(last.json).toEqual(newestFirst.slice(4));
    expect(last.headers.get('link')).toBeNull();
    expect(last.headers.get('x-total-count')).toBe('5');
    const exact = await client.links('?limit=5');
    expect(exact.json).toHaveLength(5);
    expect(exact.headers.get('link')).toBeNull();
  });

  test('offset alone starts there with no limit; past the end is an empty page', async () => {
    const { client, newestFirst } = await withLinks(4);
    const reply = await client.links('?offset=1');
    expect(reply.json).toEqual(newestFirst.slice(1));
    expect(reply.headers.get('link')).toBeNull();
    const beyond = await client.links('?offset=10&limit=3');
    expect(beyond.json).toEqual([]);
    expect(beyond.headers.get('x-total-count')).toBe('4');
  });

  test('limit 1 and 1000 are the bounds', async () => {
    const { client } = await withLinks(2);
    expect((await client.links('?limit=1')).json).toHaveLength(1);
    expect((await client.links('?limit=1000')).json).toHaveLength(2);
    expect((await client.links('?limit=1&offset=0')).status).toBe(200);
  });

  test.each([
    '?limit=0',
    '?limit=1001',
    '?limit=-1',
    '?limit=abc',
    '?limit=1.5',
    '?limit=',
    '?limit=+5',
    '?limit=1e2',
    '?offset=-1',
    '?offset=x',
    '?offset=',
    '?offset=99999999999999999999',
    '?limit=2&limit=3',
  ])('%s is 400 with the paging message', async (query) => {
    const { client } = await withLinks(1);
    const reply = await client.links(query);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: PAGE_MSG });
  });

  test('unknown query parameters are ignored', async () => {
    const { client } = await withLinks(2);
    const reply = await client.links('?page=3&filter=x&sort_by=code');
    expect(reply.status).toBe(200);
    expect(reply.json).toHaveLength(2);
  });
});
