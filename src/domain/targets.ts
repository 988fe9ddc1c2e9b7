// Which hosts a new link may point to: never kurz itself (a short link of a short link, or
// a redirect loop), never a domain on the operator's blocklist. The blocklist is a text
// file, one domain a line, and the hosts admins add to the database; each entry matches
// the domain and its subdomains.

import { badRequest, Messages } from './errors.ts';
import { canonicalHostname, isIpLiteral, normalizeHost, serviceKey, urlHost } from './hosts.ts';
import type { OwnHosts } from './own-hosts.ts';

export interface Blocklist {
  /** Domains on the list, canonical (lower case, IDNs in their ASCII form, IPv4 unmapped). */
  readonly domains: ReadonlySet<string>;
  /** True when `hostname` (as a URL gives it) is a listed domain or a subdomain of one. */
  blocks(hostname: string): boolean;
}

/** A line of a blocklist file that is not a domain; the message names the line. */
export class BlocklistError extends Error {
  constructor(
    readonly line: number,
    readonly text: string,
  ) {
    super(`line ${line}: "${text}" is not a domain`);
    this.name = 'BlocklistError';
  }
}

/**
 * Reads a blocklist: one domain a line (`evil.example`, or `*.evil.example`, which means
 * the same); blank lines and `#` comments are skipped. Throws BlocklistError at the first
 * line that is not a domain, so that a typo never silently blocks nothing.
 */
export function parseBlocklist(text: string): Blocklist {
  const domains = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const domain = hostOf(line.startsWith('*.') ? line.slice(2) : line);
    if (domain === undefined) throw new BlocklistError(i + 1, raw.trim());
    domains.add(domain);
  }
  return blocklistOf(domains);
}

/** The blocklist of these domains (canonical, as hostOf gives them). */
export function blocklistOf(domains: ReadonlySet<string>): Blocklist {
  return {
    domains,
    blocks(hostname) {
      // [::ffff:203.0.113.7] is 203.0.113.7, and must not slip past its entry.
      let host = canonicalHostname(hostname);
      if (domains.has(host)) return true;
      // An IP address has no parent domains.
      if (isIpLiteral(host)) return false;
      for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.')) {
        host = host.slice(dot + 1);
        if (domains.has(host)) return true;
      }
      return false;
    },
  };
}

/** Both lists: a host either blocks is blocked. */
export function eitherBlocklist(
  a: Blocklist | undefined,
  b: Blocklist | undefined,
): Blocklist | undefined {
  if (a === undefined || a.domains.size === 0) return b;
  if (b === undefined || b.domains.size === 0) return a;
  return {
    get domains() {
      return new Set([...a.domains, ...b.domains]);
    },
    blocks: (hostname) => a.blocks(hostname) || b.blocks(hostname),
  };
}

/**
 * A host an admin blocks (`evil.example`, or `*.evil.example`, which means the same), as
 * the list keeps it; 400 when it is no host name.
 */
export function parseBlockedHost(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  const host = text === '' || text.length > 253 ? undefined : hostOf(text.replace(/^\*\./, ''));
  if (host === undefined) throw badRequest(Messages.blockedHostRule);
  return host;
}

/** A blocklist entry as a canonical hostname (no port), or undefined when it is none. */
function hostOf(entry: string): string | undefined {
  if (entry.includes(':') && !/^\[[0-9a-f:.]+\]$/i.test(entry)) return undefined;
  return normalizeHost(entry);
}

/** Where kurz itself is reached, for the self-link check. */
export interface SelfHosts {
  /** The base URL's host and every registered domain's. */
  own: OwnHosts;
  /** The canonical Host the request came to (kurz reached by its LAN address, say). */
  requestHost?: string | undefined;
}

/**
 * Checks a target URL that parseTargetUrl already accepted: 400 `URL must not point to
 * this service` when it leads back to kurz (see serviceKey: loopback names are one, ports
 * 80 and 443 are one), 400 `URL is blocked` when its domain is on the blocklist.
 */
export function checkTarget(url: string, self: SelfHosts, blocklist: Blocklist | undefined): void {
  const target = URL.parse(url);
  if (target === null) return;
  const key = serviceKey(urlHost(target));
  if (self.own.services.has(key)) throw badRequest(Messages.urlSelf);
  if (self.requestHost !== undefined && serviceKey(self.requestHost) === key) {
    throw badRequest(Messages.urlSelf);
  }
  if (blocklist?.blocks(target.hostname)) throw badRequest(Messages.urlBlocked);
}
