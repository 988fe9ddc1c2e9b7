// Sign-in through an OpenID Provider (accounts mode): against oidc-provider, a certified
// provider started by the test (test/support/oidc-provider.ts), the flow end to end and
// the rules about accounts; against a hand-made provider, the answers a certified one
// never gives (an ID token for another client, a forged signature). Also
// --password-login off and GET /api/auth/methods.

import { afterAll, beforeAll, describe, expect, setSystemTime, test } from 'bun:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Messages } from '../../src/domain/errors.ts';
import { translator } from '../../src/i18n/translate.ts';
import { CLIENT_ID, CLIENT_SECRET, TestProvider } from '../support/oidc-provider.ts';
import { type AppOptions, BASE_URL, type Reply, TestApp } from '../support/test-app.ts';

const CALLBACK = `${BASE_URL}/api/auth/oidc/callback`;
const M = {
  passwordOff: 'Password sign-in is off: sign in with your identity provider',
  attemptLost:
    'This sign-in attempt has expired or was started in another window. Please sign in again.',
  unverified: "The identity provider's answer could not be verified. Please sign in again.",
  refused: 'The identity provider did not sign you in.',
  unavailable: 'The identity provider cannot be reached right now. Please try again in a moment.',
  emailUnverified:
    'Your identity provider did not give a verified e-mail address, which kurz needs to find or make your account.',
  domain: 'Your e-mail domain may not sign in to this kurz.',
  closed:
    'Registration is closed: no account of this kurz has your e-mail address. Ask its operator for one.',
  linkedElsewhere:
    'The account with your e-mail address is linked to another identity at this provider.',
  disabled: 'Account disabled',
};

/** The interface's message of each refusal, and its key in the catalogues. */
const FAILURE_KEYS = {
  oidcUnavailable: 'oidc.failed.unavailable',
  oidcAttemptLost: 'oidc.failed.attemptLost',
  oidcRefused: 'oidc.failed.refused',
  oidcUnverified: 'oidc.failed.unverified',
  oidcEmailUnverified: 'oidc.failed.emailUnverified',
  oidcDomain: 'oidc.failed.domain',
  oidcRegistrationClosed: 'oidc.failed.registrationClosed',
  oidcLinkedElsewhere: 'oidc.failed.linkedElsewhere',
  accountDisabled: 'oidc.failed.accountDisabled',
} as const;

let op: TestProvider;
beforeAll(async () => {
  op = await TestProvider.start([CALLBACK]);
});
afterAll(() => op.close());

type OidcOptions = Omit<AppOptions, 'oidc'> & { oidc?: Partial<NonNullable<AppOptions['oidc']>> };

function oidcApp(options: OidcOptions = {}) {
  return TestApp.init('accounts', {
    ...options,
    oidc: { issuer: op.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...options.oidc },
  });
}

/** The start of a sign-in: kurz's redirect to the provider and its attempt cookie. */
async function begin(app: TestApp) {
  const reply = await app.get('/api/auth/oidc/login');
  expect(reply.status).toBe(302);
  const setCookie = reply.headers.get('set-cookie') ?? '';
  return {
    location: reply.headers.get('location') as string,
    setCookie,
    cookie: setCookie.split(';')[0] as string,
  };
}

/** The callback as the browser calls it: the provider's redirect, with the attempt cookie. */
function callback(
  app: TestApp,
  url: URL,
  cookie: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return app.get(`${url.pathname}${url.search}`, { headers: { ...headers, cookie } });
}

interface SignedIn {
  reply: Reply;
  /** The token the page hands to the web UI, when it does. */
  token?: string;
  /** The provider's redirect back, to replay. */
  back: URL;
  cookie: string;
}

/** A whole sign-in of the provider's person `login` (from a browser sending `headers`). */
async function signIn(
  app: TestApp,
  login: string,
  headers: Record<string, string> = {},
): Promise<SignedIn> {
  const { location, cookie } = await begin(app);
  const back = await op.authorize(location, login);
  const reply = await callback(app, back, cookie, headers);
  const token = /<meta name="kurz-token" content="([^"]+)">/.exec(reply.text)?.[1];
  return { reply, token, back, cookie };
}

