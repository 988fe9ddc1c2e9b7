// Abuse limits: every limit refuses with 429 "Too many requests" and Retry-After once
// spent, per client address (or e-mail, or user), and nothing is limited when off.

import { describe, expect, test } from 'bun:test';
import { DEFAULT_RATE_LIMITS, type RateLimits } from '../../src/config/config.ts';
import { addressKey, RateLimiter } from '../../src/net/rate-limiter.ts';
import { PEER_HEADER, TestApp } from '../support/test-app.ts';

const HOUR = 3_600_000;
/** Small limits, so that tests spend them quickly; each window is long enough not to refill. */
const SMALL: RateLimits = {
  login: { count: 5, windowMs: HOUR },
  loginEmail: { count: 3, windowMs: HOUR },
  register: { count: 2, windowMs: HOUR },
  create: { count: 4, windowMs: HOUR },
  unknownCode: { count: 6, windowMs: HOUR },
  linkPassword: { count: 3, windowMs: HOUR },
  report: { count: 2, windowMs: HOUR },
};
const from = (peer: string) => ({ headers: { [PEER_HEADER]: peer } });
const TOO_MANY = { error: 'Too many requests' };

function expectLimited(reply: { status: number; json: unknown; headers: Headers }) {
  expect(reply.status).toBe(429);
  expect(reply.json).toEqual(TOO_MANY);
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  return retryAfter;
}

