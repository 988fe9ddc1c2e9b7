import { describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import { generateKey } from '../../src/auth/api-keys.ts';
import { ADMIN_TOKEN, SECRET, TestApp } from '../support/test-app.ts';

const MSG = {
  required: 'Email and password are required',
  email: 'Invalid email address',
  password: 'Password must be 8 to 1024 characters long',
  taken: 'Email already registered',
  credentials: 'Invalid credentials',
  body: 'Request body must be a JSON object',
};
const GOOD = 'correct horse 42';
const key = new TextEncoder().encode(SECRET);

function register(app: TestApp, body: unknown) {
  return app.post('/api/auth/register', body);
}
function login(app: TestApp, body: unknown) {
  return app.post('/api/auth/login', body);
}
function decode(token: string) {
  const [header, payload] = token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, payload };
}

describe('POST /api/auth/register', () => {
  test('answers 200 with a token and the public user (id and e-mail only)', async () => {
    const app = await TestApp.init();
    const reply = await register(app, { email: 'ann@example.com', password: GOOD });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json).sort()).toEqual(['token', 'user']);
    expect(reply.json.user).toEqual({ id: expect.any(Number), email: 'ann@example.com' });
    expect(reply.json.token.split('.')).toHaveLength(3);
    const [hash] = await app.query<{ password_hash: string }>('SELECT password_hash FROM users');
    expect(hash?.password_hash).toStartWith('$argon2id$');
    expect(reply.text).not.toContain(hash?.password_hash);
  });

  test('the token is HS256 with sub, iat and exp = iat + the configured lifetime', async () => {
    const app = await TestApp.init('accounts', { tokenTtlSeconds: 120 });
    const { json } = await register(app, { email: 'ann@example.com', password: GOOD });
    const { header, payload } = decode(json.token);
    expect(header.alg).toBe('HS256');
    expect(payload.sub).toBe(String(json.user.id));
    expect(payload.exp - payload.iat).toBe(120);
    expect(Math.abs(payload.iat - Date.now() / 1000)).toBeLessThan(5);
  });

  test('the e-mail is trimmed and lower-cased', async () => {
    const app = await TestApp.init();
    const reply = await register(app, { email: '  Ann@Example.COM ', password: GOOD });
    expect(reply.json.user.email).toBe('ann@example.com');
  });

  test.each([
    [{}],
    [{ email: 'a@b.co' }],
    [{ password: GOOD }],
    [{ email: 42, password: GOOD }],
    [{ email: 'a@b.co', password: 12345678 }],
    [{ email: null, password: null }],
  ])('%p is "Email and password are required"', async (body) => {
    const app = await TestApp.init();
    const reply = await register(app, body);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: MSG.required });
  });

  test.each([
    'not-an-email',
    'a@b',
    'a@@b.co',
    'a@b@c.co',
    'a b@c.co',
    '@b.co',
    'a@.co',
    'a@b.',
    'a@b.c o',
    'a\u0000@b.co',
    '',
    '   ',
    `${'a'.repeat(250)}@ex.com`,
  ])('e-mail %p is "Invalid email address"', async (email) => {
    const app = await TestApp.init();
    const reply = await register(app, { email, password: GOOD });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: MSG.email });
  });

  test('an e-mail of exactly 255 characters is accepted', async () => {
    const app = await TestApp.init();
    const email = `${'a'.repeat(255 - '@example.com'.length)}@example.com`;
    expect(email).toHaveLength(255);
    expect((await register(app, { email, password: GOOD })).status).toBe(200);
  });

  test('passwords must be 8 to 1024 code points', async () => {
    const app = await TestApp.init();
    const cases: [string, number][] = [
      ['1234567', 400],
      ['12345678', 200],
      ['p'.repeat(1024), 200],
      ['p'.repeat(1025), 400],
      ['😀'.repeat(8), 200],
      ['😀'.repeat(7), 400],
      ['😀'.repeat(1024), 200],
      ['😀'.repeat(1025), 400],
    ];
    let n = 0;
    for (const [password, status] of cases) {
      const reply = await register(app, { email: `p${n++}@example.com`, password });
      expect(reply.status).toBe(status);
      if (status === 400) expect(reply.json).toEqual({ error: MSG.password });
    }
  });

  test('a registered e-mail, in any case, is "Email already registered"', async () => {
    const app = await TestApp.init();
    await register(app, { email: 'ann@example.com', password: GOOD });
    for (const email of ['ann@example.com', 'ANN@example.com', ' ann@EXAMPLE.com ']) {
      const reply = await register(app, { email, password: 'another pass 1' });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: MSG.taken });
    }
    expect(await app.query('SELECT count(*) AS n FROM users')).toEqual([{ n: 1 }]);
  });

  test('checks run in order: fields, e-mail, password, duplicate', async () => {
    const app = await TestApp.init();
    await register(app, { email: 'ann@example.com', password: GOOD });
    expect((await register(app, { email: 'bad email', password: 'x' })).json.error).toBe(MSG.email);
    expect((await register(app, { email: 'ann@example.com', password: 'x' })).json.error).toBe(
      MSG.password,
    );
    expect((await register(app, { email: 'bad', password: 1 })).json.error).toBe(MSG.required);
  });

  test('concurrent registrations of one e-mail: exactly one succeeds', async () => {
    const app = await TestApp.init();
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => register(app, { email: 'race@example.com', password: GOOD })),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of replies.filter((r) => r.status !== 200))
      expect(r.json).toEqual({ error: MSG.taken });
  });

  test.each(['nope', '[]', '"x"', ''])(
    'body %p is "Request body must be a JSON object"',
    async (raw) => {
      const app = await TestApp.init();
      const reply = await app.request('POST', '/api/auth/register', {
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: MSG.body });
    },
  );
});

