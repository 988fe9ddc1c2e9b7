// The redirect's lookup cache: (domain, code) → what a redirect needs, bounded, evicting with the
// CLOCK (second chance) approximation of LRU, so a hit costs one flag write rather than
// a reordering. Unknown codes are remembered briefly (and boundedly) so that a flood of
// them does not reach the database. Counters are never cached. It counts what it
// answers (plain numbers, read by the metrics when scraped).

import { domainCode } from '../domain/codes.ts';
import { type StoredPreview, showsCard, storedPreview } from '../domain/link-preview.ts';
import { toLocationHeader } from '../domain/urls.ts';
import type { Store } from '../store/store.ts';
import { compileRouting, type LinkRouting, type Routed } from './link-routing.ts';

/**
 * The card a link shows link-preview crawlers: none for a link with a password, whose
 * target the card's page would give away (it refreshes to it).
 */
function cardOf(preview: string | null, passwordHash: string | null): StoredPreview | undefined {
  const card = passwordHash === null ? storedPreview(preview) : null;
  return showsCard(card) ? card : undefined;
}

/** A copy of a link's 307 headers sending the visitor to `location`. */
function withLocation(headers: Headers, location: string): Headers {
  const copy = new Headers(headers);
  copy.set('location', location);
  return copy;
}

/** Rules or variants as the store keeps them (JSON text), read once when the link is cached. */
function parseStored<T>(text: string | null): T[] | null {
  return text === null ? null : (JSON.parse(text) as T[]);
}

export interface CachedLink {
  id: number;
  code: string;
  domainId: number;
  /**
   * Set when an admin disabled the link: it answers 410 before any other check. The one
   * field the redirect reads for it; a change (or another instance's notice) drops the entry.
   */
  disabled: { reason: string | null } | null;
  /**
   * Until when (ms) the link answers the `+` page in place of its redirect, its owner's
   * account being younger than --new-account-interstitial; null: never (off, or no one's).
   */
  interstitialUntil: number | null;
  source: string | null;
  /** A fresh 307 to this link; its headers are built once, when the link is cached. */
  respond: () => Response;
  /** The Location header of the 307, for answers that send the visitor on otherwise. */
  location: string;
  /** Milliseconds since the epoch after which the link answers 410; null: never. */
  expiresAt: number | null;
  /** Whether the link has max_clicks: its clicks are counted in the store's limited way. */
  limited: boolean;
  /** Set once the store refused a click for max_clicks: later visits answer 410 at once. */
  exhausted: boolean;
  /** argon2id hash of the link's password; null: none. */
  passwordHash: string | null;
  /** Its rules and A/B split, compiled; undefined for a link with neither (the plain 307). */
  routing: LinkRouting | undefined;
  /** The card link-preview crawlers are shown; undefined: none to show (or a password). */
  card: StoredPreview | undefined;
  /** A fresh 307 (or `status`) to where routing sent a visit, with its variant cookie if new. */
  respondTo: (routed: Routed, status?: number) => Response;
  /** Set on every hit, cleared as eviction passes by: the CLOCK's reference bit. */
  used: boolean;
}

/** What the cache needs to compile a link's rules and split (redirect/link-routing.ts). */
export interface RoutingContext {
  countryOf: (address: string) => string | null;
  /** Whether a short domain is served over https (its variant cookie is then Secure). */
  secure: (domainId: number) => boolean;
}

export interface LinkCacheOptions {
  /** Links kept in memory. */
  size: number;
  /** Unknown codes kept in memory. */
  missSize: number;
  /** How long an unknown code is believed unknown, in milliseconds. */
  missTtlMs: number;
  /** --new-account-interstitial in milliseconds: 0 (off) when absent. */
  newAccountMs?: number;
}

/** What peek() answers for a code known to have no link. */
export const UNKNOWN: unique symbol = Symbol('unknown code');

export const DEFAULT_CACHE: LinkCacheOptions = {
  size: 50_000,
  missSize: 10_000,
  missTtlMs: 2_000,
};

export class LinkCache {
  // Map keeps insertion order: eviction looks at the oldest insertions first.
  private readonly hits = new Map<string, CachedLink>();
  private readonly misses = new Map<string, number>();
  /** Counts forget()s: a lookup that saw it change while waiting remembers nothing. */
  private generation = 0;
  /** The store's settle(), when several instances share it (see get()). */
  private readonly settle: (() => Promise<void>) | undefined;
  /** Lookups answered from memory: a link, or a code recently found to have none. */
  hitCount = 0;
  /** Lookups that asked the store. */
  missCount = 0;
  /** 307s made for cached links (each GET or HEAD that sent a visitor on). */
  redirectCount = 0;
  /** The same by short domain: a counter object per domain, which each cached link holds. */
  private readonly domainCounters = new Map<number, { redirects: number }>();

  constructor(
    private readonly store: Store,
    private readonly options: LinkCacheOptions = DEFAULT_CACHE,
    /** Headers every answer carries (nosniff, HSTS), copied into each link's 307 once. */
    private readonly responseHeaders: Readonly<Record<string, string>> = {},
    private readonly routingContext: RoutingContext = { countryOf: () => null, secure: () => true },
  ) {
    this.settle = store.settle?.bind(store);
    // Another instance created (or changed) a link: this one must not go on believing
    // its code unknown, nor keep an old target. Missed notices forget everything.
    store.watchLinks(
      (code, domainId) => this.forget(code, domainId),
      () => this.forgetAll(),
    );
  }