/** The page's message of a refused sign-in. */
const refusal = (reply: Reply) =>
  /<p role="alert">([^<]*)<\/p>/.exec(reply.text)?.[1]?.replaceAll('&#39;', "'");

async function userRow(app: TestApp, email: string) {
  const [row] = await app.query<{
    id: number;
    admin: number | boolean;
    oidc_subject: string | null;
    password_hash: string;
  }>('SELECT id, admin, oidc_subject, password_hash FROM users WHERE email = ?', [email]);
  return row;
}

describe('GET /api/auth/methods', () => {
  test('says how people sign in: the password form, registration and the provider', async () => {
    const plain = await TestApp.init('accounts');
    expect((await plain.get('/api/auth/methods')).json).toEqual({
      password: true,
      registration: 'open',
      oidc: null,
    });
    const sso = await oidcApp({
      registration: 'closed',
      passwordLogin: false,
      oidc: { name: 'Sign in with Example' },
    });
    expect((await sso.get('/api/auth/methods')).json).toEqual({
      password: false,
      registration: 'closed',
      oidc: { name: 'Sign in with Example', login_url: '/api/auth/oidc/login' },
    });
  });

  test('is 404 in open mode, as the rest of /api/auth', async () => {
    const open = await TestApp.init('open');
    expect((await open.get('/api/auth/methods')).status).toBe(404);
    expect((await open.get('/api/auth/oidc/login')).status).toBe(404);
  });
});

describe('--password-login off', () => {
  test('register and login answer 403 before the body is looked at', async () => {
    const app = await oidcApp({ passwordLogin: false });
    for (const path of ['/api/auth/register', '/api/auth/login']) {
      for (const body of [{ email: 'ann@example.com', password: 'correct horse 42' }, 'no json']) {
        const reply = await app.post(path, body);
        expect([path, reply.status, reply.json]).toEqual([path, 403, { error: M.passwordOff }]);
      }
    }
    // The provider still signs people in.
    expect((await signIn(app, 'ann')).token).toBeString();
  });
});

