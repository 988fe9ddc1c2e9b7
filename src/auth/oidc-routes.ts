// GET /api/auth/oidc/login and /api/auth/oidc/callback: sign-in through the OpenID
// Provider (accounts mode, with --oidc-issuer). The browser goes to the provider with a
// sealed attempt cookie and comes back with a code; the callback checks it all, finds or
// makes the account (oidc-accounts.ts) and hands kurz's own token to the web UI in a page
// (oidc-pages.ts). Every failure ends on a page that says what went wrong, and one log line.

import { Elysia, t } from 'elysia';
import type { Registration } from '../config/config.ts';
import { type Message, Messages } from '../domain/errors.ts';
import { withHeaderSchemas } from '../http/model.ts';
import type { Logger } from '../logger.ts';
import type { OidcAccountStore } from '../store/accounts.ts';
import type { ModerationStore } from '../store/moderation.ts';
import { OidcPage } from './model.ts';
import { OidcRefusal, oidcAccount } from './oidc-accounts.ts';
import {
  ATTEMPT_COOKIE,
  attemptCookie,
  clearedAttemptCookie,
  cookieValue,
  openAttempt,
  sealAttempt,
} from './oidc-attempt.ts';
import { OidcError, type OidcFailure, type RelyingParty } from './oidc-client.ts';
import { signedInPage, signInFailedPage } from './oidc-pages.ts';
import { issueSession } from './session.ts';
import type { TokenKey } from './tokens.ts';

export const OIDC_LOGIN_PATH = '/api/auth/oidc/login';

export interface OidcRoutesOptions {
  party: RelyingParty;
  store: OidcAccountStore & Pick<ModerationStore, 'setUserAdmin'>;
  secret: TokenKey;
  tokenTtlSeconds: number;
  registration: Registration;
  /** The public address: https decides the cookie's Secure flag. */
  baseUrl: () => string;
  log: Logger;
}

const FAILURES: Record<OidcFailure, { status: number; message: Message }> = {
  unavailable: { status: 503, message: Messages.oidcUnavailable },
  refused: { status: 403, message: Messages.oidcRefused },
  unverified: { status: 400, message: Messages.oidcUnverified },
};

export function oidcRoutes(options: OidcRoutesOptions) {
  const { party, store, secret, log } = options;
  const secure = () => options.baseUrl().startsWith('https:');
  const rules = {
    allowedDomains: party.settings.allowedDomains,
    adminClaim: party.settings.adminClaim,
    registration: options.registration,
  };
  /** What went wrong, for the person on the page and in one line for the operator. */
  const failed = (request: Request, status: number, message: Message, why: string) => {
    log.error(`kurz: OIDC sign-in failed: ${why}`);
    const headers = { 'set-cookie': clearedAttemptCookie(secure()) };
    return signInFailedPage(status, message, headers, request);
  };

  return new Elysia({ name: 'kurz/oidc-routes' })
    .get(
      OIDC_LOGIN_PATH,
      async ({ request }) => {
        let begun: Awaited<ReturnType<RelyingParty['begin']>>;
        try {
          begun = await party.begin();
        } catch (error) {
          const { status, message } = FAILURES.unavailable;
          return failed(
            request,
            status,
            message,
            error instanceof Error ? error.message : String(error),
          );
        }
        return new Response(null, {
          status: 302,
          headers: {
            location: begun.url.href,
            'set-cookie': attemptCookie(await sealAttempt(secret, begun.attempt), secure()),
            'cache-control': 'no-store',
          },
        });
      },
      {
        response: {
          302: withHeaderSchemas(
            t.Void({
              description:
                'To the provider, with PKCE (S256), `state` and `nonce`; the attempt is kept, sealed, in an HttpOnly cookie for ten minutes.',
            }),
            {
              Location: t.String({ description: "The provider's authorization endpoint." }),
              'Set-Cookie': t.String({ description: 'The sealed attempt.' }),
            },
          ),
          503: OidcPage(
            `A page saying \`${Messages.oidcUnavailable}\`: the provider was not discovered yet (kurz keeps trying).`,
          ),
        },
        detail: {
          operationId: 'oidcLogin',
          tags: ['accounts'],
          summary: 'Sign in through the OpenID Provider',
          description:
            'Where the sign-in button leads: a browser navigation, not an API call. Only with `--oidc-issuer`.',
        },
      },
    )
    .get(
      '/api/auth/oidc/callback',
      async ({ request }) => {
        const query = new URL(request.url).searchParams;
        const attempt = await openAttempt(
          secret,
          cookieValue(request.headers.get('cookie'), ATTEMPT_COOKIE),
        );
        if (attempt === undefined) {
          return failed(
            request,
            400,
            Messages.oidcAttemptLost,
            'no attempt cookie, or an expired one',
          );
        }
        if (query.get('state') !== attempt.state) {
          return failed(
            request,
            400,
            Messages.oidcAttemptLost,
            'the state does not match the attempt',
          );
        }
        let account: Awaited<ReturnType<typeof oidcAccount>>;
        try {
          const wanted = ['email', 'email_verified'];
          if (rules.adminClaim !== undefined) wanted.push(rules.adminClaim.name);
          const { identity, claims } = await party.finish(query, attempt, wanted);
          try {
            account = await oidcAccount(store, rules, identity, claims);
          } catch (error) {
            if (!(error instanceof OidcRefusal)) throw error;
            const email = typeof claims.email === 'string' ? claims.email : 'no e-mail';
            return failed(request, error.status, error.message, `${error.message} (${email})`);
          }
        } catch (error) {
          if (!(error instanceof OidcError)) throw error;
          const { status, message } = FAILURES[error.failure];
          return failed(request, status, message, error.detail);
        }
        const session = await issueSession(secret, options.tokenTtlSeconds, account);
        log.info(`kurz: ${account.email} signed in through the OpenID Provider`);
        const headers = { 'set-cookie': clearedAttemptCookie(secure()) };
        return signedInPage(session, headers, request);
      },
      {
        query: t.Object(
          {
            code: t.Optional(t.String({ description: 'The authorization code.' })),
            state: t.Optional(t.String({ description: 'The attempt, as sent at the start.' })),
            error: t.Optional(t.String({ description: "The provider's refusal." })),
          },
          { additionalProperties: true },
        ),
        response: {
          200: OidcPage(
            "Signed in: a page that keeps kurz's token (as a password login's) in the browser and opens the web UI. The token is never in a URL.",
          ),
          400: OidcPage(
            `A page saying \`${Messages.oidcAttemptLost}\` (no attempt cookie, an expired one, another \`state\`) or \`${Messages.oidcUnverified}\` (a code used twice, an ID token that fails a check).`,
          ),
          403: OidcPage(
            `A page saying why kurz refused the sign-in: \`${Messages.oidcRefused}\`, \`${Messages.oidcEmailUnverified}\`, \`${Messages.oidcDomain}\`, \`${Messages.oidcRegistrationClosed}\`, \`${Messages.oidcLinkedElsewhere}\` or \`${Messages.accountDisabled}\`.`,
          ),
          503: OidcPage(`A page saying \`${Messages.oidcUnavailable}\`.`),
        },
        detail: {
          operationId: 'oidcCallback',
          tags: ['accounts'],
          summary: 'Come back from the OpenID Provider',
          description:
            "The redirect URI to register at the provider: `{base_url}/api/auth/oidc/callback`. Finds the account by the provider's subject, else links the account with the same verified e-mail, else makes one (unless registration is closed). kurz then issues its own token, as a password login does.",
        },
      },
    );
}
