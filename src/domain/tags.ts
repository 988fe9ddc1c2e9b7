// The tag rule: what a link's tag may be, and the set of tags a create or PATCH body
// gives. Tags are kept lower-cased, so `Promo` and `promo` are one tag everywhere (the
// set, the list's filter, a tag's stats).

import { badRequest, Messages } from './errors.ts';

export const TAG_MAX_LENGTH = 32;
export const TAGS_PER_LINK = 10;
export const TAG_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** The tag of a path or query (`/api/tags/{tag}/stats`, `?tag=`), lower-cased; 400 when it is none. */
export function parseTag(value: unknown): string {
  if (typeof value !== 'string' || !TAG_PATTERN.test(value)) throw badRequest(Messages.tagRule);
  return value.toLowerCase();
}

/**
 * The `tags` of a create or PATCH body: undefined when absent (PATCH keeps the set),
 * null for none (PATCH clears it), else a list of at most 10 tags, kept lower-cased,
 * each once, in code-unit order (the order details show them in). Anything else is a
 * 400 naming the whole rule, even when only one tag breaks it.
 */
export function parseTags(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === null) return [];
  // The list as sent counts, duplicates included: the limit is the one the message states.
  if (!Array.isArray(value) || value.length > TAGS_PER_LINK) throw badRequest(Messages.tagsRule);
  const tags = new Set<string>();
  for (const tag of value) {
    if (typeof tag !== 'string' || !TAG_PATTERN.test(tag)) throw badRequest(Messages.tagsRule);
    tags.add(tag.toLowerCase());
  }
  return [...tags].sort();
}
