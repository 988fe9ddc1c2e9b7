// The admin API (/api/admin): the instance's figures, users disabled, enabled, promoted
// and removed, every user's links searched, disabled, enabled and deleted, and the
// database blocklist refusing new links. Who may call it is admin-access.test.ts's.

import { describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/store/postgres/postgres-store.ts';
import { eventually } from '../support/binary.ts';
import { atCleanUp } from '../support/cleanup.ts';
import { freshSchemaUrl } from '../support/postgres.ts';
import { ADMIN_TOKEN, BASE_URL, type Client, TestApp } from '../support/test-app.ts';

const PASSWORD = 'correct horse 42';
const OWN = { error: 'You cannot disable, demote or remove your own account' };
const BLOCKED = { error: 'URL is blocked' };

async function setup() {
  const app = await TestApp.init('accounts', { adminToken: ADMIN_TOKEN });
  const admin = await app.admin('admin@example.com');
  return { app, admin, as: (client: Client) => ({ token: client.token }) };
}

describe('the overview', () => {
  test('counts links, clicks today, users, reports waiting, disabled links and blocked hosts', async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    const link = await ann.link('https://example.com/a');
    await ann.link('https://example.com/b');
    expect((await app.get(`/${link.short_code}`)).status).toBe(307);
    expect((await app.get(`/${link.short_code}`)).status).toBe(307);
    await app.post(`/api/admin/links/${link.short_code}/disable`, {}, { token: admin.token });
    await app.post('/api/admin/blocklist', { host: 'evil.example' }, { token: admin.token });
    const reply = await app.get('/api/admin/overview', { token: admin.token });
    expect([reply.status, reply.json]).toEqual([
      200,
      {
        links: 2,
        clicks_today: 2,
        users: 2,
        reports_waiting: 0,
        disabled_links: 1,
        blocked_hosts: 1,
      },
    ]);
    expect((await app.get('/api/admin/overview', { token: ADMIN_TOKEN })).json.users).toBe(2);
  });

  test('open mode: the admin token sees every link, and no users', async () => {
    const app = await TestApp.init('open', { adminToken: ADMIN_TOKEN });
    await app.anonymous().link('https://example.com/a');
    const reply = await app.get('/api/admin/overview', { token: ADMIN_TOKEN });
    expect(reply.json).toMatchObject({ links: 1, users: 0 });
    expect((await app.get('/api/admin/users', { token: ADMIN_TOKEN })).status).toBe(404);
  });
});

