// Accounts run for real: registration closed by the operator, sessions ended by a new
// password or a removed account, and API keys — made, listed, used within their scope,
// revoked, expired.

import { describe, expect, test } from 'bun:test';
import { generateKey, keyHash, wellFormed } from '../../src/auth/api-keys.ts';
import { KEYS_PER_USER } from '../../src/auth/key-routes.ts';
import { PasswordHasher } from '../../src/auth/passwords.ts';
import { CHEAP_HASHING, type Client, TestApp } from '../support/test-app.ts';

const PASSWORD = 'correct horse 42';

async function newKey(client: Client, body: Record<string, unknown> = { name: 'script' }) {
  const reply = await client.app.post('/api/keys', body, { token: client.token });
  if (reply.status !== 201) throw new Error(`key not made: ${reply.status} ${reply.text}`);
  return reply.json as { id: number; key: string; prefix: string; scope: string };
}

describe('registration', () => {
  test('closed: registering answers 403 Registration is closed, before the body is checked; logging in works', async () => {
    const app = await TestApp.init('accounts', { registration: 'closed' });
    for (const body of [{ email: 'new@example.com', password: PASSWORD }, {}, 'nope']) {
      const reply = await app.post('/api/auth/register', body);
      expect([reply.status, reply.json]).toEqual([403, { error: 'Registration is closed' }]);
    }
    expect(await app.store.findUserByEmail('new@example.com')).toBeUndefined();
    // Accounts the operator makes (kurz user add) log in as any other.
    await app.store.createUser(
      'ops@example.com',
      await new PasswordHasher(CHEAP_HASHING).hash(PASSWORD),
    );
    const login = await app.post('/api/auth/login', {
      email: 'ops@example.com',
      password: PASSWORD,
    });
    expect(login.status).toBe(200);
    expect((await app.get('/api/links', { token: login.json.token })).status).toBe(200);
  });

  test('the page says whether registration is open, so it offers only login when closed', async () => {
    const closed = await TestApp.init('accounts', { registration: 'closed' });
    expect((await closed.get('/')).text).toContain(
      '<meta name="kurz-registration" content="closed">',
    );
    const open = await TestApp.init('accounts');
    expect((await open.get('/')).text).toContain('<meta name="kurz-registration" content="open">');
    expect(
      (await open.post('/api/auth/register', { email: 'a@example.com', password: PASSWORD }))
        .status,
    ).toBe(200);
  });
});

describe('sessions end with the account or its password', () => {
  test('a new password refuses every token issued before it (401), and a fresh login works', async () => {
    const app = await TestApp.init();
    const ann = await app.user('ann@example.com');
    const login = await app.post('/api/auth/login', {
      email: 'ann@example.com',
      password: PASSWORD,
    });
    const bob = await app.user('bob@example.com');
    expect((await ann.links()).status).toBe(200);

    const hash = await new PasswordHasher(CHEAP_HASHING).hash('a new password 7');
    expect(await app.store.setPassword('ann@example.com', hash)).toBe(true);
    for (const token of [ann.token, login.json.token]) {
      const reply = await app.get('/api/links', { token });
      expect([reply.status, reply.json]).toEqual([401, { error: 'Unauthorized' }]);
    }
    expect((await bob.links()).status).toBe(200);
    const old = await app.post('/api/auth/login', { email: 'ann@example.com', password: PASSWORD });
    expect(old.status).toBe(401);
    const fresh = await app.post('/api/auth/login', {
      email: 'ann@example.com',
      password: 'a new password 7',
    });
    expect((await app.get('/api/links', { token: fresh.json.token })).status).toBe(200);
  });

  test('a removed account: its tokens and keys are refused at once', async () => {
    const app = await TestApp.init();
    const ann = await app.user('ann@example.com');
    const { key } = await newKey(ann);
    await ann.link();
    expect(await app.store.removeUser('ann@example.com', 'delete')).toMatchObject({ links: 1 });
    for (const token of [ann.token, key]) {
      expect((await app.get('/api/links', { token })).status).toBe(401);
    }
  });
});