describe('sign-in through the provider', () => {
  test('the login redirects with PKCE S256, state and nonce, and keeps them in a sealed cookie', async () => {
    const app = await oidcApp();
    const { location, setCookie } = await begin(app);
    const url = new URL(location);
    expect(url.origin).toBe(op.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: CLIENT_ID,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      state: expect.stringMatching(/^[\w-]{20,}$/),
      nonce: expect.stringMatching(/^[\w-]{20,}$/),
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(setCookie).toMatch(
      /^kurz_oidc=[\w-]+; Path=\/api\/auth\/oidc; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    );
    // The cookie holds none of the attempt's secrets in the clear.
    const state = url.searchParams.get('state') as string;
    expect(Buffer.from(setCookie.split(/[=;]/)[1] as string, 'base64url').toString()).not.toContain(
      state,
    );
  });

  test('makes an account, finds it again by subject, and its token works as a password login’s', async () => {
    const app = await oidcApp();
    const first = await signIn(app, 'ann');
    expect(first.reply.status).toBe(200);
    expect(first.reply.headers.get('cache-control')).toBe('private, no-store');
    expect(first.reply.headers.get('referrer-policy')).toBe('no-referrer');
    expect(first.reply.headers.get('x-frame-options')).toBe('DENY');
    expect(first.reply.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(first.reply.headers.get('set-cookie')).toStartWith(
      'kurz_oidc=; Path=/api/auth/oidc; Max-Age=0',
    );
    expect(first.reply.text).toContain(
      '<script type="module" src="/assets/signed-in.js"></script>',
    );
    expect(first.reply.text).toContain('<meta name="kurz-email" content="ann@example.com">');
    const row = await userRow(app, 'ann@example.com');
    expect(row).toMatchObject({ oidc_subject: 'ann', password_hash: '' });
    const links = await app.get('/api/links', { token: first.token });
    expect(links.status).toBe(200);

    const again = await signIn(app, 'ann');
    expect(again.reply.status).toBe(200);
    expect(await app.query('SELECT id FROM users')).toEqual([{ id: row?.id }]);
    // No password signs in to an account made through the provider.
    for (const password of ['', 'correct horse 42']) {
      const login = await app.post('/api/auth/login', { email: 'ann@example.com', password });
      expect([login.status, login.json]).toEqual([401, { error: 'Invalid credentials' }]);
    }
  });

  test('links a password account with the same verified e-mail; both ways sign in', async () => {
    const app = await oidcApp();
    const ann = await app.user('ann@example.com');
    const { reply } = await signIn(app, 'ann');
    expect(reply.status).toBe(200);
    expect(await userRow(app, 'ann@example.com')).toMatchObject({
      id: ann.user?.id,
      oidc_subject: 'ann',
    });
    const login = await app.post('/api/auth/login', {
      email: 'ann@example.com',
      password: 'correct horse 42',
    });
    expect(login.status).toBe(200);
  });

  test('an unverified e-mail neither links nor makes an account', async () => {
    const app = await oidcApp();
    await app.user('bob@example.com');
    const { reply } = await signIn(app, 'bob');
    expect([reply.status, refusal(reply)]).toEqual([403, M.emailUnverified]);
    expect(await userRow(app, 'bob@example.com')).toMatchObject({ oidc_subject: null });
    op.people.set('nobody', { email: 'nobody@example.com', email_verified: false });
    const stranger = await signIn(app, 'nobody');
    expect([stranger.reply.status, refusal(stranger.reply)]).toEqual([403, M.emailUnverified]);
    expect(await userRow(app, 'nobody@example.com')).toBeUndefined();
    expect(app.log.lines.some((line) => line.startsWith('kurz: OIDC sign-in failed:'))).toBe(true);
  });

  test('another subject of the provider does not take over a linked account', async () => {
    const app = await oidcApp();
    expect((await signIn(app, 'ann')).reply.status).toBe(200);
    op.people.set('ann-again', { email: 'ann@example.com', email_verified: true });
    const { reply } = await signIn(app, 'ann-again');
    expect([reply.status, refusal(reply)]).toEqual([403, M.linkedElsewhere]);
  });

  test('a wrong state, a missing or foreign attempt cookie are refused', async () => {
    const app = await oidcApp();
    const { location, cookie } = await begin(app);
    const back = await op.authorize(location, 'ann');
    const tampered = new URL(back);
    tampered.searchParams.set('state', 'not-the-state-kurz-sent');
    for (const [url, withCookie] of [
      [tampered, cookie],
      [back, ''],
      [
        back,
        'kurz_oidc=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      ],
    ] as const) {
      const reply = await callback(app, url, withCookie);
      expect([reply.status, refusal(reply)]).toEqual([400, M.attemptLost]);
    }
    // An instance of another token key cannot open this one's attempts either.
    const other = await oidcApp({ secret: 'another-secret-another-secret-another-0' });
    const reply = await callback(other, back, cookie);
    expect([reply.status, refusal(reply)]).toEqual([400, M.attemptLost]);
    expect(await userRow(app, 'ann@example.com')).toBeUndefined();
  });

  test('an instance sharing the token key (several on PostgreSQL) finishes another’s sign-in', async () => {
    const a = await oidcApp();
    const b = await oidcApp({ store: a.store });
    const { location, cookie } = await begin(a);
    const reply = await callback(b, await op.authorize(location, 'ann'), cookie);
    expect(reply.status).toBe(200);
  });

  test('a code used twice is refused by the provider, and so by kurz', async () => {
    const app = await oidcApp();
    const first = await signIn(app, 'ann');
    expect(first.reply.status).toBe(200);
    const replay = await callback(app, first.back, first.cookie);
    expect([replay.status, refusal(replay)]).toEqual([400, M.unverified]);
    expect(replay.text).not.toContain('kurz-token');
  });

  test('the provider’s refusal is told as such', async () => {
    const app = await oidcApp();
    const { location, cookie } = await begin(app);
    const state = new URL(location).searchParams.get('state');
    const back = new URL(
      `${CALLBACK}?error=access_denied&state=${state}&iss=${encodeURIComponent(op.issuer)}`,
    );
    const reply = await callback(app, back, cookie);
    expect([reply.status, refusal(reply)]).toEqual([403, M.refused]);
  });

  test('a rotated signing key is taken once kurz fetches the JWKS again', async () => {
    const app = await oidcApp();
    expect((await signIn(app, 'ann')).reply.status).toBe(200);
    const before = op.keyId;
    await op.rotateKey();
    expect(op.keyId).not.toBe(before);
    // openid-client fetches the JWKS again for an unknown key once its copy is a minute
    // old (so a flood of forged tokens cannot make it hammer the provider): within that
    // minute the new key is not known yet …
    const early = await signIn(app, 'ann');
    expect([early.reply.status, refusal(early.reply)]).toEqual([400, M.unverified]);
    // … after it, it is fetched and taken.
    setSystemTime(new Date(Date.now() + 61_000));
    try {
      const after = await signIn(app, 'ann');
      expect(after.reply.status).toBe(200);
      expect(after.token).toBeString();
    } finally {
      setSystemTime();
    }
  });

  test('--oidc-allowed-domains lets only those domains in, and even with registration closed', async () => {
    const app = await oidcApp({
      registration: 'closed',
      oidc: { allowedDomains: ['example.com'] },
    });
    const carol = await signIn(app, 'carol');
    expect([carol.reply.status, refusal(carol.reply)]).toEqual([403, M.domain]);
    expect(await userRow(app, 'carol@other.example')).toBeUndefined();
    expect((await signIn(app, 'ann')).reply.status).toBe(200);
    // Unverified: no domain to judge by.
    const bob = await signIn(app, 'bob');
    expect([bob.reply.status, refusal(bob.reply)]).toEqual([403, M.emailUnverified]);
  });

  test('registration closed: only existing accounts get in', async () => {
    const app = await oidcApp({ registration: 'closed' });
    const refused = await signIn(app, 'ann');
    expect([refused.reply.status, refusal(refused.reply)]).toEqual([403, M.closed]);
    expect(await userRow(app, 'ann@example.com')).toBeUndefined();
    await app.store.createUser('ann@example.com', 'a-hash-kurz-user-add-made');
    expect((await signIn(app, 'ann')).reply.status).toBe(200);
  });

  test('the admin claim grants the role at sign-in, and takes it away when it is gone', async () => {
    const app = await oidcApp({
      oidc: {
        scopes: ['openid', 'email', 'groups'],
        adminClaim: { name: 'groups', value: 'kurz-admins' },
      },
    });
    const dave = await signIn(app, 'dave');
    expect(dave.reply.status).toBe(200);
    expect(Boolean((await userRow(app, 'dave@example.com'))?.admin)).toBe(true);
    const ann = await signIn(app, 'ann');
    expect(ann.reply.status).toBe(200);
    expect(Boolean((await userRow(app, 'ann@example.com'))?.admin)).toBe(false);
    // The role is the admin API's: dave's session reaches it, ann's does not.
    expect((await app.get('/api/admin/overview', { token: dave.token })).status).toBe(200);
    expect((await app.get('/api/admin/overview', { token: ann.token })).status).toBe(403);
    const users = await app.get('/api/admin/users', { token: dave.token });
    expect(
      users.json.map((u: { email: string; sign_in: string[] }) => [u.email, u.sign_in]),
    ).toEqual(expect.arrayContaining([['dave@example.com', ['oidc']]]));
    (op.people.get('dave') as { groups: string[] }).groups = ['staff'];
    try {
      expect((await signIn(app, 'dave')).reply.status).toBe(200);
      expect(Boolean((await userRow(app, 'dave@example.com'))?.admin)).toBe(false);
    } finally {
      (op.people.get('dave') as { groups: string[] }).groups = ['staff', 'kurz-admins'];
    }
  });

  test('a disabled account is refused', async () => {
    const app = await oidcApp();
    expect((await signIn(app, 'ann')).reply.status).toBe(200);
    await app.query('UPDATE users SET disabled_at = ? WHERE email = ?', [
      Date.now(),
      'ann@example.com',
    ]);
    const { reply } = await signIn(app, 'ann');
    expect([reply.status, refusal(reply)]).toEqual([403, M.disabled]);
    expect(reply.text).not.toContain('kurz-token');
  });

  test('an issuer that cannot be reached does not stop kurz; the button says so', async () => {
    const app = await oidcApp({ oidc: { issuer: 'http://127.0.0.1:9/nowhere' } });
    const reply = await app.get('/api/auth/oidc/login');
    expect([reply.status, refusal(reply)]).toEqual([503, M.unavailable]);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(app.log.lines.join('\n')).toContain('http://127.0.0.1:9/nowhere cannot be discovered');
    // Password sign-in is untouched.
    expect(
      (
        await app.post('/api/auth/register', {
          email: 'x@example.com',
          password: 'correct horse 42',
        })
      ).status,
    ).toBe(200);
  });
});

/**
 * A provider made by hand, for what a certified one never sends: discovery, its JWKS and
 * a token endpoint whose ID token the test shapes.
 */
async function handMadeProvider(
  shape: (claims: Record<string, unknown>) => Record<string, unknown>,
  forged = false,
) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let nonce = '';
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (request): Promise<Response> => {
      const { pathname } = new URL(request.url);
      const issuer: string = `http://127.0.0.1:${server.port}`;
      if (pathname === '/.well-known/openid-configuration') {
        return Response.json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        });
      }
      if (pathname === '/jwks') return Response.json({ keys: [jwk] });
      if (pathname === '/token') {
        const now = Math.floor(Date.now() / 1000);
        const claims = shape({
          iss: issuer,
          sub: 'mallory',
          aud: CLIENT_ID,
          iat: now,
          exp: now + 300,
          nonce,
          email: 'ann@example.com',
          email_verified: true,
        });
        const idToken = await new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .sign(forged ? other.privateKey : privateKey);
        return Response.json({ access_token: 'at', token_type: 'Bearer', id_token: idToken });
      }
      return new Response('not found', { status: 404 });
    },
  });
  return {
    issuer: `http://127.0.0.1:${server.port}`,
    /** The nonce of kurz's authorization request, put into the next ID token. */
    expect(location: string) {
      nonce = new URL(location).searchParams.get('nonce') ?? '';
      return new URL(
        `${CALLBACK}?code=a-code&state=${new URL(location).searchParams.get('state')}`,
      );
    },
    stop: () => server.stop(true),
  };
}

