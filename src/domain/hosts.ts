// One host normaliser for every check that compares hosts: the redirect choosing a
// domain by Host, self-links, the blocklist and the cross-origin check. Two spellings of
// one host must never pass one check and fail another.

/** A scheme a host is served under, for its default port. */
export type WebScheme = 'http:' | 'https:';

export const DEFAULT_PORTS: Readonly<Record<WebScheme, string>> = {
  'http:': '80',
  'https:': '443',
};

/** `[::ffff:a.b.c.d]` as the URL parser writes it: `[::ffff:XXXX:XXXX]`. */
const MAPPED_V4 = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/;

/**
 * A hostname (as the URL parser gives it: lower case, IDN in punycode, IPv4 in dotted
 * form, IPv6 in brackets) without a trailing dot, and an IPv4-mapped IPv6 address
 * unmapped to its IPv4 form.
 */
export function canonicalHostname(hostname: string): string {
  let host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  const mapped = MAPPED_V4.exec(host);
  if (mapped !== null) {
    const high = Number.parseInt(mapped[1] as string, 16);
    const low = Number.parseInt(mapped[2] as string, 16);
    host = `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return host;
}

/**
 * The canonical form of a host as a request's Host header or a URL's authority carries
 * it: `hostname` or `hostname:port`, the hostname as canonicalHostname gives it, and the
 * port dropped when it is the default of `scheme` (of either scheme when none is given:
 * a Host header does not say which the client used). Undefined when it is no host.
 */
export function normalizeHost(host: string, scheme?: WebScheme): string | undefined {
  if (host === '' || /[\s/\\?#@]/.test(host)) return undefined;
  // Parsed under its own scheme, so that the parser drops that scheme's default port only.
  const url = URL.parse(`${scheme ?? 'http:'}//${host}/`);
  if (url === null || url.hostname === '') return undefined;
  const hostname = canonicalHostname(url.hostname);
  // The URL parser lets through names no DNS or browser would use (`*.lan`, `a..b`).
  if (!isIpLiteral(hostname) && !isDomainName(hostname)) return undefined;
  return url.port === '' ? hostname : hostKey(hostname, url.port, scheme);
}

/** The canonical host of a parsed http(s) URL (its scheme decides the default port). */
export function urlHost(url: URL): string {
  const scheme = url.protocol as WebScheme;
  return hostKey(canonicalHostname(url.hostname), url.port || DEFAULT_PORTS[scheme], scheme);
}

function hostKey(hostname: string, port: string, scheme: WebScheme | undefined): string {
  const isDefault =
    scheme === undefined ? port === '80' || port === '443' : port === DEFAULT_PORTS[scheme];
  return isDefault ? hostname : `${hostname}:${port}`;
}

/**
 * Whether a canonical hostname (no port) names this machine: `localhost` and its
 * subdomains, 127/8, ::1, and the unspecified addresses 0.0.0.0 and ::, through which a
 * connection reaches this machine too.
 */
export function isLoopbackHostname(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    hostname === '[::]' ||
    hostname === '0.0.0.0' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/** Whether a canonical hostname is an IP literal (dotted IPv4, or IPv6 in brackets). */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

const LABELS =
  /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Whether a canonical hostname is a domain name: labels of letters, digits, `-` and `_`
 * (which DNS carries, and some LANs use), none starting or ending with `-`.
 */
export function isDomainName(hostname: string): boolean {
  return LABELS.test(hostname);
}

/** The hostname and port of a canonical host key (`h` or `h:port`). */
export function splitHost(key: string): { hostname: string; port: string | undefined } {
  const colon = key.lastIndexOf(':');
  if (colon === -1 || key.endsWith(']')) return { hostname: key, port: undefined };
  return { hostname: key.slice(0, colon), port: key.slice(colon + 1) };
}

/**
 * The key under which two canonical hosts are one service, for telling whether a URL
 * leads back to kurz: every loopback name and address is `localhost` (127.0.0.1:3000 is
 * localhost:3000), and ports 80 and 443 are one port (a site's http:// and https://
 * addresses are one service, the first redirecting to the second).
 */
export function serviceKey(host: string): string {
  const { hostname, port } = splitHost(host);
  const name = isLoopbackHostname(hostname) ? 'localhost' : hostname;
  return port === undefined || port === '80' || port === '443' ? name : `${name}:${port}`;
}

/**
 * The authority of a request's URL, as the client sent it in its Host header (from which
 * Bun builds the URL); normalizeHost makes it canonical. Read without parsing the URL.
 */
export function requestAuthority(requestUrl: string): string {
  const start = requestUrl.indexOf('//') + 2;
  const end = requestUrl.indexOf('/', start);
  return requestUrl.slice(start, end === -1 ? undefined : end);
}
