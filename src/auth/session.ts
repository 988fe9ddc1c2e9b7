// The answer of every sign-in (register, password login, the OpenID Provider's callback):
// a fresh token of kurz's own and the public user, so the API and the UI work the same
// whichever way a person came in.

import type { Static } from '@sinclair/typebox';
import type { Session } from './model.ts';
import type { TokenKey } from './tokens.ts';

/** What a session is made for: the user and the version their tokens must carry. */
export interface SessionUser {
  id: number;
  email: string;
  tokenVersion: number;
}

export async function issueSession(
  secret: TokenKey,
  tokenTtlSeconds: number,
  user: SessionUser,
): Promise<Static<typeof Session>> {
  const exp = Math.floor(Date.now() / 1000) + tokenTtlSeconds;
  const token = await secret.sign({ sub: String(user.id), exp, ver: user.tokenVersion });
  return { token, user: { id: user.id, email: user.email } };
}
