// POST /api/auth/register and /api/auth/login (accounts mode only).

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
import { LoginBody, RegisterBody, Session } from './model.ts';
import type { PasswordHasher } from './passwords.ts';
import type { TokenKey } from './tokens.ts';

export interface AuthRoutesOptions {
  /** closed: registering answers 403 `Registration is closed`, before the body is checked. */
  registration: Registration;
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
  return new Elysia({ name: 'kurz/auth-routes' })
    .resolve(({ set }) => ({
      /** The register/login answer: a fresh token and the public user. */
      session: async (user: User & { tokenVersion: number }): Promise<Static<typeof Session>> => {
        // A token is a credential: no cache, shared or the browser's own, may keep it.
        set.headers['cache-control'] = 'no-store';
        const exp = Math.floor(Date.now() / 1000) + tokenTtlSeconds;
        const token = await secret.sign({ sub: String(user.id), exp, ver: user.tokenVersion });
        return { token, user: { id: user.id, email: user.email } };
      },
    }))
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
        transform: [registrationOpen, perClient(limits?.register, clientOf), requireJsonObject],
        body: RegisterBody,
        response: {
          200: Session,
          ...errorResponses(400, 408, 413, 429, 500, 503),
          403: errorResponse(403, {
            description: `\`Registration is closed\`: the operator started kurz with \`--registration closed\`. ${BROWSER_REFUSALS}`,
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
        const ok = user
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
        transform: [perClientLeft(limits?.login, clientOf), requireJsonObject],
        body: LoginBody,
        response: {
          200: Session,
          ...errorResponses(400, 408, 413, 429, 500, 503),
          401: errorResponse(401, {
            description: '`Invalid credentials`: no account has this e-mail and password.',
          }),
          403: errorResponse(403, {
            description: `\`Account disabled\`: an admin disabled the account (the password was right). ${BROWSER_REFUSALS}`,
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
