// What a change makes of a link or a domain, worked out once for both stores (each
// applies it in its own transaction, with the row as it is there).

import type { Domain, DomainChanges, LinkChanges, LinkDetail } from './store.ts';

/** A link after `changes`: a new max_clicks counts from the clicks the link has. */
export function applyChanges(current: LinkDetail, changes: LinkChanges): LinkDetail {
  const next = { ...current };
  if (changes.originalUrl !== undefined) next.originalUrl = changes.originalUrl;
  if (changes.tags !== undefined) next.tags = [...changes.tags].sort();
  if (changes.expiresAt !== undefined) next.expiresAt = changes.expiresAt;
  if (changes.passwordHash !== undefined) next.passwordHash = changes.passwordHash;
  if (changes.rules !== undefined) next.rules = changes.rules;
  if (changes.variants !== undefined) next.variants = changes.variants;
  if (changes.preview !== undefined) next.preview = changes.preview;
  if (changes.maxClicks !== undefined) {
    next.maxClicks = changes.maxClicks;
    next.limitedClicks = changes.maxClicks === null ? 0 : current.clicks;
  }
  return next;
}

/** A domain after `changes`: an absent field is left as it is, null clears it. */
export function applyDomainChanges(current: Domain, changes: DomainChanges): Domain {
  const next = { ...current };
  if (changes.rootRedirect !== undefined) next.rootRedirect = changes.rootRedirect;
  if (changes.notFoundRedirect !== undefined) next.notFoundRedirect = changes.notFoundRedirect;
  return next;
}
