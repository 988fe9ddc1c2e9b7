// The rules of a new API key's fields: a name, a scope (read unless write is asked
// for: the least a script needs), and an optional expiry in the future.

import { badRequest, Messages } from './errors.ts';
import { parseExpiresAt } from './link-settings.ts';

/** What a key may do: read (GET only) or write (everything its owner may). */
export type ApiKeyScope = 'read' | 'write';

export const KEY_NAME_MAX_LENGTH = 100;

export interface KeySettings {
  name: string;
  scope: ApiKeyScope;
  expiresAt: number | null;
}

/** Checks a POST /api/keys body in order: name, scope, expires_at. */
export function parseKeySettings(body: Record<string, unknown>, now: number): KeySettings {
  const { name, scope = 'read', expires_at } = body;
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (trimmed === '' || [...trimmed].length > KEY_NAME_MAX_LENGTH) {
    throw badRequest(Messages.keyNameRule);
  }
  if (scope !== 'read' && scope !== 'write') throw badRequest(Messages.keyScopeRule);
  let expiresAt: number | null | undefined;
  try {
    expiresAt = parseExpiresAt(expires_at);
  } catch {
    throw badRequest(Messages.keyExpiryRule);
  }
  if (expiresAt !== undefined && expiresAt !== null && expiresAt <= now) {
    throw badRequest(Messages.keyExpiryRule);
  }
  return { name: trimmed, scope, expiresAt: expiresAt ?? null };
}