describe('users', () => {
  test('listed oldest first, searched by e-mail, in pages with X-Total-Count', async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    await app.user('bob@example.com');
    await ann.link();
    const all = await app.get('/api/admin/users', { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total-count')).toBe('3');
    expect(all.json.map((u: { email: string }) => u.email)).toEqual([
      'admin@example.com',
      'ann@example.com',
      'bob@example.com',
    ]);
    expect(all.json[1]).toEqual({
      id: ann.user?.id,
      email: 'ann@example.com',
      created_at: expect.any(String),
      links: 1,
      admin: false,
      disabled: false,
      disabled_at: null,
      sign_in: ['password'],
    });
    expect(all.json[0]).toMatchObject({ admin: true });
    const found = await app.get('/api/admin/users?q=BOB', { token: admin.token });
    expect(found.json.map((u: { email: string }) => u.email)).toEqual(['bob@example.com']);
    const page = await app.get('/api/admin/users?limit=1&offset=1', { token: admin.token });
    expect([page.headers.get('x-total-count'), page.json.length]).toEqual(['3', 1]);
    expect(page.json[0].email).toBe('ann@example.com');
    const bad = await app.get('/api/admin/users?limit=0', { token: admin.token });
    expect([bad.status, bad.json]).toEqual([
      400,
      { error: 'limit must be 1 to 1000 and offset 0 or more' },
    ]);
  });

  test('a disabled user: tokens and keys 401 at once, sign-in 403, links still redirect; enabling restores all', async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    const link = await ann.link('https://example.com/kept');
    const key = (await app.post('/api/keys', { name: 'k' }, { token: ann.token })).json.key;
    expect((await app.get('/api/links', { token: key })).status).toBe(200);
    const id = ann.user?.id;

    const off = await app.request('PATCH', `/api/admin/users/${id}`, {
      token: admin.token,
      json: { disabled: true },
    });
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({ id, disabled: true, disabled_at: expect.any(String) });
    for (const token of [ann.token, key]) {
      const reply = await app.get('/api/links', { token });
      expect([reply.status, reply.json]).toEqual([401, { error: 'Unauthorized' }]);
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    }
    const login = await app.post('/api/auth/login', {
      email: 'ann@example.com',
      password: PASSWORD,
    });
    expect([login.status, login.json]).toEqual([403, { error: 'Account disabled' }]);
    // A wrong password says nothing of the account.
    const wrong = await app.post('/api/auth/login', {
      email: 'ann@example.com',
      password: 'wrong password 1',
    });
    expect([wrong.status, wrong.json]).toEqual([401, { error: 'Invalid credentials' }]);
    expect((await app.get(`/${link.short_code}`)).status).toBe(307);

    const on = await app.request('PATCH', `/api/admin/users/${id}`, {
      token: ADMIN_TOKEN,
      json: { disabled: false },
    });
    expect(on.json).toMatchObject({ disabled: false, disabled_at: null });
    expect((await app.get('/api/links', { token: ann.token })).status).toBe(200);
    expect((await app.get('/api/links', { token: key })).status).toBe(200);
    const again = await app.post('/api/auth/login', {
      email: 'ann@example.com',
      password: PASSWORD,
    });
    expect(again.status).toBe(200);
  });

  test('promoted and demoted: an admin reaches /api/admin, then no more', async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    const patch = (admin: boolean) =>
      app.request('PATCH', `/api/admin/users/${ann.user?.id}`, {
        token: ADMIN_TOKEN,
        json: { admin },
      });
    expect((await app.get('/api/admin/overview', { token: ann.token })).status).toBe(403);
    expect((await patch(true)).json).toMatchObject({ admin: true });
    expect((await app.get('/api/admin/overview', { token: ann.token })).status).toBe(200);
    expect((await patch(false)).json).toMatchObject({ admin: false });
    expect((await app.get('/api/admin/overview', { token: ann.token })).status).toBe(403);
    expect((await app.get('/api/admin/overview', { token: admin.token })).status).toBe(200);
  });

  test('an admin cannot disable, demote or remove themselves; bad bodies and unknown users', async () => {
    const { app, admin } = await setup();
    const me = `/api/admin/users/${admin.user?.id}`;
    for (const json of [{ disabled: true }, { admin: false }]) {
      const reply = await app.request('PATCH', me, { token: admin.token, json });
      expect([reply.status, reply.json]).toEqual([400, OWN]);
    }
    const removal = await app.request('DELETE', `${me}?links=keep`, { token: admin.token });
    expect([removal.status, removal.json]).toEqual([400, OWN]);
    // Changing nothing of one's own standing is allowed.
    const same = await app.request('PATCH', me, { token: admin.token, json: { admin: true } });
    expect(same.status).toBe(200);
    const bad = await app.request('PATCH', me, { token: admin.token, json: { disabled: 'yes' } });
    expect([bad.status, bad.json]).toEqual([
      400,
      { error: 'disabled and admin must be true or false' },
    ]);
    for (const path of ['/api/admin/users/9999', '/api/admin/users/abc']) {
      const reply = await app.request('PATCH', path, { token: admin.token, json: { admin: true } });
      expect([reply.status, reply.json]).toEqual([404, { error: 'Not found' }]);
    }
    expect(
      (await app.request('DELETE', '/api/admin/users/9999?links=keep', { token: admin.token }))
        .status,
    ).toBe(404);
    // The operator's token is no user: it may do anything to anyone.
    const byToken = await app.request('PATCH', me, { token: ADMIN_TOKEN, json: { admin: false } });
    expect(byToken.json).toMatchObject({ admin: false });
  });

  test('removed with their links deleted, or kept as no one’s; links= is required', async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    const bob = await app.user('bob@example.com');
    const annLink = await ann.link('https://example.com/ann');
    const bobLink = await bob.link('https://example.com/bob');
    expect((await app.get(`/${annLink.short_code}`)).status).toBe(307);
    for (const query of ['', '?links=all']) {
      const reply = await app.request('DELETE', `/api/admin/users/${ann.user?.id}${query}`, {
        token: admin.token,
      });
      expect([reply.status, reply.json]).toEqual([400, { error: 'links must be delete or keep' }]);
    }
    const del = await app.request('DELETE', `/api/admin/users/${ann.user?.id}?links=delete`, {
      token: admin.token,
    });
    expect(del.status).toBe(204);
    expect((await app.get(`/${annLink.short_code}`)).status).toBe(404);
    expect((await app.get('/api/links', { token: ann.token })).status).toBe(401);
    const keep = await app.request('DELETE', `/api/admin/users/${bob.user?.id}?links=keep`, {
      token: admin.token,
    });
    expect(keep.status).toBe(204);
    expect((await app.get(`/${bobLink.short_code}`)).status).toBe(307);
    const links = await app.get('/api/admin/links', { token: admin.token });
    expect(links.json).toEqual([
      expect.objectContaining({ code: bobLink.short_code, owner: null }),
    ]);
    const users = await app.get('/api/admin/users', { token: admin.token });
    expect(users.json.map((u: { email: string }) => u.email)).toEqual(['admin@example.com']);
  });
});