describe('POST /api/auth/login', () => {
  async function withAnn() {
    const app = await TestApp.init();
    const ann = await app.user('ann@example.com', GOOD);
    return { app, ann };
  }

  test('answers 200 with a working token and the public user', async () => {
    const { app, ann } = await withAnn();
    const reply = await login(app, { email: 'ann@example.com', password: GOOD });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.json).sort()).toEqual(['token', 'user']);
    expect(reply.json.user).toEqual(ann.user);
    const links = await app.get('/api/links', { token: reply.json.token });
    expect(links.status).toBe(200);
  });

  test('the e-mail is trimmed and lower-cased', async () => {
    const { app } = await withAnn();
    const reply = await login(app, { email: ' ANN@example.com  ', password: GOOD });
    expect(reply.status).toBe(200);
  });

  test.each([
    ['a wrong password', { email: 'ann@example.com', password: 'wrong password' }],
    ['an unknown e-mail', { email: 'ghost@example.com', password: GOOD }],
    ['a malformed e-mail', { email: 'not an email', password: GOOD }],
    ['the password in another case', { email: 'ann@example.com', password: GOOD.toUpperCase() }],
    ['an empty password', { email: 'ann@example.com', password: '' }],
  ])('%s is 401 "Invalid credentials"', async (_, body) => {
    const { app } = await withAnn();
    const reply = await login(app, body);
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error: MSG.credentials });
  });

  test('missing fields or a non-object body are 400, as for register', async () => {
    const { app } = await withAnn();
    expect((await login(app, { email: 'ann@example.com' })).json).toEqual({ error: MSG.required });
    expect((await login(app, { password: GOOD })).json).toEqual({ error: MSG.required });
    const raw = await app.request('POST', '/api/auth/login', { raw: '[1]' });
    expect(raw.status).toBe(400);
    expect(raw.json).toEqual({ error: MSG.body });
  });

  test('an unknown e-mail costs a password verification, like a wrong password', async () => {
    // Not a timing assertion: the cost is observed by counting argon2 verifications.
    const { app } = await withAnn();
    const original = Bun.password.verify;
    let verifications = 0;
    Bun.password.verify = ((...args: Parameters<typeof original>) => {
      verifications++;
      return original(...args);
    }) as typeof original;
    try {
      await login(app, { email: 'ghost@example.com', password: GOOD });
      expect(verifications).toBe(1);
      await login(app, { email: 'not an email', password: GOOD });
      expect(verifications).toBe(2);
      await login(app, { email: 'ann@example.com', password: 'wrong password' });
      expect(verifications).toBe(3);
    } finally {
      Bun.password.verify = original;
    }
  });
});

