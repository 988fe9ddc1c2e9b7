// kurz as an OpenID Connect relying party, through openid-client (a certified library):
// discovery of the provider, the authorization URL (code flow with PKCE S256, state and
// nonce), and the callback's code exchange with the ID token checked (signature through
// the provider's JWKS, iss, aud, exp, nonce). Only the claims kurz acts on leave here.
//
// Discovery runs in the background from start-up: a provider that cannot be reached does
// not stop kurz; it is tried again with a growing pause, and also when someone clicks the
// sign-in button (at most every few seconds), so the button works as soon as it is back.
// openid-client keeps the provider's JWKS for five minutes and fetches it again when an
// ID token names a key it lacks (at most once a minute): a rotated key is picked up.

import * as client from 'openid-client';
import type { OidcSettings } from '../config/config.ts';
import type { Claims } from '../domain/oidc.ts';
import type { Logger } from '../logger.ts';
import type { OidcIdentity } from '../store/accounts.ts';
import { ATTEMPT_TTL_MS, type Attempt } from './oidc-attempt.ts';

/** Why a sign-in could not finish, each told in its own words (Messages.oidc…). */
export type OidcFailure = 'unavailable' | 'refused' | 'unverified';

export class OidcError extends Error {
  constructor(
    readonly failure: OidcFailure,
    /** For the log: the provider's error code or the library's message, never a secret. */
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'OidcError';
  }
}

/** What the callback learned: who the person is, and the claims about them. */
export interface OidcResult {
  identity: OidcIdentity;
  claims: Claims;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 5 * 60_000;
/** A click retries discovery itself no more often than this. */
const CLICK_RETRY_MS = 5000;
/** Seconds each request to the provider may take. */
const TIMEOUT_S = 10;

export interface RelyingPartyOptions {
  settings: OidcSettings & { issuer: string; clientId: string };
  /** `{base_url}/api/auth/oidc/callback`; a function, as the base URL may be known late. */
  redirectUri: () => string;
  log: Logger;
}

export class RelyingParty {
  private config: client.Configuration | undefined;
  private discovering: Promise<client.Configuration | undefined> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private pause = FIRST_RETRY_MS;
  private lastTry = 0;
  private stopped = false;
  readonly settings: RelyingPartyOptions['settings'];

  constructor(private readonly options: RelyingPartyOptions) {
    this.settings = options.settings;
  }

  /** The issuer, as configured (the identity's issuer). */
  get issuer(): string {
    return this.settings.issuer;
  }

  /** Starts discovery in the background. */
  start(): void {
    void this.discover();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
  }

  /** Discovered, or tried once more now when the last try is a few seconds old. */
  private async ready(): Promise<client.Configuration> {
    if (this.config !== undefined) return this.config;
    const config =
      this.discovering ??
      (Date.now() - this.lastTry >= CLICK_RETRY_MS ? this.discover() : undefined);
    const found = await config;
    if (found === undefined) throw new OidcError('unavailable', 'the provider was not discovered');
    return found;
  }

  private discover(): Promise<client.Configuration | undefined> {
    clearTimeout(this.retry);
    this.lastTry = Date.now();
    const { issuer, clientId, clientSecret } = this.settings;
    this.discovering = client
      .discovery(
        new URL(issuer),
        clientId,
        undefined,
        clientSecret === undefined ? client.None() : client.ClientSecretBasic(clientSecret),
        {
          timeout: TIMEOUT_S,
          execute: [
            // The ID token comes straight from the token endpoint, where OpenID Connect
            // lets TLS stand in for its signature; kurz checks the signature all the same,
            // against the provider's JWKS, so a token is the provider's whatever the path.
            client.enableNonRepudiationChecks,
            // Plain http is let through for a provider on this machine only (oidc-flags.ts).
            ...(issuer.startsWith('http:') ? [client.allowInsecureRequests] : []),
          ],
        },
      )
      .then(
        (config) => {
          config.timeout = TIMEOUT_S;
          if (this.pause > FIRST_RETRY_MS) {
            this.options.log.info(`kurz: the OpenID Provider ${issuer} is reachable`);
          }
          this.config = config;
          return config;
        },
        (error: unknown) => {
          if (this.pause === FIRST_RETRY_MS) {
            this.options.log.error(
              `kurz: the OpenID Provider ${issuer} cannot be discovered (${describe(error)}); sign-in through it waits, trying again with growing pauses up to ${LAST_RETRY_MS / 60_000} min`,
            );
          }
          if (!this.stopped) {
            this.retry = setTimeout(() => void this.discover(), this.pause);
            this.retry.unref?.();
            this.pause = Math.min(this.pause * 2, LAST_RETRY_MS);
          }
          return undefined;
        },
      )
      .finally(() => {
        this.discovering = undefined;
      });
    return this.discovering;
  }

  /** A new attempt and the provider's address to send the browser to. */
  async begin(): Promise<{ url: URL; attempt: Attempt }> {
    const config = await this.ready();
    const attempt: Attempt = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      expires: Date.now() + ATTEMPT_TTL_MS,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri(),
      scope: this.settings.scopes.join(' '),
      state: attempt.state,
      nonce: attempt.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
      code_challenge_method: 'S256',
    });
    return { url, attempt };
  }

  /**
   * Exchanges the code of the callback's `query` and checks the ID token; fills claims the
   * ID token lacks (`wanted`) from the userinfo endpoint, for the same subject.
   */
  async finish(query: URLSearchParams, attempt: Attempt, wanted: string[]): Promise<OidcResult> {
    const config = await this.ready();
    // The redirect URI sent at the start, whatever address this request came in under
    // (a reverse proxy's own, say): the provider compares the two.
    const current = new URL(this.options.redirectUri());
    current.search = query.toString();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: attempt.verifier,
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw classify(error);
    }
    const idToken = tokens.claims();
    if (idToken === undefined) throw new OidcError('unverified', 'no ID token');
    let claims: Record<string, unknown> = { ...idToken };
    const missing = wanted.filter((name) => !(name in idToken));
    if (missing.length > 0 && config.serverMetadata().userinfo_endpoint !== undefined) {
      try {
        const info = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
        // The ID token's own claims stand; the userinfo answer fills the gaps as a whole
        // (an e-mail never comes from one and its verification from the other).
        const filled = Object.fromEntries(missing.map((name) => [name, info[name]]));
        if (!('email' in idToken)) filled.email_verified = info.email_verified;
        claims = { ...filled, ...claims };
      } catch (error) {
        throw classify(error);
      }
    }
    return { identity: { issuer: this.settings.issuer, subject: idToken.sub }, claims };
  }
}

/**
 * An openid-client failure as one of OidcFailure, with a line for the log: the provider's
 * refusal, a check that failed (openid-client's and jose's errors carry an OAUTH_ or
 * ERR_ code), or else the provider not answering (a refused connection, a timeout).
 */
function classify(error: unknown): OidcError {
  if (error instanceof OidcError) return error;
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcError('refused', `the provider answered ${error.error}`);
  }
  if (error instanceof client.ResponseBodyError) {
    return new OidcError('unverified', `the token endpoint answered ${error.error}`);
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  const checked =
    typeof code === 'string' &&
    /^(OAUTH_|ERR_J)/.test(code) &&
    !/^OAUTH_(TIMEOUT|ABORT)$/.test(code);
  return new OidcError(checked ? 'unverified' : 'unavailable', describe(error));
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
