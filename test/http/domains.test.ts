// /api/domains in both modes: the list anyone who may list links sees (counts of links
// for the admin token only), and adding, changing and removing domains with the admin
// token: its refusals, the rules of a base URL and of a domain's redirects, a domain in
// use, and a removal that takes the domain's links and their clicks with it.

import { describe, expect, test } from 'bun:test';
import type { Mode } from '../../src/config/config.ts';
import { eventually } from '../support/binary.ts';
import { click } from '../support/clicks.ts';
import {
  ADMIN_TOKEN,
  type AppOptions,
  BASE_URL,
  type Reply,
  TestApp,
} from '../support/test-app.ts';
import { Receiver } from '../support/webhook-receiver.ts';

const MODES = ['accounts', 'open'] as const;

const MSG = {
  rule: 'Domain must be a base URL such as https://go.example.com: http or https, a host, an optional port, nothing after',
  taken: 'Domain already exists',
  isDefault: 'This is the default domain, set by --base-url',
  inUse: 'Domain still has links: move or delete them first, or remove it with_links',
  adminMissing: 'Domain management needs an admin token (--admin-token)',
  redirectRule: 'root_redirect and not_found_redirect must be http(s) URLs or null',
  withLinksRule: 'with_links must be true or false',
  body: 'Request body must be a JSON object',
  unauthorized: 'Unauthorized',
  notFound: 'Not found',
};

const DEFAULT = {
  domain: 'kurz.test',
  base_url: BASE_URL,
  default: true,
  root_redirect: null,
  not_found_redirect: null,
};

/** A domain's JSON as the admin token sees it, with `links` 0 unless given. */
function domainJson(baseUrl: string, more: Record<string, unknown> = {}) {
  return {
    domain: new URL(baseUrl).host,
    base_url: baseUrl,
    default: false,
    root_redirect: null,
    not_found_redirect: null,
    links: 0,
    ...more,
  };
}

/** Status and body, for one comparison. */
const answer = (reply: Reply) => ({ status: reply.status, body: reply.json });

/**
 * An app in `mode` with an admin token (unless the options say otherwise), a client that
 * may list links (a user in accounts mode, anyone in open mode), and the routes as the
 * admin token calls them (another token given in their place).
 */
async function setup(mode: Mode, options: AppOptions = {}) {
  const app = await TestApp.init(mode, { adminToken: ADMIN_TOKEN, ...options });
  const client = mode === 'accounts' ? await app.user() : app.anonymous();
  // `null`: no Authorization at all (a default parameter would replace undefined).
  type As = { as?: string | null };
  const token = (as: string | null | undefined) =>
    as === undefined ? ADMIN_TOKEN : (as ?? undefined);
  return {
    app,
    client,
    list: (as: string | null = client.token ?? null) =>
      app.get('/api/domains', { token: as ?? undefined }),
    add: (json: unknown, { as }: As = {}) => app.post('/api/domains', json, { token: token(as) }),
    change: (name: string, json: unknown, { as }: As = {}) =>
      app.request('PATCH', `/api/domains/${name}`, { json, token: token(as) }),
    remove: (name: string, query = '', { as }: As = {}) =>
      app.request('DELETE', `/api/domains/${name}${query}`, { token: token(as) }),
    /** Links made on a domain (its host), with codes of their own. */
    linksOn: (host: string, codes: string[]) =>
      Promise.all(
        codes.map((code) =>
          client.link(`https://example.com/${code}`, { custom_code: code, domain: host }),
        ),
      ),
  };
}

/** A redirect as a visitor on `host` asks for it. */
function visit(app: TestApp, code: string, host: string) {
  return app.request('GET', `/${code}`, { headers: { host } });
}

/** The id of an added domain, as the store has it. */
async function idOf(app: TestApp, host: string): Promise<number> {
  const domain = (await app.store.listDomains()).find((d) => d.host === host);
  if (domain === undefined) throw new Error(`no domain ${host}`);
  return domain.id;
}

