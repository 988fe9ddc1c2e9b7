import { describe, expect, test } from 'bun:test';
import { TEST_STORE, TestApp } from '../support/test-app.ts';

async function setup(mode: 'accounts' | 'open') {
  const app = await TestApp.init(mode);
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  return { app, client };
}

describe.each(['accounts', 'open'] as const)('GET /{code} (%s mode)', (mode) => {
  test('answers 307 to the original URL, no-store, empty body, and counts the click', async () => {
    const { app, client } = await setup(mode);
    const link = await client.link('https://example.com/target?x=1', { custom_code: 'go' });
    const reply = await app.get('/go');
    expect(reply.status).toBe(307);
    expect(reply.headers.get('location')).toBe('https://example.com/target?x=1');
    expect(reply.headers.get('cache-control')).toBe('private, no-store');
    expect(reply.text).toBe('');
    expect(await client.clicksOf('go')).toBe(1);
    expect(await app.clickRecords(link.id)).toHaveLength(1);
  });

  test('needs no token, and ignores one', async () => {
    const { app, client } = await setup(mode);
    await client.link('https://example.com/', { custom_code: 'free' });
    expect((await app.get('/free', { headers: { authorization: 'Bearer junk' } })).status).toBe(
      307,
    );
  });

  test('codes are case-sensitive', async () => {
    const { app, client } = await setup(mode);
    await client.link('https://example.com/lower', { custom_code: 'abc' });
    await client.link('https://example.com/upper', { custom_code: 'ABC' });
    expect((await app.get('/abc')).headers.get('location')).toBe('https://example.com/lower');
    expect((await app.get('/ABC')).headers.get('location')).toBe('https://example.com/upper');
    expect((await app.get('/Abc')).status).toBe(404);
  });

  test('Location carries the URL byte for byte, non-ASCII percent-encoded as UTF-8', async () => {
    const { app, client } = await setup(mode);
    const cases: [string, string][] = [
      [
        'http://EXAMPLE.com:8080/Path/../x?q=%20a&b=%zz#Frag',
        'http://EXAMPLE.com:8080/Path/../x?q=%20a&b=%zz#Frag',
      ],
      [
        'https://müller.example/straße?x=😀',
        'https://m%C3%BCller.example/stra%C3%9Fe?x=%F0%9F%98%80',
      ],
      ['https://example.com/a\'b"c<d>e{f}|g\\h^i`j', 'https://example.com/a\'b"c<d>e{f}|g\\h^i`j'],
    ];
    let n = 0;
    for (const [url, location] of cases) {
      await client.link(url, { custom_code: `u${n}` });
      const reply = await app.get(`/u${n++}`);
      expect(reply.status).toBe(307);
      expect(reply.headers.get('location')).toBe(location);
    }
  });

  test('HEAD answers the same 307 and counts nothing', async () => {
    const { app, client } = await setup(mode);
    const link = await client.link('https://example.com/head', { custom_code: 'hd' });
    const reply = await app.request('HEAD', '/hd');
    expect(reply.status).toBe(307);
    expect(reply.headers.get('location')).toBe('https://example.com/head');
    expect(reply.headers.get('cache-control')).toBe('private, no-store');
    expect(reply.text).toBe('');
    expect(await client.clicksOf('hd')).toBe(0);
    expect(await app.clickRecords(link.id)).toHaveLength(0);
  });

  test.each([
    '/nope',
    '/has.dot',
    '/a/b',
    `/${'a'.repeat(33)}`,
    '/%F0%9F%98%80',
    '/api',
    '/assets',
    '/go/',
  ])('%s is 404 "Not found"', async (path) => {
    const { app, client } = await setup(mode);
    await client.link('https://example.com/', { custom_code: 'go' });
    const reply = await app.get(path);
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
  });

  test('a code unknown at first works as soon as it is created', async () => {
    const { app, client } = await setup(mode);
    expect((await app.get('/later')).status).toBe(404);
    await client.link('https://example.com/later', { custom_code: 'later' });
    expect((await app.get('/later')).status).toBe(307);
  });

  test('200 concurrent redirects of one link count exactly 200', async () => {
    const { app, client } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'many' });
    const replies = await Promise.all(Array.from({ length: 200 }, () => app.get('/many')));
    expect(replies.every((r) => r.status === 307)).toBe(true);
    expect(await client.clicksOf('many')).toBe(200);
    expect(await app.clickRecords(link.id)).toHaveLength(200);
  });

  test('the click record keeps the creation source, the Referer without query or fragment (255) and the User-Agent (256)', async () => {
    const { app, client } = await setup(mode);
    const link = await client.link('https://example.com/', {
      custom_code: 'src',
      source: 'newsletter',
    });
    const before = Date.now();
    await app.get('/src', {
      headers: {
        referer: 'https://ref.example/page?q=secret+search&session=abc#top',
        'user-agent': 'u'.repeat(600),
      },
    });
    await app.get('/src', { headers: { 'user-agent': '' } });
    await app.get('/src', { headers: { referer: `https://ref.example/${'p'.repeat(400)}#x?y` } });
    await app.get('/src', { headers: { referer: 'https://ref.example/a#frag?not-a-query' } });
    const [first, second, third, fourth] = await app.clickRecords(link.id);
    expect(first).toMatchObject({
      link_id: link.id,
      source: 'newsletter',
      referrer: 'https://ref.example/page',
      user_agent: 'u'.repeat(256),
    });
    expect(third?.referrer).toBe(`https://ref.example/${'p'.repeat(400)}`.slice(0, 255));
    expect(fourth?.referrer).toBe('https://ref.example/a');
    expect(first?.created_at).toBeGreaterThanOrEqual(before);
    expect(first?.created_at).toBeLessThanOrEqual(Date.now());
    expect(second).toMatchObject({ source: 'newsletter', referrer: null });
  });

  test('a link without a creation source gives click records with a null source', async () => {
    const { app, client } = await setup(mode);
    const link = await client.link('https://example.com/', { custom_code: 'nosrc' });
    await app.get('/nosrc');
    expect((await app.clickRecords(link.id))[0]).toMatchObject({
      source: null,
      query_source: null,
    });
  });

  test('no IP address is stored', async () => {
    const { app } = await setup(mode);
    // Only the country the address was in is kept, in the log and in the records.
    // (PostgreSQL's log also says which shard of pending_values a click was counted in.)
    expect(await app.columns('clicks')).toEqual(
      [
        'country',
        'created_at',
        'id',
        'link_id',
        'query_source',
        'referrer',
        'route',
        'source',
        'user_agent',
        ...(TEST_STORE === 'postgres' ? ['shard'] : []),
      ].sort(),
    );
    expect(await app.columns('click_records')).toEqual(
      [
        'agent',
        'country',
        'created_at',
        'id',
        'link_id',
        'query_source',
        'referrer',
        'route',
        'source',
      ].sort(),
    );
  });
});

