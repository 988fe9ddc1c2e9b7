// A real OpenID Provider for the sign-in tests: oidc-provider (a certified implementation)
// on a free port of 127.0.0.1, in this process, with one client (kurz), a few people
// (verified e-mail or not, in a group or not) and a signing key that a test can rotate.
// People sign in on a tiny form of its own (the interaction page), or at once when a
// test names who comes next; `authorize()` walks a sign-in without a browser.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
// @ts-expect-error: oidc-provider ships no types; the few calls below are checked by the tests.
import Provider from 'oidc-provider';
import { atCleanUp } from './cleanup.ts';

export interface Person {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

/** The people of a fresh provider, by their subject. */
export const PEOPLE: Record<string, Person> = {
  ann: { email: 'ann@example.com', email_verified: true, name: 'Ann' },
  // Typed an address the provider never checked.
  bob: { email: 'bob@example.com', email_verified: false, name: 'Bob' },
  carol: { email: 'carol@other.example', email_verified: true, name: 'Carol' },
  dave: { email: 'dave@example.com', email_verified: true, groups: ['staff', 'kurz-admins'] },
};

export const CLIENT_ID = 'kurz';
export const CLIENT_SECRET = 'a-client-secret-of-the-test-provider';

// biome-ignore lint/suspicious/noExplicitAny: oidc-provider has no types
type AnyProvider = any;

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: 'RS256', use: 'sig' };
}

export class TestProvider {
  readonly people = new Map(Object.entries(PEOPLE).map(([sub, p]) => [sub, { ...p }]));
  /** Who signs in at the next interaction, without the form; undefined: the form asks. */
  nextLogin: string | undefined;
  private provider: AnyProvider;
  private key!: JWK;
  private readonly redirectUris = new Set<string>();
  private readonly cookieKeys = [crypto.randomUUID()];

  private constructor(
    readonly issuer: string,
    private readonly server: ReturnType<typeof createServer>,
  ) {}

  /** A provider on a free port; `redirectUris` are kurz's callback addresses. */
  static async start(redirectUris: string[] = []): Promise<TestProvider> {
    let handle: (req: IncomingMessage, res: ServerResponse) => void = () => {};
    const server = createServer((req, res) => handle(req, res));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const op = new TestProvider(`http://127.0.0.1:${port}`, server);
    for (const uri of redirectUris) op.redirectUris.add(uri);
    op.key = await signingKey();
    op.rebuild();
    handle = (req, res) => void op.serve(req, res);
    atCleanUp(() => op.close());
    return op;
  }

  /** Lets kurz at `uri` (its callback) be a redirect URI of the client. */
  allowRedirect(uri: string): void {
    this.redirectUris.add(uri);
    this.rebuild();
  }

  /** A new signing key replaces the old one, which the JWKS no longer lists. */
  async rotateKey(): Promise<void> {
    this.key = await signingKey();
    this.rebuild();
  }

  /** The current key's id. */
  get keyId(): string {
    return this.key.kid as string;
  }

  close(): Promise<void> {
    return new Promise((done) => {
      this.server.closeAllConnections?.();
      this.server.close(() => done());
    });
  }

  /**
   * A provider of the current settings. Interactions, sessions and codes are kept by
   * oidc-provider's memory adapter, which all instances of the process share, so one in
   * flight survives a rebuild.
   */
  private rebuild(): void {
    const people = this.people;
    this.provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [...this.redirectUris],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [this.key] },
      cookies: { keys: this.cookieKeys },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name'],
        groups: ['groups'],
      },
      pkce: { required: () => true },
      ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
      features: { devInteractions: { enabled: false } },
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
      },
      findAccount: (_ctx: unknown, sub: string) => {
        const person = people.get(sub);
        if (person === undefined) return undefined;
        return { accountId: sub, claims: () => ({ sub, ...person }) };
      },
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const provider = this.provider;
    const uid = /^\/interaction\/([^/?]+)/.exec(req.url ?? '')?.[1];
    if (uid === undefined) {
      provider.callback()(req, res);
      return;
    }
    try {
      let login = this.nextLogin;
      if (login === undefined && req.method === 'POST') {
        login = new URLSearchParams(await bodyOf(req)).get('login') ?? undefined;
      }
      if (login === undefined) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><title>Test provider</title><h1>Sign in to the test provider</h1>
<form method="post" action="/interaction/${uid}"><label>Login <input name="login" id="login"></label>
<button type="submit" id="sign-in">Sign in</button></form>`);
        return;
      }
      this.nextLogin = undefined;
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: login, clientId: details.params.client_id });
      grant.addOIDCScope(details.params.scope);
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: login }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    }
  }

  /**
   * Walks the provider's side of a sign-in without a browser: from kurz's redirect to
   * `authorizationUrl`, `login` signs in, and the provider's redirect back to kurz is
   * returned (its code and state in the query; or an error).
   */
  async authorize(authorizationUrl: string, login: string): Promise<URL> {
    this.nextLogin = login;
    const jar = new Map<string, string>();
    let url = authorizationUrl;
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const eq = pair.indexOf('=');
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = response.headers.get('location');
      if (location === null) {
        throw new Error(
          `the provider stopped at ${url}: ${response.status} ${await response.text()}`,
        );
      }
      const next = new URL(location, url);
      if (!next.href.startsWith(this.issuer)) return next;
      url = next.href;
    }
    throw new Error('the provider redirected too often');
  }
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}
