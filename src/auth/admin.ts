// The operator's admin token (--admin-token): in open mode it stands for the owner in
// link management (there are no users); in both modes it manages the short domains.
// Without one configured, what needs it is refused outright; a missing or wrong token is 401.

import { timingSafeEqual } from 'node:crypto';
import { ApiError, type Message, Messages, unauthorized } from '../domain/errors.ts';
import { bearerToken } from './tokens.ts';

/**
 * A route hook (transform: before the body is validated) that lets only the admin token
 * through; without one configured, 403 with `missing` (what needs the token).
 */
export function adminOnly(
  adminToken: string | undefined,
  missing: Message = Messages.adminTokenMissing,
) {
  if (adminToken === undefined) {
    return (): void => {
      throw new ApiError(403, missing);
    };
  }
  return bearerOnly(adminToken);
}

/**
 * A route hook that lets only `token` through as `Authorization: Bearer`, compared in
 * constant time (an operator's token: the admin token, the metrics token); else 401.
 */
export function bearerOnly(token: string) {
  const given = bearerIs(token);
  return ({ request }: { request: Request }): void => {
    if (!given(request)) throw unauthorized();
  };
}

/** Whether a request carries `token` as `Authorization: Bearer`, compared in constant time. */
export function bearerIs(token: string): (request: Request) => boolean {
  const expected = Buffer.from(token);
  return (request) => {
    const given = Buffer.from(bearerToken(request.headers.get('authorization')) ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}
