// Link management in open mode: there are no users, so the operator's admin token
// (--admin-token) is what stands for the owner. Without one configured, managing is
// refused outright; a missing or wrong token is 401.

import { timingSafeEqual } from 'node:crypto';
import { ApiError, Messages, unauthorized } from '../domain/errors.ts';
import { bearerToken } from './tokens.ts';

/** A route hook (transform: before the body is validated) that lets only the admin token through. */
export function adminOnly(adminToken: string | undefined) {
  if (adminToken === undefined) {
    return (): void => {
      throw new ApiError(403, Messages.adminTokenMissing);
    };
  }
  return bearerOnly(adminToken);
}

/**
 * A route hook that lets only `token` through as `Authorization: Bearer`, compared in
 * constant time (an operator's token: the admin token, the metrics token); else 401.
 */
export function bearerOnly(token: string) {
  const expected = Buffer.from(token);
  return ({ request }: { request: Request }): void => {
    const given = Buffer.from(bearerToken(request.headers.get('authorization')) ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw unauthorized();
    }
  };
}