describe('?source= on redirect', () => {
  test('accounts mode keeps it in query_source, cut to 255 characters', async () => {
    const { app, client } = await setup('accounts');
    const link = await client.link('https://example.com/', { custom_code: 'qs', source: 'made' });
    await app.get('/qs?source=qr');
    await app.get(`/qs?source=${'s'.repeat(300)}`);
    await app.get('/qs?source=caf%C3%A9%20bar');
    await app.get('/qs?other=1');
    const records = await app.clickRecords(link.id);
    expect(records.map((r) => r.query_source)).toEqual(['qr', 's'.repeat(255), 'café bar', null]);
    expect(records.every((r) => r.source === 'made')).toBe(true);
  });

  test('NUL and broken UTF-16 in it are kept as U+FFFD, the same on every store, and the click counts', async () => {
    const { app, client } = await setup('accounts');
    const link = await client.link('https://example.com/', {
      custom_code: 'nul',
      source: 'a\u0000b\uD800',
    });
    expect((await app.get('/nul?source=x%00y')).status).toBe(307);
    expect(await client.clicksOf('nul')).toBe(1);
    expect((await app.clickRecords(link.id))[0]).toMatchObject({
      source: 'a\uFFFDb\uFFFD',
      query_source: 'x\uFFFDy',
    });
  });

  test('open mode ignores it', async () => {
    const { app, client } = await setup('open');
    const link = await client.link('https://example.com/', { custom_code: 'qs' });
    const reply = await app.get('/qs?source=qr');
    expect(reply.status).toBe(307);
    expect(reply.headers.get('location')).toBe('https://example.com/');
    expect((await app.clickRecords(link.id))[0]?.query_source).toBeNull();
  });
});