describe('tokens on protected endpoints', () => {
  async function forge(payload: Record<string, unknown>, alg = 'HS256', secret = key) {
    return new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(secret);
  }
  const now = () => Math.floor(Date.now() / 1000);

  test.each([
    ['no header', undefined],
    ['an empty Bearer', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['garbage', 'Bearer abc.def.ghi'],
    ['a Basic header', 'Basic dXNlcjpwYXNz'],
    ['a bare token without the scheme', 'TOKEN'],
  ])('%s is 401 "Unauthorized"', async (_, header) => {
    const app = await TestApp.init();
    const ann = await app.user();
    const value = header === 'TOKEN' ? (ann.token as string) : header;
    for (const [method, path] of [
      ['POST', '/api/shorten'],
      ['GET', '/api/links'],
    ] as const) {
      const reply = await app.request(method, path, {
        json: method === 'POST' ? { url: 'https://example.com' } : undefined,
        headers: value === undefined ? {} : { authorization: value },
      });
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({ error: 'Unauthorized' });
    }
  });

  test('every 401 Unauthorized carries WWW-Authenticate: Bearer (RFC 6750)', async () => {
    // With an admin token, domain management answers 401 too (without one, 403).
    const app = await TestApp.init('accounts', { adminToken: ADMIN_TOKEN });
    const ann = await app.user();
    const gone = await app.user();
    const code = (await ann.link()).short_code;
    await app.query('DELETE FROM users WHERE id = ?', [gone.user?.id]);
    // Every route the document says needs the bearer token, with a code that exists. The
    // admin API's refusals, this header included, are admin-access.test.ts's.
    const doc = (await app.get('/api/openapi.json')).json;
    const routes = Object.entries(doc.paths as Record<string, Record<string, { security?: [] }>>)
      .filter(([path]) => !path.startsWith('/api/admin/'))
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => op.security?.length)
          .map(
            ([method, _]) =>
              [
                method.toUpperCase(),
                path
                  .replace('{code}', code)
                  .replace('{id}', '1')
                  .replace('{domain}', 'go.example')
                  .replace('{tag}', 'promo'),
              ] as const,
          ),
      )
      .sort();
    expect(routes).toEqual([
      ['DELETE', '/api/domains/go.example'],
      ['DELETE', '/api/keys/1'],
      ['DELETE', `/api/links/${code}`],
      ['DELETE', '/api/webhooks/1'],
      ['GET', '/api/domains'],
      ['GET', '/api/keys'],
      ['GET', '/api/links'],
      ['GET', `/api/links/${code}`],
      ['GET', `/api/links/${code}/clicks.csv`],
      ['GET', `/api/links/${code}/qr.png`],
      ['GET', `/api/links/${code}/qr.svg`],
      ['GET', `/api/links/${code}/stats`],
      ['GET', '/api/tags'],
      ['GET', '/api/tags/promo/stats'],
      ['GET', '/api/webhooks'],
      ['GET', '/api/webhooks/1/deliveries'],
      ['PATCH', '/api/domains/go.example'],
      ['PATCH', `/api/links/${code}`],
      ['POST', '/api/domains'],
      ['POST', '/api/keys'],
      ['POST', '/api/links/bulk'],
      ['POST', '/api/shorten'],
      ['POST', '/api/webhooks'],
      ['POST', '/api/webhooks/1/test'],
    ]);
    const refusals: Record<string, string>[] = [
      {},
      { authorization: 'Bearer abc.def.ghi' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${gone.token}` },
      // An API key that is mistyped, and one well formed that was never made.
      { authorization: 'Bearer kurz_nope' },
      { authorization: `Bearer ${generateKey()}` },
    ];
    for (const [method, path] of routes) {
      for (const headers of refusals) {
        const reply = await app.request(method, path, {
          json: method === 'POST' ? { url: 'https://example.com', name: 'k' } : undefined,
          headers,
        });
        expect([method, path, reply.status, reply.json]).toEqual([
          method,
          path,
          401,
          { error: 'Unauthorized' },
        ]);
        expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
  });

  test('the Bearer scheme is case-insensitive', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const reply = await app.get('/api/links', {
      headers: { authorization: `bearer ${ann.token}` },
    });
    expect(reply.status).toBe(200);
  });

  test('a tampered, expired, foreign-key, non-HS256 or claim-less token is 401', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const sub = String(ann.user?.id);
    const [h, p, s] = (ann.token as string).split('.');
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const tampered = `${h}.${b64({ ...decode(ann.token as string).payload, sub: '999' })}.${s}`;
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`;
    const tokens = [
      tampered,
      none,
      await forge({ sub, iat: now() - 100, exp: now() - 10 }),
      await forge(
        { sub, iat: now(), exp: now() + 60 },
        'HS256',
        new TextEncoder().encode('another secret of enough length!!'),
      ),
      await forge({ sub, iat: now(), exp: now() + 60 }, 'HS512'),
      await forge({ sub, iat: now(), exp: now() + 60 }, 'HS384'),
      await forge({ sub, iat: now() }),
      await forge({ iat: now(), exp: now() + 60 }),
      await forge({ sub: 'abc', iat: now(), exp: now() + 60 }),
      await forge({ sub: Number(sub), iat: now(), exp: now() + 60 }),
    ];
    for (const token of tokens) {
      const reply = await app.get('/api/links', { token });
      expect(reply.status).toBe(401);
      expect(reply.json).toEqual({ error: 'Unauthorized' });
    }
    // The same claims, properly signed, work: the refusals above are about the token.
    expect(
      (await app.get('/api/links', { token: await forge({ sub, iat: now(), exp: now() + 60 }) }))
        .status,
    ).toBe(200);
  });

  test('a token whose user no longer exists is 401', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    await app.query('DELETE FROM users WHERE id = ?', [ann.user?.id]);
    const reply = await ann.links();
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error: 'Unauthorized' });
  });

  test('a token from another kurz (another secret) is 401', async () => {
    const one = await TestApp.init('accounts', { secret: 'one-secret-one-secret-one-secret-one' });
    const two = await TestApp.init('accounts', { secret: 'two-secret-two-secret-two-secret-two' });
    const ann = await one.user();
    await two.user();
    expect((await two.get('/api/links', { token: ann.token })).status).toBe(401);
  });
});

describe('open mode', () => {
  test.each([
    ['POST', '/api/auth/register'],
    ['POST', '/api/auth/login'],
    ['GET', '/api/auth/register'],
  ])('%s %s does not exist: 404 "Not found"', async (method, path) => {
    const app = await TestApp.init('open');
    const reply = await app.request(method, path, {
      json: method === 'POST' ? { email: 'a@b.co', password: GOOD } : undefined,
    });
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
  });
});