describe('links', () => {
  test("every user's links, newest first, searched by text, owner, domain and state", async () => {
    const { app, admin } = await setup();
    await app.addDomain('https://go.example');
    const ann = await app.user('ann@example.com');
    const bob = await app.user('bob@example.com');
    const a = await ann.link('https://example.com/first');
    const b = await bob.link('https://evil.example/login');
    const c = await bob.link('https://example.com/third', { domain: 'go.example' });
    await app.post(
      `/api/admin/links/${b.short_code}/disable`,
      { reason: 'Phishing' },
      { token: admin.token },
    );
    const list = async (query: string) => {
      const reply = await app.get(`/api/admin/links${query}`, { token: admin.token });
      expect(reply.status).toBe(200);
      return [reply.headers.get('x-total-count'), reply.json.map((l: { code: string }) => l.code)];
    };
    expect(await list('')).toEqual(['3', [c.short_code, b.short_code, a.short_code]]);
    expect(await list('?q=EVIL')).toEqual(['1', [b.short_code]]);
    expect(await list('?owner=bob')).toEqual(['2', [c.short_code, b.short_code]]);
    expect(await list('?domain=go.example')).toEqual(['1', [c.short_code]]);
    expect(await list('?disabled=true')).toEqual(['1', [b.short_code]]);
    expect(await list('?disabled=false&owner=bob')).toEqual(['1', [c.short_code]]);
    expect(await list('?limit=1&offset=1')).toEqual(['3', [b.short_code]]);
    const [one] = (await app.get('/api/admin/links?q=evil', { token: admin.token })).json;
    expect(one).toEqual({
      code: b.short_code,
      short_url: `${BASE_URL}/${b.short_code}`,
      original_url: 'https://evil.example/login',
      domain: 'kurz.test',
      owner: { id: bob.user?.id, email: 'bob@example.com' },
      created_at: b.created_at,
      clicks: 0,
      disabled: true,
      disabled_reason: 'Phishing',
      disabled_at: expect.any(String),
    });
    for (const [query, error] of [
      ['?disabled=yes', 'disabled must be true or false'],
      [
        '?domain=nowhere.example',
        "domain must name one of this service's short domains (its host or base URL)",
      ],
      ['?offset=-1', 'limit must be 1 to 1000 and offset 0 or more'],
    ]) {
      const reply = await app.get(`/api/admin/links${query}`, { token: admin.token });
      expect([reply.status, reply.json]).toEqual([400, { error }]);
    }
  });

  test("disabled and enabled: the owner's details say so, the list's five fields do not change, the owner cannot enable it", async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    const link = await ann.link('https://example.com/x');
    const disable = await app.post(
      `/api/admin/links/${link.short_code}/disable`,
      { reason: '  Phishing  ' },
      { token: admin.token },
    );
    expect([disable.status, disable.json]).toEqual([
      200,
      expect.objectContaining({
        disabled: true,
        disabled_reason: 'Phishing',
        owner: { id: ann.user?.id, email: 'ann@example.com' },
      }),
    ]);
    const details = await app.get(`/api/links/${link.short_code}`, { token: ann.token });
    expect(details.json).toMatchObject({ disabled: true, disabled_reason: 'Phishing' });
    const full = await app.get('/api/links?view=full', { token: ann.token });
    expect(full.json[0]).toMatchObject({ disabled: true, disabled_reason: 'Phishing' });
    const list = await app.get('/api/links', { token: ann.token });
    expect(Object.keys(list.json[0]).sort()).toEqual(
      ['clicks', 'created_at', 'id', 'original_url', 'short_code', 'user_id'].sort(),
    );
    // Unknown fields of a PATCH are left aside: `disabled` is no field of the owner's.
    const patch = await app.request('PATCH', `/api/links/${link.short_code}`, {
      token: ann.token,
      json: { disabled: false },
    });
    expect(patch.json).toMatchObject({ disabled: true });

    const enable = await app.post(`/api/admin/links/${link.short_code}/enable`, undefined, {
      token: admin.token,
    });
    expect(enable.json).toMatchObject({
      disabled: false,
      disabled_reason: null,
      disabled_at: null,
    });
    const after = await app.get(`/api/links/${link.short_code}`, { token: ann.token });
    expect(after.json).toMatchObject({ disabled: false, disabled_reason: null });
    expect((await app.get(`/${link.short_code}`)).status).toBe(307);
  });

  test('disable: reason rules, unknown links, a link on another domain; delete', async () => {
    const { app, admin } = await setup();
    await app.addDomain('https://go.example');
    const ann = await app.user('ann@example.com');
    const link = await ann.link('https://example.com/x', { domain: 'go.example' });
    const path = `/api/admin/links/${link.short_code}`;
    const tooLong = await app.post(
      `${path}/disable?domain=go.example`,
      { reason: 'x'.repeat(501) },
      { token: admin.token },
    );
    expect([tooLong.status, tooLong.json]).toEqual([
      400,
      { error: 'reason must be a string of at most 500 characters' },
    ]);
    const badBlock = await app.post(
      `${path}/disable?domain=go.example`,
      { block_host: 'yes' },
      { token: admin.token },
    );
    expect([badBlock.status, badBlock.json]).toEqual([
      400,
      { error: 'block_host must be true or false' },
    ]);
    expect((await app.post(`${path}/disable`, {}, { token: admin.token })).status).toBe(404);
    expect(
      (await app.post('/api/admin/links/nope/enable', undefined, { token: admin.token })).status,
    ).toBe(404);
    const ok = await app.post(`${path}/disable?domain=go.example`, {}, { token: admin.token });
    expect(ok.json).toMatchObject({ domain: 'go.example', disabled: true, disabled_reason: null });
    expect((await app.request('DELETE', path, { token: admin.token })).status).toBe(404);
    expect(
      (await app.request('DELETE', `${path}?domain=go.example`, { token: admin.token })).status,
    ).toBe(204);
    expect(
      (await app.get(`/api/links/${link.short_code}?domain=go.example`, { token: ann.token }))
        .status,
    ).toBe(404);
  });

  test('block_host puts the target’s host on the blocklist: new links to it and its subdomains are refused', async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    const link = await ann.link('https://Phish.Example/login');
    const reply = await app.post(
      `/api/admin/links/${link.short_code}/disable`,
      { reason: 'Phishing', block_host: true },
      { token: admin.token },
    );
    expect(reply.status).toBe(200);
    const list = await app.get('/api/admin/blocklist', { token: admin.token });
    expect(list.json).toEqual([
      { host: 'phish.example', reason: 'Phishing', created_at: expect.any(String) },
    ]);
    const again = await ann.shorten({ url: 'https://www.phish.example/2' });
    expect([again.status, again.json]).toEqual([400, BLOCKED]);
  });
});