describe.each(MODES)('%s mode: listing domains', (mode) => {
  test('at first, the default domain alone: --base-url’s', async () => {
    const { list } = await setup(mode);
    expect(answer(await list())).toEqual({ status: 200, body: [DEFAULT] });
  });

  test('the default domain first, then the others as added; only the admin token sees counts of links', async () => {
    const { client, list, add, linksOn } = await setup(mode);
    expect((await add({ base_url: 'https://go.example.com' })).status).toBe(201);
    expect((await add({ base_url: 'http://a.example:8080' })).status).toBe(201);
    await client.link('https://example.com/default');
    await linksOn('go.example.com', ['g1', 'g2']);
    const { links: _, ...go } = domainJson('https://go.example.com');
    const { links: __, ...a } = domainJson('http://a.example:8080');
    expect(answer(await list())).toEqual({ status: 200, body: [DEFAULT, go, a] });
    expect(answer(await list(ADMIN_TOKEN))).toEqual({
      status: 200,
      body: [
        { ...DEFAULT, links: 1 },
        { ...go, links: 2 },
        { ...a, links: 0 },
      ],
    });
  });

  test('needs no admin token configured', async () => {
    const { list } = await setup(mode, { adminToken: undefined });
    expect(answer(await list())).toEqual({ status: 200, body: [DEFAULT] });
  });

  if (mode === 'accounts') {
    test('as the links list: 401 without a valid token; an API key, even a read one, lists them', async () => {
      const { app, client, list } = await setup(mode);
      for (const token of [null, 'nope', `${ADMIN_TOKEN}x`]) {
        const reply = await list(token);
        expect(answer(reply)).toEqual({ status: 401, body: { error: MSG.unauthorized } });
        expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      }
      const key = await app.post(
        '/api/keys',
        { name: 'r', scope: 'read' },
        { token: client.token },
      );
      expect(key.status).toBe(201);
      expect(answer(await list(key.json.key))).toEqual({ status: 200, body: [DEFAULT] });
    });
  } else {
    test('open to all, as the links list; a token that is not the admin token is ignored', async () => {
      const { list } = await setup(mode);
      for (const token of [null, 'nope']) {
        expect(answer(await list(token))).toEqual({ status: 200, body: [DEFAULT] });
      }
    });
  }
});

describe.each(MODES)('%s mode: adding a domain', (mode) => {
  test('201 with the domain in its canonical form, listed at once', async () => {
    const { add, list } = await setup(mode);
    const reply = await add({
      base_url: 'HTTPS://Go.Example.COM.:443/',
      root_redirect: 'https://example.com/home',
      not_found_redirect: null,
    });
    const go = domainJson('https://go.example.com', { root_redirect: 'https://example.com/home' });
    expect(answer(reply)).toEqual({ status: 201, body: go });
    expect((await list(ADMIN_TOKEN)).json).toEqual([{ ...DEFAULT, links: 0 }, go]);
  });

  test.each([
    ['not an object', [], MSG.body],
    ['no base_url', {}, MSG.rule],
    ['a base_url not a string', { base_url: 7 }, MSG.rule],
    ['a host alone', { base_url: 'go.example.com' }, MSG.rule],
    ['a path', { base_url: 'https://go.example.com/s' }, MSG.rule],
    ['a query', { base_url: 'https://go.example.com?x=1' }, MSG.rule],
    ['a user name', { base_url: 'https://ann@go.example.com' }, MSG.rule],
    ['another scheme', { base_url: 'ftp://go.example.com' }, MSG.rule],
    ['https on port 80', { base_url: 'https://go.example.com:80' }, MSG.rule],
    [
      'a bad base_url before a bad redirect',
      { base_url: 'x', root_redirect: 'javascript:alert(1)' },
      MSG.rule,
    ],
    [
      'a root_redirect not a URL',
      { base_url: 'https://go.example.com', root_redirect: 'javascript:alert(1)' },
      MSG.redirectRule,
    ],
    [
      'a not_found_redirect not a string',
      { base_url: 'https://go.example.com', not_found_redirect: 3 },
      MSG.redirectRule,
    ],
  ])('refuses %s', async (_what, body, message) => {
    const { add, list } = await setup(mode);
    expect(answer(await add(body))).toEqual({ status: 400, body: { error: message } });
    expect((await list()).json).toEqual([DEFAULT]);
  });

  test('the default domain’s host is refused, however spelled or whatever the scheme', async () => {
    const { add, list } = await setup(mode);
    for (const base_url of ['https://kurz.test', 'http://KURZ.test.', 'https://kurz.test:443/']) {
      expect(answer(await add({ base_url }))).toEqual({
        status: 400,
        body: { error: MSG.isDefault },
      });
    }
    expect((await list()).json).toEqual([DEFAULT]);
  });

  test('a host added already is refused, whatever the scheme; another port is another domain', async () => {
    const { add, list } = await setup(mode);
    expect((await add({ base_url: 'https://go.example.com' })).status).toBe(201);
    for (const base_url of ['https://go.example.com', 'http://Go.Example.com.']) {
      expect(answer(await add({ base_url }))).toEqual({ status: 400, body: { error: MSG.taken } });
    }
    expect((await add({ base_url: 'https://go.example.com:8443' })).status).toBe(201);
    expect((await list()).json.map((d: { domain: string }) => d.domain)).toEqual([
      'kurz.test',
      'go.example.com',
      'go.example.com:8443',
    ]);
  });
});

