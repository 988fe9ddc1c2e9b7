// POST /api/auth/register and /api/auth/login, and GET /api/auth/methods, which tells a
// sign-in page which of them (and which OpenID Provider) it may offer (accounts mode only).

import type { Static } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type { Registration } from '../config/config.ts';
import { normalizeEmail, parseRegistration, requireCredentials } from '../domain/accounts.ts';
import { ApiError, badRequest, Messages } from '../domain/errors.ts';
import { parseJsonBody, requireJsonObject } from '../http/body.ts';
import { BROWSER_REFUSALS, errorResponse, errorResponses } from '../http/model.ts';
import {
  type AbuseLimits,
  type ClientOf,
  clientKey,
  perClient,
  perClientLeft,
} from '../net/abuse-limits.ts';
import type { Store, User } from '../store/store.ts';
import { LoginBody, RegisterBody, Session, SignInMethods } from './model.ts';
import { OIDC_LOGIN_PATH } from './oidc-routes.ts';
import type { PasswordHasher } from './passwords.ts';
import { issueSession } from './session.ts';
import type { TokenKey } from './tokens.ts';

export interface AuthRoutesOptions {
  /** closed: registering answers 403 `Registration is closed`, before the body is checked. */
  registration: Registration;
  /** false (--password-login off): register and login answer 403, before the body is checked. */
  passwordLogin: boolean;
  /** The OpenID Provider's button, when one is configured (--oidc-issuer, --oidc-name). */
  oidc: { name: string } | undefined;
  store: Store;
  secret: TokenKey;
  tokenTtlSeconds: number;
  passwords: PasswordHasher;
  /** Rate limits; undefined when off. */
  limits: AbuseLimits | undefined;
  clientOf: ClientOf;
}

export function authRoutes(options: AuthRoutesOptions) {
  const { store, secret, tokenTtlSeconds, passwords, limits, clientOf } = options;
  const registrationOpen = () => {
    if (options.registration === 'closed') throw new ApiError(403, Messages.registrationClosed);
  };
  const passwordsOn = () => {
    if (!options.passwordLogin) throw new ApiError(403, Messages.passwordLoginOff);
  };
  const methods: Static<typeof SignInMethods> = {
    password: options.passwordLogin,
    registration: options.registration,
    oidc: options.oidc ? { name: options.oidc.name, login_url: OIDC_LOGIN_PATH } : null,
  };
  return new Elysia({ name: 'kurz/auth-routes' })
    .resolve(({ set }) => ({
      /** The register/login answer: a fresh token and the public user. */
      session: (user: User & { tokenVersion: number }): Promise<Static<typeof Session>> => {
        // A token is a credential: no cache, shared or the browser's own, may keep it.
        set.headers['cache-control'] = 'no-store';
        return issueSession(secret, tokenTtlSeconds, user);
      },
    }))
    .get('/api/auth/methods', () => methods, {
      response: { 200: SignInMethods, ...errorResponses(500) },
      detail: {
        operationId: 'signInMethods',
        tags: ['accounts'],
        summary: 'How people may sign in',
        description:
          "Needs no token. What the web UI's sign-in page offers: the password form (unless `--password-login off`), registration, and the OpenID Provider's button.",
      },
    })
    .post(
      '/api/auth/register',
      async ({ body, session }) => {
        const { email, password } = parseRegistration(body);
        const user = await store.createUser(email, await passwords.hash(password));
        if (user === undefined) throw badRequest(Messages.emailTaken);
        return session({ ...user, tokenVersion: 0 });
      },
      {
        parse: parseJsonBody,
        transform: [
          passwordsOn,
          registrationOpen,
          perClient(limits?.register, clientOf),
          requireJsonObject,
        ],
        body: RegisterBody,
        response: {
          200: Session,
          ...errorResponses(400, 408, 413, 429, 500, 503),
          403: errorResponse(403, {
            description: `\`${Messages.passwordLoginOff}\`: the operator started kurz with \`--password-login off\`. \`Registration is closed\`: the operator started kurz with \`--registration closed\`. ${BROWSER_REFUSALS}`,
          }),
        },
        detail: {
          operationId: 'register',
          tags: ['accounts'],
          summary: 'Register',
          description:
            'Creates an account and answers with a token, unless registration is closed (403, before the body is checked). Checks, in order: both fields present (`Email and password are required`), the e-mail (`Invalid email address`), the password length (`Password must be 8 to 1024 characters long`), then `Email already registered`.',
        },
      },
    )
    .post(
      '/api/auth/login',
      async ({ body, session, request, server }) => {
        const given = requireCredentials(body);
        const email = normalizeEmail(given.email);
        // Failed logins per e-mail, from any address: a slow guesser spread over many
        // addresses is stopped too. Checked before the password, so a locked account
        // says nothing about the password tried.
        if (email !== undefined) limits?.loginEmail.enforceLeft(email);
        const user = email === undefined ? undefined : await store.findUserByEmail(email);
        // An account made through the OpenID Provider has no password (its hash is ''):
        // it is refused as a wrong password is, in the same time.
        const ok =
          user && user.passwordHash !== ''
            ? await passwords.verify(given.password, user.passwordHash)
            : await passwords.verifyNothing(given.password);
        if (!user || !ok) {
          if (limits !== undefined) {
            limits.login.take(clientKey(clientOf, request, server));
            if (email !== undefined) limits.loginEmail.take(email);
          }
          throw new ApiError(401, Messages.invalidCredentials);
        }
        if (email !== undefined) limits?.loginEmail.reset(email);
        // Told only to whoever knows the password: a disabled account is no secret to them.
        if (user.disabledAt !== null) throw new ApiError(403, Messages.accountDisabled);
        return session(user);
      },
      {
        parse: parseJsonBody,
        // Failed logins are counted; once they are spent the limit answers before
        // anything of the body is looked at.
        transform: [passwordsOn, perClientLeft(limits?.login, clientOf), requireJsonObject],
        body: LoginBody,
        response: {
          200: Session,
          ...errorResponses(400, 408, 413, 429, 500, 503),
          401: errorResponse(401, {
            description: '`Invalid credentials`: no account has this e-mail and password.',
          }),
          403: errorResponse(403, {
            description: `\`Account disabled\`: an admin disabled the account (the password was right). \`${Messages.passwordLoginOff}\`: the operator started kurz with \`--password-login off\`. ${BROWSER_REFUSALS}`,
          }),
        },
        detail: {
          operationId: 'login',
          tags: ['accounts'],
          summary: 'Log in',
          description:
            'Answers with a fresh token. A wrong password, an unknown or malformed e-mail are all `401 Invalid credentials`, in about the same time.',
        },
      },
    );
}
