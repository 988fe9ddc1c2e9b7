// Link management in open mode: there are no users, so the operator's admin token
// (--admin-token) is what stands for the owner. Without one configured, managing is
// refused outright; a missing or wrong token is 401.

import { timingSafeEqual } from 'node:crypto';
import { ApiError, Messages, unauthorized } from '../domain/errors.ts';
import { bearerToken } from './tokens.ts';

/** A route hook (transform: before the body is validated) that lets only the admin token through. */
export function adminOnly(adminToken: string | undefined) {
  const expected = adminToken === undefined ? undefined : Buffer.from(adminToken);
  return ({ request }: { request: Request }): void => {
    if (expected === undefined) throw new ApiError(403, Messages.adminTokenMissing);
    const given = Buffer.from(bearerToken(request.headers.get('authorization')) ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw unauthorized();
    }
  };
}