describe('the pages of a sign-in, in the browser’s language', () => {
  const SIGNED_IN = {
    de: ['Angemeldet', 'kurz wird geöffnet…', 'Dieser Browser speichert keine Daten'],
    fr: ['Connecté', 'Ouverture de kurz…', 'Ce navigateur ne conserve aucune donnée'],
    es: ['Sesión iniciada', 'Abriendo kurz…', 'Este navegador no guarda datos'],
  } as const;

  test.each(Object.entries(SIGNED_IN))(
    'signed in, %s: the page and the texts of its script',
    async (language, [title, opening, noStorage]) => {
      const app = await oidcApp();
      const { reply, token } = await signIn(app, 'ann', { 'accept-language': language });
      expect(reply.status).toBe(200);
      expect(token).toBeString();
      expect(reply.headers.get('content-language')).toBe(language);
      expect(reply.headers.get('vary')).toBe('Cookie, Accept-Language');
      expect(reply.text).toContain(`<html lang="${language}" dir="ltr">`);
      expect(reply.text).toContain(`<title>${title}</title>`);
      expect(reply.text).toContain(`role="status">${opening}</p>`);
      // The script's texts as data, before the script; the policy runs no inline script.
      const block =
        /<script type="application\/json" id="kurz-messages">([^<]*)<\/script>\n<script type="module" src="\/assets\/signed-in.js">/.exec(
          reply.text,
        );
      const messages = JSON.parse(block?.[1] ?? '{}') as Record<string, string>;
      expect(messages['oidc.signedIn.noStorage']).toStartWith(noStorage);
      expect(Object.keys(messages).every((key) => /^(\$|oidc\.signedIn\.)/.test(key))).toBe(true);
      expect(reply.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    },
  );

  test('a refusal says why in the language; the kurz-lang cookie beats Accept-Language', async () => {
    const app = await oidcApp({ registration: 'closed' });
    const closed = await signIn(app, 'ann', { 'accept-language': 'fr-FR,fr;q=0.9' });
    expect(closed.reply.status).toBe(403);
    expect(closed.reply.text).toContain('<html lang="fr" dir="ltr">');
    expect(closed.reply.text).toContain('<title>Échec de la connexion</title>');
    expect(refusal(closed.reply)).toStartWith('Les inscriptions sont fermées');
    expect(closed.reply.text).toContain('<a href="/">Retour à la page de connexion</a>');

    const lost = await app.get('/api/auth/oidc/callback?state=x&code=y', {
      headers: { 'accept-language': 'fr', cookie: 'kurz-lang=de' },
    });
    expect(lost.status).toBe(400);
    expect(lost.headers.get('content-language')).toBe('de');
    expect(refusal(lost)).toBe(
      'Dieser Anmeldeversuch ist abgelaufen oder wurde in einem anderen Fenster begonnen. Bitte erneut anmelden.',
    );
    const english = await app.get('/api/auth/oidc/callback?state=x&code=y', {
      headers: { 'accept-language': 'ja' },
    });
    expect([english.headers.get('content-language'), refusal(english)]).toEqual([
      'en',
      M.attemptLost,
    ]);
  });

  test('in English, a refusal says exactly what the interface names', () => {
    const pairs = Object.entries(FAILURE_KEYS).map(([message, key]) => [
      translator('en').t(key),
      Messages[message as keyof typeof Messages],
    ]);
    for (const [text, message] of pairs) expect(text).toBe(message as string);
    expect(pairs.length).toBe(9);
  });
});

describe('ID tokens a certified provider would never send', () => {
  test.each([
    [
      'for another audience',
      (c: Record<string, unknown>) => ({ ...c, aud: 'someone-else' }),
      false,
    ],
    [
      'of another issuer',
      (c: Record<string, unknown>) => ({ ...c, iss: 'https://evil.example' }),
      false,
    ],
    [
      'expired',
      (c: Record<string, unknown>) => ({ ...c, exp: Math.floor(Date.now() / 1000) - 600 }),
      false,
    ],
    [
      'with another nonce',
      (c: Record<string, unknown>) => ({ ...c, nonce: 'not-this-one' }),
      false,
    ],
    ['signed by another key', (c: Record<string, unknown>) => c, true],
  ])('an ID token %s is refused', async (_what, shape, forged) => {
    const fake = await handMadeProvider(shape, forged);
    try {
      const app = await TestApp.init('accounts', {
        oidc: { issuer: fake.issuer, clientId: CLIENT_ID },
      });
      await app.user('ann@example.com');
      const { location, cookie } = await begin(app);
      const reply = await callback(app, fake.expect(location), cookie);
      expect([reply.status, refusal(reply)]).toEqual([400, M.unverified]);
      expect(await userRow(app, 'ann@example.com')).toMatchObject({ oidc_subject: null });
    } finally {
      fake.stop();
    }
  });

  test('a provider gone between the start and the callback is told as unreachable', async () => {
    const fake = await handMadeProvider((c) => c);
    const app = await TestApp.init('accounts', {
      oidc: { issuer: fake.issuer, clientId: CLIENT_ID },
    });
    const { location, cookie } = await begin(app);
    fake.stop();
    const reply = await callback(app, fake.expect(location), cookie);
    expect([reply.status, refusal(reply)]).toEqual([503, M.unavailable]);
  });

  test('the same provider’s well-formed token signs in (the refusals above are the checks’)', async () => {
    const fake = await handMadeProvider((c) => c);
    try {
      const app = await TestApp.init('accounts', {
        oidc: { issuer: fake.issuer, clientId: CLIENT_ID },
      });
      const { location, cookie } = await begin(app);
      const reply = await callback(app, fake.expect(location), cookie);
      expect(reply.status).toBe(200);
    } finally {
      fake.stop();
    }
  });
});
