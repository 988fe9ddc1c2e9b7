// Who is asking: a named plugin with the `owner` macro. In accounts mode it requires a
// valid bearer token of an existing user (else 401) and resolves that user's id; in open
// mode it ignores Authorization and resolves null (links of no one).

import { Elysia } from 'elysia';
import type { Mode } from '../config/config.ts';
import { unauthorized } from '../domain/errors.ts';
import type { Store } from '../store/store.ts';
import { bearerToken, tokenPlugin, userIdOf, VERIFY_OPTIONS } from './tokens.ts';

export function ownerPlugin(options: { mode: Mode; secret: string; store: Store }) {
  const { mode, store } = options;
  return new Elysia({ name: 'kurz/owner', seed: mode }).use(tokenPlugin(options.secret)).macro({
    owner: {
      async resolve({ request, jwt }): Promise<{ owner: number | null }> {
        if (mode === 'open') return { owner: null };
        const token = bearerToken(request.headers.get('authorization'));
        if (token === undefined) throw unauthorized();
        const payload = await jwt.verify(token, VERIFY_OPTIONS);
        const id = payload ? userIdOf(payload.sub) : undefined;
        if (id === undefined || !(await store.userExists(id))) throw unauthorized();
        return { owner: id };
      },
    },
  });
}