describe('RateLimiter', () => {
  test('a bucket of N passes N at once, then refills evenly over the window', () => {
    let now = 0;
    const limiter = new RateLimiter({ count: 3, windowMs: 3000 }, { now: () => now });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(1); // one token comes back each second
    expect(limiter.take('b')).toBe(0); // keys are apart
    now = 999;
    expect(limiter.take('a')).toBe(1);
    now = 1000;
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
  });

  test('Retry-After counts the whole seconds until the next token', () => {
    let now = 0;
    const limiter = new RateLimiter({ count: 2, windowMs: 60 * 60_000 }, { now: () => now });
    limiter.take('a');
    limiter.take('a');
    expect(limiter.take('a')).toBe(1800);
    now = 1_000_000;
    expect(limiter.take('a')).toBe(800);
  });

  test('a refused request spends nothing, and reset gives the whole allowance back', () => {
    let now = 0;
    const limiter = new RateLimiter({ count: 1, windowMs: 10_000 }, { now: () => now });
    limiter.take('a');
    for (let i = 0; i < 100; i++) limiter.take('a');
    now = 10_000;
    expect(limiter.take('a')).toBe(0);
    limiter.reset('a');
    expect(limiter.take('a')).toBe(0);
  });

  test('takeUpTo spends as many as are left, at most n, and tells the wait for the next', () => {
    let now = 0;
    const limiter = new RateLimiter({ count: 10, windowMs: 10_000 }, { now: () => now });
    expect(limiter.takeUpTo('a', 4)).toEqual({ taken: 4, wait: 0 });
    expect(limiter.takeUpTo('a', 100)).toEqual({ taken: 6, wait: 1 });
    expect(limiter.takeUpTo('a', 3)).toEqual({ taken: 0, wait: 1 });
    expect(limiter.take('a')).toBe(1);
    now = 2_500;
    expect(limiter.takeUpTo('a', 3)).toEqual({ taken: 2, wait: 1 });
    expect(limiter.takeUpTo('b', 10)).toEqual({ taken: 10, wait: 1 });
  });

  test('memory stays bounded under a flood of keys; refilled buckets go first', () => {
    let now = 0;
    const limiter = new RateLimiter({ count: 2, windowMs: 1000 }, { now: () => now, maxKeys: 100 });
    limiter.take('limited');
    limiter.take('limited');
    for (let i = 0; i < 10_000; i++) limiter.take(`flood-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(100);
    now = 5000;
    for (let i = 0; i < 1000; i++) limiter.take(`later-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(100);
  });

  test('IPv6 clients are limited by their /64; IPv4 by address', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2');
    expect(addressKey('2001:DB8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2');
    expect(addressKey('2001:0db8:0001:0002::')).toBe('2001:db8:1:2');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0');
    expect(addressKey('::1')).toBe('0:0:0:0');
  });
});

describe('login attempts (accounts mode)', () => {
  test('per client address: the limit answers before the body is looked at', async () => {
    const app = await TestApp.init('accounts', { rateLimits: SMALL });
    await app.user('ann@example.com');
    for (let i = 0; i < SMALL.login.count; i++) {
      const wrong = { email: `x${i}@example.com`, password: 'wrong password' };
      expect((await app.post('/api/auth/login', wrong, from('198.51.100.7'))).status).toBe(401);
    }
    expectLimited(
      await app.post(
        '/api/auth/login',
        { email: 'ann@example.com', password: 'correct horse 42' },
        from('198.51.100.7'),
      ),
    );
    expectLimited(
      await app.request('POST', '/api/auth/login', { raw: 'not json', ...from('198.51.100.7') }),
    );
    // Another address is not affected.
    const other = await app.post(
      '/api/auth/login',
      { email: 'ann@example.com', password: 'correct horse 42' },
      from('198.51.100.8'),
    );
    expect(other.status).toBe(200);
  });

  test('per client address only failures count: a script that logs in often is never refused', async () => {
    const app = await TestApp.init('accounts', { rateLimits: SMALL });
    await app.user('eve@example.com');
    for (let i = 0; i < SMALL.login.count * 4; i++) {
      const reply = await app.post(
        '/api/auth/login',
        { email: 'eve@example.com', password: 'correct horse 42' },
        from('198.51.100.9'),
      );
      expect(reply.status).toBe(200);
    }
  });

  test('per e-mail: a guesser spread over many addresses is stopped, even with the right password', async () => {
    const app = await TestApp.init('accounts', { rateLimits: SMALL });
    await app.user('bob@example.com');
    for (let i = 0; i < SMALL.loginEmail.count; i++) {
      const reply = await app.post(
        '/api/auth/login',
        { email: 'bob@example.com', password: `guess ${i}xx` },
        from(`203.0.113.${i}`),
      );
      expect(reply.status).toBe(401);
    }
    const right = { email: ' BOB@example.com ', password: 'correct horse 42' };
    expectLimited(await app.post('/api/auth/login', right, from('203.0.113.200')));
    // Other accounts log in as usual.
    await app.user('cat@example.com');
    expect(
      (
        await app.post(
          '/api/auth/login',
          { email: 'cat@example.com', password: 'correct horse 42' },
          from('203.0.113.201'),
        )
      ).status,
    ).toBe(200);
  });

  test('a successful login clears the e-mail failures, so typos do not add up over days', async () => {
    const app = await TestApp.init('accounts', {
      rateLimits: { ...SMALL, login: { count: 100, windowMs: HOUR } },
    });
    await app.user('dan@example.com');
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < SMALL.loginEmail.count - 1; i++) {
        const reply = await app.post('/api/auth/login', {
          email: 'dan@example.com',
          password: 'typo typo typo',
        });
        expect(reply.status).toBe(401);
      }
      const ok = await app.post('/api/auth/login', {
        email: 'dan@example.com',
        password: 'correct horse 42',
      });
      expect(ok.status).toBe(200);
    }
  });
});

describe('registrations (accounts mode)', () => {
  test('per client address, counting every attempt', async () => {
    const app = await TestApp.init('accounts', { rateLimits: SMALL });
    const register = (email: string, peer: string) =>
      app.post('/api/auth/register', { email, password: 'correct horse 42' }, from(peer));
    expect((await register('a@example.com', '192.0.2.50')).status).toBe(200);
    expect((await register('a@example.com', '192.0.2.50')).status).toBe(400);
    expectLimited(await register('b@example.com', '192.0.2.50'));
    expect((await register('b@example.com', '192.0.2.51')).status).toBe(200);
    expect(await app.query('SELECT count(*) AS n FROM users')).toEqual([{ n: 2 }]);
  });
});

