// The short domains as every part of kurz sees them: the default one (--base-url's,
// domain 0) and those added with `kurz domain add` or POST /api/domains, held in memory
// and read again whenever any instance changes them (DomainStore.watchDomains). The
// redirect picks a domain by the request's Host; the API by a `domain` field or
// `?domain=` naming its host or base URL.

import { normalizeHost, urlHost } from '../domain/hosts.ts';
import { domainHostOf } from '../domain/short-domains.ts';
import { DEFAULT_DOMAIN, type Domain, type Store } from '../store/store.ts';

/** A domain as kurz uses it; the default one has id 0 and no answers of its own. */
export interface ShortDomain {
  id: number;
  /** scheme://host[:port], without a trailing slash: short URLs are `${baseUrl}/${code}`. */
  baseUrl: string;
  /** The canonical host (hostname[:port]) that names it. */
  host: string;
  /** Where a bare `/` goes; null: the web UI, as on the default domain. */
  rootRedirect: string | null;
  /** Where an unknown code goes; null: the JSON 404. */
  notFoundRedirect: string | null;
  isDefault: boolean;
}

/** The default domain of a base URL. */
export function defaultDomain(baseUrl: string): ShortDomain {
  const url = URL.parse(baseUrl);
  return {
    id: DEFAULT_DOMAIN,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    host: url === null ? '' : urlHost(url),
    rootRedirect: null,
    notFoundRedirect: null,
    isDefault: true,
  };
}

function shortDomain(domain: Domain): ShortDomain {
  return {
    id: domain.id,
    baseUrl: domain.baseUrl,
    host: domain.host,
    rootRedirect: domain.rootRedirect,
    notFoundRedirect: domain.notFoundRedirect,
    isDefault: false,
  };
}

/** Raw Host headers remembered with the domain they chose, so most requests normalise none. */
const HOST_MEMORY = 256;

export class DomainRegistry {
  private others: ShortDomain[] = [];
  private byId = new Map<number, ShortDomain>();
  private byHostKey = new Map<string, ShortDomain>();
  /** The hosts of the added domains, a new set on every change (own-host checks compare it). */
  private hostSet: ReadonlySet<string> = new Set();
  /** Host header as sent → the domain it chose; emptied whenever the domains change. */
  private readonly seenHosts = new Map<string, ShortDomain>();
  private defaultSeen: { baseUrl: string; domain: ShortDomain } | undefined;
  private stopWatching: (() => void) | undefined;
  /** The reading under way, so changes heard meanwhile read once more after it. */
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private readonly listeners = new Set<() => void>();

  private constructor(
    private readonly store: Pick<Store, 'listDomains' | 'watchDomains'>,
    private readonly baseUrl: () => string,
  ) {}

  /** Reads the domains and follows every change any instance makes to them. */
  static async open(
    store: Pick<Store, 'listDomains' | 'watchDomains'>,
    baseUrl: () => string,
  ): Promise<DomainRegistry> {
    const registry = new DomainRegistry(store, baseUrl);
    await registry.reload();
    registry.stopWatching = store.watchDomains(() => {
      registry.reload().catch(() => {
        // The store is unavailable: the next change, or reset, reads them again.
      });
    });
    return registry;
  }

  /** Reads the domains again (after this process changed them, or was told of a change). */
  reload(): Promise<void> {
    if (this.reading !== undefined) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.readAgain = false;
          this.replace(await this.store.listDomains());
        } while (this.readAgain);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  private replace(domains: readonly Domain[]): void {
    this.others = domains.map(shortDomain);
    this.byId = new Map(this.others.map((d) => [d.id, d]));
    this.byHostKey = new Map(this.others.map((d) => [d.host, d]));
    this.hostSet = new Set(this.others.map((d) => d.host));
    this.seenHosts.clear();
    for (const listener of this.listeners) listener();
  }

  /**
   * Calls `listener` after each reading of the domains (a change by this instance or
   * another, or notices that may have been missed); returns what stops it.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.stopWatching?.();
  }

  /** The default domain, as --base-url says now (it is known once the server listens). */
  get default(): ShortDomain {
    const baseUrl = this.baseUrl();
    if (this.defaultSeen?.baseUrl !== baseUrl) {
      this.defaultSeen = { baseUrl, domain: defaultDomain(baseUrl) };
    }
    return this.defaultSeen.domain;
  }

  /** Whether any domain besides the default one exists (the redirect's fast path). */
  get several(): boolean {
    return this.others.length > 0;
  }

  /** Every domain, the default one first. */
  all(): ShortDomain[] {
    return [this.default, ...this.others];
  }

  /** The domain of an id; undefined for one removed. */
  of(id: number): ShortDomain | undefined {
    return id === DEFAULT_DOMAIN ? this.default : this.byId.get(id);
  }

  /** A link's domain (the default one for a domain removed meanwhile): its JSON's `domain` and `short_url`. */
  readonly domainOf = (id: number): ShortDomain => this.of(id) ?? this.default;

  /**
   * The domain a request's Host header chooses: a registered one, else the default one
   * (behind a proxy, on localhost, or under any name not registered).
   */
  forHost(hostHeader: string | null): ShortDomain {
    if (this.others.length === 0 || hostHeader === null) return this.default;
    const seen = this.seenHosts.get(hostHeader);
    if (seen !== undefined) return seen;
    const key = normalizeHost(hostHeader);
    const domain = (key === undefined ? undefined : this.byHostKey.get(key)) ?? this.default;
    if (this.seenHosts.size >= HOST_MEMORY) this.seenHosts.clear();
    this.seenHosts.set(hostHeader, domain);
    return domain;
  }

  /**
   * The domain a client names (a `domain` field, `?domain=`): its host (`go.example.com`,
   * with its port when it has one) or its base URL; undefined when none is so named.
   */
  find(name: string): ShortDomain | undefined {
    const key = domainHostOf(name);
    if (key === undefined) return undefined;
    if (key === this.default.host) return this.default;
    return this.byHostKey.get(key);
  }

  /** The canonical hosts of the added domains: kurz itself, as its base URL's host is. */
  readonly registeredHosts = (): ReadonlySet<string> => this.hostSet;
}
