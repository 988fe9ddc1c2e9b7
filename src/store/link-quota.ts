// The per-batch link quota (accounts mode's most links per owner), worked out once for
// both stores: which links of a batch are inserted, and which are refused for their
// owner's quota, given how many links each owner has when the batch's transaction reads
// it. Each store locks and reads the owners' totals and inserts in its own way.

import {
  type CreatedLink,
  DEFAULT_DOMAIN,
  LINK_LIMIT_REACHED,
  type Link,
  type NewLink,
} from './store.ts';

/** What a code is unique by: its domain and itself (`domainId/code`; no code holds a `/`). */
export function codeKey(domainId: number, code: string): string {
  return `${domainId}/${code}`;
}

/** The codeKey of a new link. */
export function newLinkKey(link: NewLink): string {
  return codeKey(link.domainId ?? DEFAULT_DOMAIN, link.shortCode);
}

/** The owners of a batch with a quota, in id order (the order a store locks them in). */
export function ownersWithQuota(batch: readonly NewLink[]): number[] {
  const owners = new Set<number>();
  for (const link of batch) {
    if ((link.ownerLimit ?? 0) > 0 && link.userId !== null) owners.add(link.userId);
  }
  return [...owners].sort((a, b) => a - b);
}

/** The stored link a new one becomes, with the id its insert gave. */
export function madeLink(link: NewLink, id: number): Link {
  return {
    id,
    userId: link.userId,
    domainId: link.domainId ?? DEFAULT_DOMAIN,
    originalUrl: link.originalUrl,
    shortCode: link.shortCode,
    createdAt: link.createdAt,
    clicks: 0,
  };
}

/**
 * Yields the links to insert (each time with distinct codes) and takes back the ids of
 * those that took their code, by newLinkKey; returns every link's result. A code met earlier in the
 * batch, or an owner at the quota (counting the batch's earlier links as made), gives
 * no insert. When a link counted against the quota lost its code after all, its
 * owner's refused links are tried again one by one, so a lost code never costs another
 * link its place. `owned` holds each quota owner's links before the batch.
 */
export function* insertWithQuota(
  batch: readonly NewLink[],
  owned: Map<number, number>,
): Generator<NewLink[], CreatedLink[], ReadonlyMap<string, number>> {
  const results: CreatedLink[] = new Array(batch.length).fill(undefined);
  const planned = new Map<number, number>(owned);
  const seen = new Set<string>();
  const tried: number[] = [];
  const refused: number[] = [];
  batch.forEach((link, i) => {
    if (seen.has(newLinkKey(link))) return;
    const limit = link.ownerLimit ?? 0;
    if (limit > 0 && link.userId !== null) {
      const count = planned.get(link.userId) ?? 0;
      if (count >= limit) {
        results[i] = LINK_LIMIT_REACHED;
        refused.push(i);
        return;
      }
      planned.set(link.userId, count + 1);
    }
    seen.add(newLinkKey(link));
    tried.push(i);
  });
  const made = tried.length === 0 ? new Map() : yield tried.map((i) => batch[i] as NewLink);
  for (const i of tried) {
    const link = batch[i] as NewLink;
    const id = made.get(newLinkKey(link));
    if (id === undefined) continue;
    results[i] = madeLink(link, id);
    if (link.userId !== null) owned.set(link.userId, (owned.get(link.userId) ?? 0) + 1);
  }
  for (const i of refused) {
    const link = batch[i] as NewLink;
    const owner = link.userId as number;
    if ((owned.get(owner) ?? 0) >= (link.ownerLimit ?? 0)) continue;
    const id = (yield [link]).get(newLinkKey(link));
    results[i] = id === undefined ? undefined : madeLink(link, id);
    if (id !== undefined) owned.set(owner, (owned.get(owner) ?? 0) + 1);
  }
  return results;
}