  /**
   * The link of a code when the cache knows it, without waiting: a CachedLink, UNKNOWN
   * for a code recently found to have no link, or undefined when the store must be asked.
   * On a store several instances share, a code is never UNKNOWN here: another instance
   * may have just created it, so get() must settle first.
   */
  peek(code: string, domainId = 0): CachedLink | typeof UNKNOWN | undefined {
    const key = domainCode(domainId, code);
    const hit = this.hits.get(key);
    if (hit !== undefined) {
      hit.used = true;
      this.hitCount++;
      return hit;
    }
    if (this.settle === undefined && this.missed(key)) {
      this.hitCount++;
      return UNKNOWN;
    }
    return undefined;
  }

  /** Links held in memory. */
  get size(): number {
    return this.hits.size;
  }

  /** 307s made so far, by domain id (only domains that have had one). */
  redirectsByDomain(): Map<number, number> {
    return new Map([...this.domainCounters].map(([id, counter]) => [id, counter.redirects]));
  }

  /** The link of a code on a domain, or undefined when no link has it. */
  async get(code: string, domainId = 0): Promise<CachedLink | undefined> {
    const known = this.peek(code, domainId);
    if (known === UNKNOWN) return undefined;
    if (known !== undefined) return known;
    const key = domainCode(domainId, code);
    if (this.settle !== undefined && this.missed(key)) {
      // Every notice committed before this request is heard first: a code another
      // instance created since the miss was recorded is forgotten by then.
      await this.settle();
      if (this.missed(key)) {
        this.hitCount++;
        return undefined;
      }
      const hit = this.hits.get(key);
      if (hit !== undefined) {
        this.hitCount++;
        return hit;
      }
    }
    this.missCount++;
    return this.load(code, domainId, key);
  }

  /** Whether the key was found to have no link recently enough to believe it. */
  private missed(key: string): boolean {
    const missedAt = this.misses.get(key);
    return missedAt !== undefined && Date.now() - missedAt < this.options.missTtlMs;
  }

  /**
   * Forgets what is known of a code: the next request asks the store. Called when this
   * instance creates, changes or deletes a link (so no lookup under way remembers what
   * it read before), and when another instance is heard doing so.
   */
  forget(code: string, domainId = 0): void {
    const key = domainCode(domainId, code);
    this.generation++;
    this.misses.delete(key);
    this.hits.delete(key);
  }

  forgetAll(): void {
    this.generation++;
    this.misses.clear();
    this.hits.clear();
  }

  private async load(code: string, domainId: number, key: string): Promise<CachedLink | undefined> {
    const generation = this.generation;
    const target = await this.store.findLinkByCode(code, domainId);
    // A change told while the store was asked may be newer than what it answered:
    // answer with it, but remember nothing.
    const stale = generation !== this.generation;
    if (target === undefined) {
      if (stale) return undefined;
      this.misses.delete(key);
      this.misses.set(key, Date.now());
      if (this.misses.size > this.options.missSize) {
        const oldest = this.misses.keys().next();
        if (!oldest.done) this.misses.delete(oldest.value);
      }
      return undefined;
    }
    this.misses.delete(key);
    // A Headers instance, not a plain object: Response copies it in half the time.
    const location = toLocationHeader(target.originalUrl);
    const headers = new Headers({
      ...this.responseHeaders,
      location,
      'cache-control': 'private, no-store',
    });
    const limited = target.maxClicks !== null;
    let counter = this.domainCounters.get(domainId);
    if (counter === undefined) {
      counter = { redirects: 0 };
      this.domainCounters.set(domainId, counter);
    }
    const perDomain = counter;
    const routing = compileRouting(parseStored(target.rules), parseStored(target.variants), {
      target: target.originalUrl,
      path: `/${code}`,
      secure: this.routingContext.secure(domainId),
      countryOf: this.routingContext.countryOf,
    });
    const newAccountMs = this.options.newAccountMs ?? 0;
    const link: CachedLink = {
      id: target.id,
      code,
      domainId,
      disabled: target.disabledAt === null ? null : { reason: target.disabledReason },
      interstitialUntil:
        newAccountMs > 0 && target.ownerSince !== null ? target.ownerSince + newAccountMs : null,
      source: target.source,
      respond: () => {
        this.redirectCount++;
        perDomain.redirects++;
        return new Response(null, { status: 307, headers });
      },
      location,
      expiresAt: target.expiresAt,
      limited,
      exhausted: limited && target.limitedClicks >= (target.maxClicks as number),
      passwordHash: target.passwordHash,
      routing,
      card: cardOf(target.preview, target.passwordHash),
      respondTo: (routed, status = 307) => {
        // As respond(): the 303 after a password is not one of the redirects counted.
        if (status === 307) {
          this.redirectCount++;
          perDomain.redirects++;
        }
        // A target's headers are made once; a new visitor's variant cookie needs its own.
        if (routed.cookie === undefined) {
          routed.headers ??= withLocation(headers, routed.location);
          return new Response(null, { status, headers: routed.headers });
        }
        const assigned = withLocation(headers, routed.location);
        assigned.set('set-cookie', routed.cookie);
        return new Response(null, { status, headers: assigned });
      },
      used: false,
    };
    if (stale) return link;
    this.hits.set(key, link);
    if (this.hits.size > this.options.size) this.evictOne();
    return link;
  }

  /** Evicts the oldest entry not used since the hand last passed it; used ones get a second chance. */
  private evictOne(): void {
    for (const [code, link] of this.hits) {
      this.hits.delete(code);
      if (!link.used) return;
      link.used = false;
      this.hits.set(code, link);
    }
  }
}