describe('the blocklist', () => {
  test('added, listed, removed; hosts checked', async () => {
    const { app, admin } = await setup();
    const add = await app.post(
      '/api/admin/blocklist',
      { host: '*.Evil.Example', reason: 'spam' },
      { token: admin.token },
    );
    expect([add.status, add.json]).toEqual([
      201,
      { host: 'evil.example', reason: 'spam', created_at: expect.any(String) },
    ]);
    const twice = await app.post(
      '/api/admin/blocklist',
      { host: 'evil.example' },
      { token: ADMIN_TOKEN },
    );
    expect([twice.status, twice.json.reason]).toEqual([201, 'spam']);
    await app.post('/api/admin/blocklist', { host: 'bad.example' }, { token: ADMIN_TOKEN });
    const list = await app.get('/api/admin/blocklist', { token: admin.token });
    expect(list.json.map((h: { host: string }) => h.host)).toEqual(['bad.example', 'evil.example']);
    for (const host of ['', 'not a host', 'evil.example:8080', 'https://evil.example/', 42]) {
      const reply = await app.post('/api/admin/blocklist', { host }, { token: admin.token });
      expect([reply.status, reply.json]).toEqual([
        400,
        { error: 'host must be a host name, such as example.com' },
      ]);
    }
    expect(
      (await app.request('DELETE', '/api/admin/blocklist/bad.example', { token: admin.token }))
        .status,
    ).toBe(204);
    expect(
      (await app.request('DELETE', '/api/admin/blocklist/bad.example', { token: admin.token }))
        .status,
    ).toBe(404); // Named as it was added: capitals and the wildcard mean the same host.
    const wild = await app.request('DELETE', '/api/admin/blocklist/*.EVIL.example', {
      token: admin.token,
    });
    expect(wild.status).toBe(204);
    const nonsense = await app.request('DELETE', '/api/admin/blocklist/not%20a%20host', {
      token: admin.token,
    });
    expect([nonsense.status, nonsense.json]).toEqual([404, { error: 'Not found' }]);
    expect((await app.get('/api/admin/blocklist', { token: admin.token })).json).toEqual([]);
  });

  test('an entry refuses new links, bulk items, changed targets, rules and variants; removed, they pass', async () => {
    const { app, admin } = await setup();
    const ann = await app.user('ann@example.com');
    const link = await ann.link('https://example.com/x');
    await app.post('/api/admin/blocklist', { host: 'evil.example' }, { token: admin.token });
    const url = 'https://sub.evil.example/a';
    const refused = [
      await ann.shorten({ url }),
      await ann.shorten({
        url: 'https://example.com/',
        rules: [{ url, conditions: [{ type: 'os', value: 'ios' }] }],
      }),
      await ann.shorten({
        url: 'https://example.com/',
        variants: [
          { url, weight: 50 },
          { url: 'https://example.com/b', weight: 50 },
        ],
      }),
      await app.request('PATCH', `/api/links/${link.short_code}`, {
        token: ann.token,
        json: { url },
      }),
    ];
    for (const reply of refused) expect(reply.json.error ?? reply.text).toMatch(/URL is blocked$/);
    const bulk = await app.post('/api/links/bulk', { links: [{ url }] }, { token: ann.token });
    expect(bulk.json.results).toEqual([{ status: 400, body: BLOCKED }]);
    await app.request('DELETE', '/api/admin/blocklist/evil.example', { token: admin.token });
    expect((await ann.shorten({ url })).status).toBe(201);
  });
});

describe('PostgreSQL: two instances on one database', () => {
  test('a host blocked on one instance is refused by the other at once', async () => {
    const url = await freshSchemaUrl();
    const open = async () => {
      const store = await openPostgres({ url, pool: 2, analyticsIntervalMs: 0 });
      atCleanUp(() => store.close());
      return TestApp.init('accounts', { store, adminToken: ADMIN_TOKEN });
    };
    const [one, two] = [await open(), await open()];
    const ann = await two.user('ann@example.com');
    expect((await ann.shorten({ url: 'https://evil.example/1' })).status).toBe(201);
    const add = await one.post(
      '/api/admin/blocklist',
      { host: 'evil.example' },
      { token: ADMIN_TOKEN },
    );
    expect(add.status).toBe(201);
    // The other instance reads the list again when the notice of the change reaches it.
    await eventually(
      async () => (await ann.shorten({ url: 'https://evil.example/2' })).status === 400,
      'the other instance refuses the host',
      2000,
    );
    await one.request('DELETE', '/api/admin/blocklist/evil.example', { token: ADMIN_TOKEN });
    await eventually(
      async () => (await ann.shorten({ url: 'https://evil.example/3' })).status === 201,
      'the other instance lets the host through again',
      2000,
    );
  });
});
