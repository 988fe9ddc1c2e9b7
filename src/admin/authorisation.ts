// Who may administer the instance (/api/admin/*): in accounts mode an admin user with
// their session token, and in both modes the operator's --admin-token. An API key never
// does, whatever its scope or owner (403): a leaked script key must not reach other
// users' accounts. Derived for every admin route before its body is validated, as the
// owner plugin is, so refusals come before 400s.

import { Elysia } from 'elysia';
import { bearerIs } from '../auth/admin.ts';
import { grantOf, isApiKey } from '../auth/api-keys.ts';
import { sessionOf } from '../auth/owner.ts';
import { bearerToken, type TokenKey } from '../auth/tokens.ts';
import type { Mode } from '../config/config.ts';
import { ApiError, forbidden, Messages, unauthorized } from '../domain/errors.ts';
import type { Store } from '../store/store.ts';

export interface AdminAccessOptions {
  mode: Mode;
  store: Store;
  secret: TokenKey;
  /** The operator's token (--admin-token); undefined: none configured. */
  adminToken: string | undefined;
}

/** Who is administering: an admin user, or the operator's token (`userId` null). */
export interface Administrator {
  userId: number | null;
}

/** The admin a request stands for, or the refusal (401, 403) it gets. */
export function adminResolver(options: AdminAccessOptions) {
  const { mode, store, secret, adminToken } = options;
  const isToken = adminToken === undefined ? () => false : bearerIs(adminToken);
  return async (request: Request): Promise<Administrator> => {
    if (isToken(request)) return { userId: null };
    if (mode === 'open') {
      if (adminToken === undefined) throw new ApiError(403, Messages.adminApiMissing);
      throw unauthorized();
    }
    const credential = bearerToken(request.headers.get('authorization'));
    if (credential === undefined) throw unauthorized();
    if (isApiKey(credential)) {
      // A key that is no key (revoked, its user disabled) is 401 as anywhere else.
      if ((await grantOf(store, credential)) === undefined) throw unauthorized();
      throw forbidden();
    }
    const session = await sessionOf(credential, secret, store);
    if (!session.admin) throw forbidden();
    return { userId: session.id };
  };
}

/** The plugin the admin routes use: `admin` in their context, or the refusal. */
export function adminPlugin(options: AdminAccessOptions) {
  const resolve = adminResolver(options);
  return new Elysia({ name: 'kurz/admin-access', seed: options.mode }).derive(
    { as: 'scoped' },
    async ({ request }): Promise<{ admin: Administrator }> => ({ admin: await resolve(request) }),
  );
}

/** What the OpenAPI document says of every admin route's security and refusals. */
export function adminSecurity(mode: Mode): Record<string, string[]>[] {
  return mode === 'accounts' ? [{ bearer: [] }, { adminToken: [] }] : [{ adminToken: [] }];
}

export function adminWho(mode: Mode): string {
  return mode === 'accounts'
    ? 'Needs an admin user’s session token (an API key of any scope is 403, a user who is no admin 403) or the operator’s admin token (`--admin-token`), as `Authorization: Bearer …`; a missing, wrong or expired token, or a disabled user’s, is 401.'
    : 'Needs the operator’s admin token (`--admin-token`) as `Authorization: Bearer …`: without one configured, 403 `Administration needs an admin token (--admin-token)`; a missing or wrong token is 401.';
}
