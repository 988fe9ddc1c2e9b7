// Who is asking, derived for every route of the instance that uses this plugin: in
// accounts mode a valid bearer token of an existing user (else 401) gives that user's
// id; in open mode Authorization is ignored and the owner is null (links of no one).
// A derive runs after the body is read (413) and before it is validated (400), which
// is the order decisions.md gives.

import { Elysia } from 'elysia';
import type { Mode } from '../config/config.ts';
import { unauthorized } from '../domain/errors.ts';
import type { Store } from '../store/store.ts';
import { bearerToken, type TokenKey, userIdOf } from './tokens.ts';

export function ownerPlugin(options: { mode: Mode; secret: TokenKey; store: Store }) {
  const { mode, store, secret } = options;
  return new Elysia({ name: 'kurz/owner', seed: mode }).derive(
    { as: 'scoped' },
    async ({ request }): Promise<{ owner: number | null }> => {
      if (mode === 'open') return { owner: null };
      const token = bearerToken(request.headers.get('authorization'));
      if (token === undefined) throw unauthorized();
      const payload = await secret.verify(token);
      const id = payload ? userIdOf(payload.sub) : undefined;
      if (id === undefined || !(await store.userExists(id))) throw unauthorized();
      return { owner: id };
    },
  );
}
