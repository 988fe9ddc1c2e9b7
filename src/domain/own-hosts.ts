// The hosts that are kurz itself: its base URL's and every registered domain's. A target
// on one of them is refused (a loop, or a short link of a short link), and a browser's
// write is served only under one of them or another name kurz knows (DNS rebinding).

import { isIpLiteral, isLoopbackHostname, serviceKey, splitHost, urlHost } from './hosts.ts';

export interface OwnHosts {
  /** The serviceKey of each own host: a URL on one of them leads back to kurz. */
  readonly services: ReadonlySet<string>;
  /** The canonical hostname of each own host, without its port. */
  readonly hostnames: ReadonlySet<string>;
}

/** Own hosts of canonical host keys (`hostname[:port]`, as urlHost and normalizeHost give). */
export function ownHostsOf(hosts: Iterable<string>): OwnHosts {
  const services = new Set<string>();
  const hostnames = new Set<string>();
  for (const host of hosts) {
    services.add(serviceKey(host));
    hostnames.add(splitHost(host).hostname);
  }
  return { services, hostnames };
}

/** The canonical host of a base URL; undefined for none (the default one before listening). */
export function baseUrlHost(baseUrl: string): string | undefined {
  const url = URL.parse(baseUrl);
  return url === null || url.hostname === '' ? undefined : urlHost(url);
}

/**
 * kurz's own hosts as they stand: the base URL's and the registered domains'. Both are
 * read on every call and the sets are made again only when one changed (another base URL
 * string, another set object), so a check costs two comparisons and a lookup.
 */
export function liveOwnHosts(
  baseUrl: () => string,
  registered: () => ReadonlySet<string>,
): () => OwnHosts {
  let seenBase: string | undefined;
  let seenRegistered: ReadonlySet<string> | undefined;
  let own: OwnHosts = ownHostsOf([]);
  return () => {
    const base = baseUrl();
    const domains = registered();
    if (base !== seenBase || domains !== seenRegistered) {
      seenBase = base;
      seenRegistered = domains;
      const baseHost = baseUrlHost(base);
      own = ownHostsOf(baseHost === undefined ? domains : [baseHost, ...domains]);
    }
    return own;
  };
}

/**
 * Whether a browser's write may arrive under `hostname` (canonical, no port): a name a
 * DNS-rebinding page could bring (its own domain, pointed at kurz's address) is none of
 * these. kurz's own hosts, IP literals (no DNS to rebind), loopback names (browsers resolve
 * `localhost` themselves), and the names the operator allowed (--allowed-hosts).
 */
export function isKnownHostname(
  hostname: string,
  own: OwnHosts,
  allowed: ReadonlySet<string>,
): boolean {
  return (
    own.hostnames.has(hostname) ||
    isIpLiteral(hostname) ||
    isLoopbackHostname(hostname) ||
    allowed.has(hostname)
  );
}
