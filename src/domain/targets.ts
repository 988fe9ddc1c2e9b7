// Which hosts a new link may point to: never kurz itself (a short link of a short link, or
// a redirect loop), never a domain on the operator's blocklist. The blocklist is a text
// file, one domain a line, matching the domain and its subdomains.

import { badRequest, Messages } from './errors.ts';

export interface Blocklist {
  /** Domains on the list (lower case, IDNs in their ASCII form). */
  readonly domains: ReadonlySet<string>;
  /** True when `hostname` is a listed domain or a subdomain of one. */
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

const LABELS =
  /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

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
  return {
    domains,
    blocks(hostname) {
      let host = withoutTrailingDot(hostname);
      if (domains.has(host)) return true;
      // An IP address has no parent domains.
      if (host.startsWith('[') || /^[\d.]+$/.test(host)) return false;
      for (let dot = host.indexOf('.'); dot !== -1; dot = host.indexOf('.')) {
        host = host.slice(dot + 1);
        if (domains.has(host)) return true;
      }
      return false;
    },
  };
}

/** A blocklist entry as the URL parser would write its host, or undefined when it is none. */
function hostOf(entry: string): string | undefined {
  if (/[\s/\\?#@:]/.test(entry) && !/^\[[0-9a-f:.]+\]$/i.test(entry)) return undefined;
  const url = URL.parse(`http://${entry}/`);
  if (url === null || url.hostname === '') return undefined;
  const host = withoutTrailingDot(url.hostname);
  return host.startsWith('[') || /^[\d.]+$/.test(host) || LABELS.test(host) ? host : undefined;
}

function withoutTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** The addresses kurz itself answers on: the base URL and the Host a request came to. */
export interface OwnHosts {
  baseUrl: string;
  /** The request's Host header, when it has one. */
  requestHost?: string | null;
}

/**
 * Checks a target URL that parseTargetUrl already accepted: 400 `URL must not point to
 * this service` when its host and port are kurz's own, 400 `URL is blocked` when its
 * domain is on the blocklist.
 */
export function checkTarget(url: string, own: OwnHosts, blocklist: Blocklist | undefined): void {
  const target = URL.parse(url);
  if (target === null) return;
  if (pointsTo(target, URL.parse(own.baseUrl))) throw badRequest(Messages.urlSelf);
  if (own.requestHost && pointsTo(target, URL.parse(`${target.protocol}//${own.requestHost}/`))) {
    throw badRequest(Messages.urlSelf);
  }
  if (blocklist?.blocks(target.hostname)) throw badRequest(Messages.urlBlocked);
}

/**
 * Whether a target reaches the service at `self`: the same host, and the same port, or
 * both on their scheme's default port (http://s.example redirects to https://s.example).
 */
function pointsTo(target: URL, self: URL | null): boolean {
  if (self === null || self.hostname === '') return false;
  if (withoutTrailingDot(target.hostname) !== withoutTrailingDot(self.hostname)) return false;
  return portOf(target) === portOf(self) || (target.port === '' && self.port === '');
}

function portOf(url: URL): string {
  return url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
}