describe('API keys', () => {
  test('made: shown once with its prefix, scope and dates, never cached; stored only as a hash', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const reply = await app.post(
      '/api/keys',
      { name: '  deploy script  ', scope: 'write', expires_at: '2999-01-01T00:00:00Z' },
      { token: ann.token },
    );
    expect(reply.status).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const key = reply.json.key as string;
    expect(key).toMatch(/^kurz_[0-9A-Za-z]{38}$/);
    expect(wellFormed(key)).toBe(true);
    expect(reply.json).toEqual({
      id: expect.any(Number),
      name: 'deploy script',
      prefix: key.slice(0, 13),
      scope: 'write',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      expires_at: '2999-01-01T00:00:00.000Z',
      last_used_at: null,
      key,
    });
    const rows = await app.query<{ secret_hash: string }>('SELECT secret_hash FROM api_keys');
    expect(rows).toEqual([{ secret_hash: keyHash(key) }]);
    expect(JSON.stringify(await app.query('SELECT * FROM api_keys'))).not.toContain(key);

    const listed = await app.get('/api/keys', { token: ann.token });
    expect(listed.status).toBe(200);
    const { key: _, ...shown } = reply.json;
    expect(listed.json).toEqual([shown]);
  });

  test('the checksum catches a mistyped key; every generated key is unique and well formed', () => {
    const keys = new Set(Array.from({ length: 500 }, generateKey));
    expect(keys.size).toBe(500);
    for (const key of keys) expect(wellFormed(key)).toBe(true);
    const key = [...keys][0] as string;
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(wellFormed(typo)).toBe(false);
  });

  test.each([
    [{}, 'name must be a string of 1 to 100 characters'],
    [{ name: '   ' }, 'name must be a string of 1 to 100 characters'],
    [{ name: 'x'.repeat(101) }, 'name must be a string of 1 to 100 characters'],
    [{ name: 7 }, 'name must be a string of 1 to 100 characters'],
    [{ name: 'k', scope: 'admin' }, 'scope must be read or write'],
    [
      { name: 'k', expires_at: '2020-01-01T00:00:00Z' },
      'expires_at must be an ISO 8601 date-time with a time zone in the future, such as 2026-12-31T23:59:59Z',
    ],
    [
      { name: 'k', expires_at: 'tomorrow' },
      'expires_at must be an ISO 8601 date-time with a time zone in the future, such as 2026-12-31T23:59:59Z',
    ],
  ])('%p is refused: %p, and nothing is stored', async (body, message) => {
    const app = await TestApp.init();
    const ann = await app.user();
    const reply = await app.post('/api/keys', body, { token: ann.token });
    expect([reply.status, reply.json]).toEqual([400, { error: message }]);
    expect((await app.get('/api/keys', { token: ann.token })).json).toEqual([]);
  });

  test('a read key lists, reads, shows stats, CSV and QR; anything else is 403 Forbidden', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const link = await ann.link('https://example.com/read');
    const { key } = await newKey(ann);
    const code = link.short_code;
    for (const path of [
      '/api/links',
      `/api/links/${code}`,
      `/api/links/${code}/stats`,
      `/api/links/${code}/clicks.csv`,
      `/api/links/${code}/qr.svg`,
    ]) {
      expect([path, (await app.get(path, { token: key })).status]).toEqual([path, 200]);
    }
    expect((await app.get('/api/links', { token: key })).json).toHaveLength(1);
    const refused = [
      await app.post('/api/shorten', { url: 'https://example.com/no' }, { token: key }),
      await app.request('PATCH', `/api/links/${code}`, {
        token: key,
        json: { url: 'https://x.example' },
      }),
      await app.request('DELETE', `/api/links/${code}`, { token: key }),
    ];
    for (const reply of refused) {
      expect([reply.status, reply.json]).toEqual([403, { error: 'Forbidden' }]);
    }
    const still = await app.get(`/api/links/${code}`, { token: ann.token });
    expect(still.json.original_url).toBe('https://example.com/read');
  });

  test('a write key creates, changes and deletes its user’s links, and sees no one else’s', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const bob = await app.user();
    const bobs = await bob.link();
    const { key } = await newKey(ann, { name: 'ci', scope: 'write' });
    const made = await app.post('/api/shorten', { url: 'https://example.com/w' }, { token: key });
    expect(made.status).toBe(201);
    const code = made.json.short_code;
    expect((await ann.links()).json.map((l: { short_code: string }) => l.short_code)).toEqual([
      code,
    ]);
    const patched = await app.request('PATCH', `/api/links/${code}`, {
      token: key,
      json: { url: 'https://example.com/changed' },
    });
    expect(patched.json.original_url).toBe('https://example.com/changed');
    expect((await app.get(`/api/links/${bobs.short_code}`, { token: key })).status).toBe(404);
    expect((await app.request('DELETE', `/api/links/${code}`, { token: key })).status).toBe(204);
  });

  test('no key manages keys or webhooks: 403 Forbidden, even a write key', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const { key, id } = await newKey(ann, { name: 'ci', scope: 'write' });
    const hook = { url: 'https://hooks.example.com/kurz' };
    for (const reply of [
      await app.get('/api/keys', { token: key }),
      await app.post('/api/keys', { name: 'successor', scope: 'write' }, { token: key }),
      await app.request('DELETE', `/api/keys/${id}`, { token: key }),
      await app.get('/api/webhooks', { token: key }),
      await app.post('/api/webhooks', hook, { token: key }),
      await app.request('DELETE', '/api/webhooks/1', { token: key }),
      await app.get('/api/webhooks/1/deliveries', { token: key }),
      await app.post('/api/webhooks/1/test', {}, { token: key }),
    ]) {
      expect([reply.status, reply.json]).toEqual([403, { error: 'Forbidden' }]);
    }
    expect((await app.get('/api/keys', { token: ann.token })).json).toHaveLength(1);
  });

  test('revoked by its owner only: another user’s key or an unknown id is 404; a revoked key is 401', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const bob = await app.user();
    const { key, id } = await newKey(ann);
    for (const [client, path] of [
      [bob, `/api/keys/${id}`],
      [ann, '/api/keys/999999'],
      [ann, '/api/keys/abc'],
      [ann, '/api/keys/0'],
    ] as const) {
      const reply = await app.request('DELETE', path, { token: client.token });
      expect([path, reply.status, reply.json]).toEqual([path, 404, { error: 'Not found' }]);
    }
    expect((await app.get('/api/links', { token: key })).status).toBe(200);
    expect((await app.request('DELETE', `/api/keys/${id}`, { token: ann.token })).status).toBe(204);
    const reply = await app.get('/api/links', { token: key });
    expect([reply.status, reply.json]).toEqual([401, { error: 'Unauthorized' }]);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('an expired key is 401; a used key shows when it was last used', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const used = await newKey(ann, { name: 'used' });
    const expiring = await newKey(ann, { name: 'expiring', expires_at: '2999-01-01T00:00:00Z' });
    expect((await app.get('/api/links', { token: used.key })).status).toBe(200);
    await app.query('UPDATE api_keys SET expires_at = ? WHERE id = ?', [
      Date.now() - 1,
      expiring.id,
    ]);
    expect((await app.get('/api/links', { token: expiring.key })).status).toBe(401);
    let keys: { name: string; last_used_at: string | null }[] = [];
    for (let i = 0; i < 50; i++) {
      keys = (await app.get('/api/keys', { token: ann.token })).json;
      if (keys.find((k) => k.name === 'used')?.last_used_at) break;
      await Bun.sleep(10);
    }
    const last = keys.find((k) => k.name === 'used')?.last_used_at as string;
    expect(Math.abs(Date.parse(last) - Date.now())).toBeLessThan(60_000);
    expect(keys.find((k) => k.name === 'expiring')?.last_used_at).toBeNull();
  });

  test(`a user may have ${KEYS_PER_USER} keys; the next is 403 API key limit reached`, async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    await Promise.all(
      Array.from({ length: KEYS_PER_USER }, (_, i) => newKey(ann, { name: `k${i}` })),
    );
    const reply = await app.post('/api/keys', { name: 'one more' }, { token: ann.token });
    expect([reply.status, reply.json]).toEqual([403, { error: 'API key limit reached' }]);
    expect((await app.get('/api/keys', { token: ann.token })).json).toHaveLength(KEYS_PER_USER);
  });

  test('open mode has no keys: /api/keys is 404, and a bearer key changes nothing', async () => {
    const app = await TestApp.init('open');
    for (const reply of [
      await app.get('/api/keys'),
      await app.post('/api/keys', { name: 'k' }),
      await app.request('DELETE', '/api/keys/1'),
    ]) {
      expect([reply.status, reply.json]).toEqual([404, { error: 'Not found' }]);
    }
    const made = await app.post(
      '/api/shorten',
      { url: 'https://example.com' },
      { token: generateKey() },
    );
    expect(made.status).toBe(201);
  });
});