describe.each(MODES)('%s mode: only the admin token manages domains', (mode) => {
  /** Each change, with a body that would otherwise pass or fail its checks. */
  const changes = (s: Awaited<ReturnType<typeof setup>>, as: string | null) => [
    s.add({ base_url: 'https://new.example.com' }, { as }),
    s.add({ base_url: 'not a url' }, { as }),
    s.change('go.example.com', { root_redirect: 'https://example.com/' }, { as }),
    s.change('go.example.com', { root_redirect: 'nope' }, { as }),
    s.remove('go.example.com', '', { as }),
    s.remove('go.example.com', '?with_links=perhaps', { as }),
  ];

  test('without the token, or with another, 401 before the request is looked at; nothing changes', async () => {
    const s = await setup(mode);
    expect((await s.add({ base_url: 'https://go.example.com' })).status).toBe(201);
    const before = (await s.list(ADMIN_TOKEN)).json;
    const apiKey =
      mode === 'accounts'
        ? (await s.app.post('/api/keys', { name: 'w', scope: 'write' }, { token: s.client.token }))
            .json.key
        : 'kurz_nope';
    const others: (string | null)[] = [
      null,
      'nope',
      `${ADMIN_TOKEN}x`,
      ADMIN_TOKEN.slice(1),
      apiKey,
    ];
    if (mode === 'accounts') others.push(s.client.token as string);
    for (const as of others) {
      for (const reply of await Promise.all(changes(s, as))) {
        expect(answer(reply)).toEqual({ status: 401, body: { error: MSG.unauthorized } });
        expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
    expect((await s.list(ADMIN_TOKEN)).json).toEqual(before);
  });

  test('a browser’s request from another site is refused, the admin token sent or not', async () => {
    const s = await setup(mode);
    const headers = { origin: 'https://evil.example' };
    for (const token of [ADMIN_TOKEN, undefined]) {
      const reply = await s.app.post(
        '/api/domains',
        { base_url: 'https://go.example' },
        { token, headers },
      );
      expect(answer(reply)).toEqual({
        status: 403,
        body: { error: 'Cross-origin request refused' },
      });
    }
    expect((await s.list()).json).toEqual([DEFAULT]);
  });

  test('with no admin token configured, 403 whatever is sent', async () => {
    const s = await setup(mode, { adminToken: undefined });
    for (const as of [null, ADMIN_TOKEN, s.client.token ?? null]) {
      for (const reply of await Promise.all(changes(s, as))) {
        expect(answer(reply)).toEqual({ status: 403, body: { error: MSG.adminMissing } });
      }
    }
    expect((await s.list()).json).toEqual([DEFAULT]);
  });
});

describe.each(MODES)('%s mode: changing a domain', (mode) => {
  test('a field given replaces its value, null clears it, one absent stays; served at once', async () => {
    const { app, add, change, list } = await setup(mode);
    await add({ base_url: 'https://go.example.com', root_redirect: 'https://example.com/r' });
    const root = () => app.request('GET', '/', { headers: { host: 'go.example.com' } });
    expect((await root()).headers.get('location')).toBe('https://example.com/r');
    const set = await change('go.example.com', { not_found_redirect: 'https://example.com/nf' });
    const both = {
      root_redirect: 'https://example.com/r',
      not_found_redirect: 'https://example.com/nf',
    };
    expect(answer(set)).toEqual({ status: 200, body: domainJson('https://go.example.com', both) });
    const cleared = await change('go.example.com', { root_redirect: null });
    expect(cleared.json).toEqual(
      domainJson('https://go.example.com', { not_found_redirect: 'https://example.com/nf' }),
    );
    expect((await change('go.example.com', {})).json).toEqual(cleared.json);
    // This instance's registry has each change before the answer: the redirect and the list.
    expect((await root()).headers.get('content-type')).toContain('text/html');
    expect((await visit(app, 'nope', 'go.example.com')).headers.get('location')).toBe(
      'https://example.com/nf',
    );
    expect((await list()).json[1]).toEqual({
      ...domainJson('https://go.example.com', { not_found_redirect: 'https://example.com/nf' }),
      links: undefined,
    });
  });

  test('named by its host in any spelling, or by its base URL, URL-encoded; it counts its links', async () => {
    const { add, change, linksOn } = await setup(mode);
    await add({ base_url: 'https://go.example.com:8443' });
    await linksOn('go.example.com:8443', ['c1']);
    for (const name of [
      'go.example.com:8443',
      'GO.example.com.:8443',
      encodeURIComponent('https://go.example.com:8443'),
      encodeURIComponent('https://go.example.com:8443/'),
    ]) {
      const reply = await change(name, { root_redirect: `https://example.com/${name.length}` });
      expect(answer(reply)).toEqual({
        status: 200,
        body: domainJson('https://go.example.com:8443', {
          root_redirect: `https://example.com/${name.length}`,
          links: 1,
        }),
      });
    }
  });

  test('the default domain is refused, an unknown one is 404, a bad redirect 400', async () => {
    const { add, change } = await setup(mode);
    await add({ base_url: 'https://go.example.com' });
    for (const name of ['kurz.test', encodeURIComponent(BASE_URL)]) {
      expect(answer(await change(name, { root_redirect: null }))).toEqual({
        status: 400,
        body: { error: MSG.isDefault },
      });
    }
    for (const name of ['other.example.com', 'go.example.com:8443', '%20']) {
      expect(answer(await change(name, {}))).toEqual({
        status: 404,
        body: { error: MSG.notFound },
      });
    }
    for (const body of [{ root_redirect: 'ftp://x' }, { not_found_redirect: '' }, []]) {
      expect((await change('go.example.com', body)).status).toBe(400);
    }
    expect(answer(await change('go.example.com', { not_found_redirect: 1 }))).toEqual({
      status: 400,
      body: { error: MSG.redirectRule },
    });
  });
});

describe.each(MODES)('%s mode: removing a domain', (mode) => {
  /** Rows a link still has in the tables of its clicks, by table. */
  async function clickRows(app: TestApp, linkId: number) {
    const count = async (table: string) =>
      Number(
        (
          await app.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE link_id = ?`, [
            linkId,
          ])
        )[0]?.n,
      );
    return { clicks: await count('clicks'), click_records: await count('click_records') };
  }

  test('an unused domain: 204, gone from the list at once; its host may be added again', async () => {
    const { add, remove, list } = await setup(mode);
    await add({ base_url: 'https://go.example.com' });
    const reply = await remove('go.example.com');
    expect([reply.status, reply.text]).toEqual([204, '']);
    expect((await list()).json).toEqual([DEFAULT]);
    expect(answer(await remove('go.example.com'))).toEqual({
      status: 404,
      body: { error: MSG.notFound },
    });
    expect((await add({ base_url: 'http://go.example.com' })).status).toBe(201);
  });

  test('a domain with links is refused, with_links=false too; nothing is removed', async () => {
    const { app, add, remove, list, linksOn } = await setup(mode);
    await add({ base_url: 'https://go.example.com' });
    await linksOn('go.example.com', ['kept']);
    for (const query of ['', '?with_links=false']) {
      expect(answer(await remove('go.example.com', query))).toEqual({
        status: 400,
        body: { error: MSG.inUse },
      });
    }
    expect((await list()).json).toHaveLength(2);
    expect((await visit(app, 'kept', 'go.example.com')).status).toBe(307);
  });

  test('with_links=true: its links go with it, and their clicks; other domains keep theirs', async () => {
    const { app, client, add, remove, list, linksOn } = await setup(mode);
    await add({ base_url: 'https://go.example.com' });
    await add({ base_url: 'https://keep.example.com' });
    const goId = await idOf(app, 'go.example.com');
    const keepId = await idOf(app, 'keep.example.com');
    const doomed = await linksOn('go.example.com', ['d1', 'd2']);
    const [kept] = await linksOn('keep.example.com', ['d1']);
    const onDefault = await client.link('https://example.com/default', { custom_code: 'd2' });
    // Followed on its domain’s name once (a click), so the redirect has it cached.
    expect((await visit(app, 'd1', 'go.example.com')).status).toBe(307);
    await app.store.recordClicks([...doomed, kept, onDefault].map((l) => click(l.id)));
    await app.store.rollUpClicks();
    await app.store.recordClicks([click(doomed[0]?.id as number)]);
    const before = await clickRows(app, doomed[0]?.id as number);
    expect(before.clicks + before.click_records).toBe(3);

    expect((await remove('go.example.com', '?with_links=true')).status).toBe(204);
    for (const link of doomed) {
      expect(await clickRows(app, link.id)).toEqual({ clicks: 0, click_records: 0 });
      expect(await app.store.findLinkByCode(link.short_code, goId)).toBeUndefined();
    }
    // The links of the default domain and of another domain, with the same codes, stay.
    expect(await app.store.findLinkByCode('d1', keepId)).toBeDefined();
    expect(await app.store.findLinkByCode('d2')).toBeDefined();
    expect((await clickRows(app, (kept as { id: number }).id)).click_records).toBe(1);
    expect(await client.clicksOf('d2')).toBe(1);
    expect(
      (await list(ADMIN_TOKEN)).json.map((d: { domain: string; links: number }) => [
        d.domain,
        d.links,
      ]),
    ).toEqual([
      ['kurz.test', 1],
      ['keep.example.com', 1],
    ]);
    // Asked on the removed domain's name (now the default domain's, as any name not
    // added), a code it had is no link: 404; d2 is the default domain's own link.
    expect((await visit(app, 'd1', 'go.example.com')).status).toBe(404);
    expect((await visit(app, 'd2', 'go.example.com')).headers.get('location')).toBe(
      'https://example.com/default',
    );
  });

  test('each link removed with it is told to webhooks at once (link.deleted)', async () => {
    const receiver = Receiver.start();
    // The outbox is looked at by itself only every minute: the removal must wake the sender.
    const { app, client, add, remove, linksOn } = await setup(mode, {
      webhooks: { pollMs: 60_000 },
    });
    const hook = await app.post(
      '/api/webhooks',
      { url: receiver.url, events: ['link.deleted'] },
      { token: mode === 'accounts' ? client.token : ADMIN_TOKEN },
    );
    expect(hook.status).toBe(201);
    await add({ base_url: 'https://go.example.com' });
    await linksOn('go.example.com', ['w1', 'w2']);
    expect((await remove('go.example.com', '?with_links=true')).status).toBe(204);
    await eventually(
      () => receiver.messages().length === 2,
      () => `two link.deleted messages, got ${receiver.messages().length}`,
      5_000,
    );
    expect(
      receiver
        .messages()
        .map((m) => [m.type, m.data.short_code])
        .sort(),
    ).toEqual([
      ['link.deleted', 'w1'],
      ['link.deleted', 'w2'],
    ]);
  });

  test('with_links must be true or false; the default domain is refused; an unknown one is 404', async () => {
    const { add, remove } = await setup(mode);
    await add({ base_url: 'https://go.example.com' });
    for (const query of ['?with_links=yes', '?with_links=', '?with_links=TRUE']) {
      expect(answer(await remove('go.example.com', query))).toEqual({
        status: 400,
        body: { error: MSG.withLinksRule },
      });
    }
    expect(answer(await remove('kurz.test', '?with_links=true'))).toEqual({
      status: 400,
      body: { error: MSG.isDefault },
    });
    for (const name of ['other.example.com', encodeURIComponent('https://go.example.com/x')]) {
      expect(answer(await remove(name))).toEqual({ status: 404, body: { error: MSG.notFound } });
    }
  });
});
