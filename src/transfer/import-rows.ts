// A row of an import by kurz's rules, before anything is looked up: its URL (as the API
// checks it), source, settings and password hash, its owner's account, its domain (where
// domain-map.ts places it) and its tags (the tag rule of domain/tags.ts); and whether its
// code can be kept at all. What holds the code is the importer's to find.

import { CODE_PATTERN, isReservedCode } from '../domain/codes.ts';
import { ApiError } from '../domain/errors.ts';
import { parsePreview, previewText, type StoredPreview } from '../domain/link-preview.ts';
import { parseRules, parseVariants, routingText } from '../domain/link-routing.ts';
import { MAX_CLICKS_LIMIT } from '../domain/link-settings.ts';
import type { OwnHosts } from '../domain/own-hosts.ts';
import { codePointLength, SOURCE_MAX_LENGTH, storable } from '../domain/sources.ts';
import { parseTag, parseTags } from '../domain/tags.ts';
import { type Blocklist, checkTarget } from '../domain/targets.ts';
import { parseTargetUrl } from '../domain/urls.ts';
import type { NewLink, User } from '../store/store.ts';
import type { DomainMap } from './domain-map.ts';
import type { LinkEntry } from './entries.ts';

/** A link row that passed kurz's rules, with its owner and domain found. */
export interface Candidate {
  line: number;
  /** The code as the file gives it (the key its click records use). */
  given: string | undefined;
  /** The code it keeps: undefined when a new one is made. */
  code: string | undefined;
  link: Omit<NewLink, 'shortCode'> & { domainId: number };
  /** Whether the file gave the creation time (else it is the import's). */
  dated: boolean;
  /** Why the given code cannot be kept; undefined: no conflict. */
  conflict?: string;
}

/** What the rules of a row depend on. */
export interface RowRules {
  /** The account every link goes to; undefined: its row's owner, else no one. */
  owner: User | undefined;
  /** kurz's own hosts (the base URL's, every domain's): a link to one is refused, as by the API. */
  own: OwnHosts;
  blocklist: Blocklist | undefined;
  /** The creation time of a row that gives none (ms). */
  now: number;
  domains: DomainMap;
  /** The id of the account of an e-mail (lower-cased); undefined when there is none. */
  accountOf(email: string): number | undefined;
}

/** A value shortened for a report line. */
export const cut = (text: string, max = 80) =>
  text.length > max ? `${text.slice(0, max)}…` : text;

/** A row as a candidate, or why it is a bad row. */
export function checkRow(entry: LinkEntry, rules: RowRules): Candidate | string {
  try {
    parseTargetUrl(entry.url);
    checkTarget(entry.url, { own: rules.own }, rules.blocklist);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return `${error.message} ("${cut(entry.url)}")`;
  }
  if (entry.source !== null && codePointLength(entry.source) > SOURCE_MAX_LENGTH) {
    return `the source is longer than ${SOURCE_MAX_LENGTH} characters`;
  }
  if (entry.maxClicks !== null && entry.maxClicks > MAX_CLICKS_LIMIT) {
    return `max_clicks is above ${MAX_CLICKS_LIMIT}`;
  }
  if (entry.passwordHash !== null && !/^\$(argon2(id|i|d)|2[aby])\$/.test(entry.passwordHash)) {
    return 'password_hash is not an argon2 or bcrypt hash';
  }
  const placement = rules.domains.place(entry.domain);
  if (placement.kind === 'invalid')
    return `the domain "${cut(entry.domain ?? '', 100)}" is not a host`;
  // Only when the file was not read through first (kurz import refuses such a file whole).
  if (placement.kind === 'unknown') {
    return `the domain ${placement.host} is not a domain of this kurz (map it with --domain-map ${placement.host}=TO)`;
  }
  let tags: string[];
  try {
    tags = parseTags(entry.tags) ?? [];
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return `${error.message} (${describeTags(entry.tags)})`;
  }
  // Rules, variants and preview by the API's rules, their targets as the link's own.
  let routing: Pick<NewLink, 'rules' | 'variants' | 'preview'>;
  try {
    const checkUrl = (url: string) => checkTarget(url, { own: rules.own }, rules.blocklist);
    routing = {
      rules: routingText(parseRules(entry.rules, checkUrl) ?? null),
      variants: routingText(parseVariants(entry.variants, checkUrl) ?? null),
      preview: previewText(importedPreview(entry.preview)),
    };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return error.message;
  }
  let owner: number | null = rules.owner?.id ?? null;
  if (rules.owner === undefined && typeof entry.owner === 'string') {
    const email = entry.owner.toLowerCase();
    const id = rules.accountOf(email);
    if (id === undefined) {
      return `the owner ${cut(email, 100)} has no account here (make it with kurz user add, or give --owner)`;
    }
    owner = id;
  }
  const candidate: Candidate = {
    line: entry.line,
    given: entry.code,
    code: entry.code,
    dated: entry.createdAt !== undefined,
    link: {
      userId: owner,
      domainId: placement.domainId,
      tags,
      originalUrl: entry.url,
      source: entry.source === null ? null : storable(entry.source),
      createdAt: entry.createdAt ?? rules.now,
      expiresAt: entry.expiresAt,
      maxClicks: entry.maxClicks,
      limitedClicks: entry.limitedClicks,
      passwordHash: entry.passwordHash,
      ...routing,
      disabledAt: entry.disabledAt ?? null,
      disabledReason:
        entry.disabledReason === null || entry.disabledReason === undefined
          ? null
          : entry.disabledReason.slice(0, 500),
    },
  };
  const code = entry.code;
  if (code !== undefined && !CODE_PATTERN.test(code)) {
    candidate.code = undefined;
    candidate.conflict = `is not a kurz code (1 to 32 letters, digits, _ and -)`;
  } else if (code !== undefined && isReservedCode(code)) {
    candidate.code = undefined;
    candidate.conflict = 'is reserved in kurz';
  }
  return candidate;
}

/** What breaks the tag rule in a row's tags: the first tag that is none, else their number. */
function describeTags(tags: readonly string[]): string {
  for (const tag of tags) {
    try {
      parseTag(tag);
    } catch {
      return `"${cut(tag, 40)}"`;
    }
  }
  return `${tags.length} tags`;
}

/**
 * An exported preview: a card given by hand is checked by the API's rule; an automatic
 * one keeps what was read (its card, or why it failed), so nothing is fetched on import.
 */
function importedPreview(value: unknown): StoredPreview | null {
  if (value === undefined || value === null) return null;
  if (
    typeof value === 'object' &&
    !Array.isArray(value) &&
    (value as StoredPreview).mode === 'auto'
  ) {
    const stored = value as Partial<StoredPreview>;
    const card = {
      title: stored.title ?? null,
      description: stored.description ?? null,
      image: stored.image ?? null,
    };
    if (card.title === null && card.description === null && card.image === null) {
      const error = stored.status === 'failed' ? stored.error : undefined;
      return {
        mode: 'auto',
        status: 'failed',
        ...card,
        error: error ?? 'not read when it was exported',
      };
    }
    return { ...(parsePreview(card) as StoredPreview), mode: 'auto' };
  }
  return parsePreview(value) ?? null;
}
