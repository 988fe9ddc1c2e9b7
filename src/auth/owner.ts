// Who is asking, derived for every route of the instance that uses this plugin: in
// accounts mode a valid bearer token of an existing user, or an API key, gives that
// user's id (else 401); in open mode Authorization is ignored and the owner is null
// (links of no one). A derive runs after the body is read (413) and before it is
// validated (400), the order the API documents.

import { Elysia } from 'elysia';
import type { Mode } from '../config/config.ts';
import { forbidden, unauthorized } from '../domain/errors.ts';
import type { UserStanding } from '../store/moderation.ts';
import type { Store } from '../store/store.ts';
import { grantOf, isApiKey } from './api-keys.ts';
import { bearerToken, type TokenKey, userIdOf } from './tokens.ts';

/** Methods a `read` key may use: reading is all it is for. */
const READING = new Set(['GET', 'HEAD']);

export interface OwnerOptions {
  mode: Mode;
  secret: TokenKey;
  store: Store;
  /**
   * What an API key may do on these routes: `scoped` — a read key reads (GET, HEAD), a
   * write key does everything; `refused` — nothing (managing keys and webhooks takes a
   * login, so a leaked key cannot make itself a successor). Outside it: 403.
   */
  apiKeys?: 'scoped' | 'refused';
}

export function ownerPlugin(options: OwnerOptions) {
  return new Elysia({
    name: 'kurz/owner',
    seed: `${options.mode}:${options.apiKeys ?? 'scoped'}`,
  }).derive(
    { as: 'scoped' },
    async ({ request }): Promise<{ owner: number | null }> => ({
      owner: await ownerOf(request, options),
    }),
  );
}

/** Who is asking, as the plugin derives it (for a route that lets another credential in first). */
export async function ownerOf(request: Request, options: OwnerOptions): Promise<number | null> {
  const { mode, store, secret } = options;
  if (mode === 'open') return null;
  const credential = bearerToken(request.headers.get('authorization'));
  if (credential === undefined) throw unauthorized();
  if (isApiKey(credential)) {
    const grant = await grantOf(store, credential);
    if (grant === undefined) throw unauthorized();
    if ((options.apiKeys ?? 'scoped') === 'refused') throw forbidden();
    if (grant.scope === 'read' && !READING.has(request.method)) throw forbidden();
    return grant.userId;
  }
  return (await sessionOf(credential, secret, store)).id;
}

/**
 * The user a session token (not an API key) stands for, and their standing; 401 when the
 * token is bad or expired, or its user removed, disabled, or their password changed since.
 * One indexed read of the user per request.
 */
export async function sessionOf(
  credential: string,
  secret: TokenKey,
  store: Pick<Store, 'standing'>,
): Promise<UserStanding & { id: number }> {
  const payload = await secret.verify(credential);
  if (!payload) throw unauthorized();
  const id = userIdOf(payload.sub);
  if (id === undefined) throw unauthorized();
  // A removed or disabled user has no standing; a changed password raised the version
  // past the token's.
  const standing = await store.standing(id);
  if (standing === undefined || versionOf(payload.ver) !== standing.version) {
    throw unauthorized();
  }
  return { id, ...standing };
}

/** The token version a payload carries; tokens issued before versions existed carry 0. */
function versionOf(ver: unknown): number | undefined {
  if (ver === undefined) return 0;
  return typeof ver === 'number' && Number.isSafeInteger(ver) && ver >= 0 ? ver : undefined;
}