describe('creates', () => {
  test("accounts mode: per user, so one user cannot spend another's allowance", async () => {
    const app = await TestApp.init('accounts', { rateLimits: SMALL });
    const ann = await app.user();
    const bob = await app.user();
    for (let i = 0; i < SMALL.create.count; i++) {
      expect(
        (await ann.shorten({ url: `https://example.com/${i}` }, from(`192.0.2.${i}`))).status,
      ).toBe(201);
    }
    expectLimited(await ann.shorten({ url: 'https://example.com/more' }, from('192.0.2.99')));
    // Nothing was created by the refused request.
    expect((await ann.links()).headers.get('x-total-count')).toBe(String(SMALL.create.count));
    expect((await bob.shorten({ url: 'https://example.com/bob' }, from('192.0.2.0'))).status).toBe(
      201,
    );
    // Without a valid token it is 401 as before: the user is who the limit counts.
    expect((await app.anonymous().shorten({ url: 'https://example.com/x' })).status).toBe(401);
  });

  test('open mode: per client address', async () => {
    const app = await TestApp.init('open', { rateLimits: SMALL });
    const anyone = app.anonymous();
    for (let i = 0; i < SMALL.create.count; i++) {
      expect(
        (await anyone.shorten({ url: `https://example.com/${i}` }, from('198.51.100.1'))).status,
      ).toBe(201);
    }
    expectLimited(await anyone.shorten({ url: 'https://example.com/more' }, from('198.51.100.1')));
    // The limit answers before the body is looked at.
    expectLimited(
      await app.request('POST', '/api/shorten', { raw: '[]', ...from('198.51.100.1') }),
    );
    expect(
      (await anyone.shorten({ url: 'https://example.com/x' }, from('198.51.100.2'))).status,
    ).toBe(201);
  });
});

describe.each(['accounts', 'open'] as const)('unknown codes (%s mode)', (mode) => {
  test('per client address; known codes are never limited', async () => {
    const app = await TestApp.init(mode, { rateLimits: SMALL });
    const owner = mode === 'accounts' ? await app.user() : app.anonymous();
    const link = await owner.link('https://example.com/known', { custom_code: 'known1' });
    for (let i = 0; i < SMALL.unknownCode.count; i++) {
      // Codes that cannot exist count as well as well-formed unknown ones.
      const path = i % 2 === 0 ? `/nope${i}` : `/not.a.code${i}`;
      expect((await app.get(path, from('203.0.113.77'))).status).toBe(404);
    }
    expectLimited(await app.get('/nope-more', from('203.0.113.77')));
    const known = await app.get(`/${link.short_code}`, from('203.0.113.77'));
    expect(known.status).toBe(307);
    expect((await app.get('/nope-more', from('203.0.113.78'))).status).toBe(404);
  });
});

describe('limits off', () => {
  test('without limits, 200 wrong logins and 300 unknown codes are all answered', async () => {
    const app = await TestApp.init('accounts');
    for (let i = 0; i < 200; i++) {
      expect(
        (await app.post('/api/auth/login', { email: 'x@example.com', password: 'wrong password' }))
          .status,
      ).toBe(401);
    }
    for (let i = 0; i < 300; i++) expect((await app.get(`/gone${i}`)).status).toBe(404);
  });

  test('with the default limits, a login flood and a code scan from one address are refused', async () => {
    const app = await TestApp.init('accounts', { rateLimits: DEFAULT_RATE_LIMITS });
    const statuses = new Map<number, number>();
    for (let i = 0; i < 200; i++) {
      const reply = await app.post('/api/auth/login', {
        email: `x${i}@example.com`,
        password: 'wrong password',
      });
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    }
    expect(statuses.get(401)).toBe(DEFAULT_RATE_LIMITS.login.count);
    expect(statuses.get(429)).toBe(200 - DEFAULT_RATE_LIMITS.login.count);
    let refused = 0;
    const started = Date.now();
    for (let i = 0; i < 5000; i++) if ((await app.get(`/scan${i}`)).status === 429) refused++;
    // The bucket refills evenly while the scan runs (a few tokens a second on a slower store).
    const { count, windowMs } = DEFAULT_RATE_LIMITS.unknownCode;
    const refilled = Math.ceil(((Date.now() - started) * count) / windowMs);
    expect(refused).toBeLessThanOrEqual(5000 - count);
    expect(refused).toBeGreaterThanOrEqual(5000 - count - refilled);
  });
});
