// Who is asking: the client address every per-client rule uses (rate limits today; link
// passwords and countries later). The socket's peer, unless that peer is a reverse proxy
// the operator named with --trusted-proxies; only then are X-Forwarded-For / Forwarded
// read, from the right, skipping trusted hops, so a client cannot forge its address by
// sending the headers itself.

import { type BlockList, isIP } from 'node:net';
import type { TrustedProxies } from '../config/values.ts';

/**
 * The client's address for a request whose socket peer is `peer` (undefined when not
 * known, as for requests made in-process): the peer itself, or, when the peer is a
 * trusted proxy, the right-most forwarded hop that is not one.
 */
export function clientAddress(
  peer: string | undefined,
  headers: Headers,
  trusted: TrustedProxies,
): string {
  if (peer === undefined) return 'unknown';
  let address = unmapped(peer);
  if (trusted === undefined || !isTrusted(trusted, address)) return address;
  const hops = forwardedHops(headers);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = unmapped(hops[i] as string);
    // A hop that is no address (`unknown`, an obfuscated name) ends the walk: the last
    // trusted proxy is the most that can be said.
    if (isIP(hop) === 0) return address;
    address = hop;
    if (!isTrusted(trusted, hop)) return hop;
  }
  return address;
}

function isTrusted(trusted: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && trusted.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) as the IPv4 address it is. */
function unmapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * The hops a chain of proxies reported, client first: RFC 7239 `Forwarded: for=…` when
 * present, else `X-Forwarded-For`. Ports and brackets are dropped.
 */
export function forwardedHops(headers: Headers): string[] {
  const forwarded = headers.get('forwarded');
  if (forwarded !== null) {
    const hops: string[] = [];
    for (const element of forwarded.split(',')) {
      for (const pair of element.split(';')) {
        const eq = pair.indexOf('=');
        if (eq === -1 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
        hops.push(
          withoutPort(
            pair
              .slice(eq + 1)
              .trim()
              .replace(/^"|"$/g, ''),
          ),
        );
      }
    }
    return hops;
  }
  const xff = headers.get('x-forwarded-for');
  if (xff === null) return [];
  return xff.split(',').map((hop) => withoutPort(hop.trim()));
}

function withoutPort(hop: string): string {
  if (hop.startsWith('['))
    return hop.slice(1, hop.indexOf(']') === -1 ? undefined : hop.indexOf(']'));
  // `1.2.3.4:5678`; a bare IPv6 address has more than one colon and no port.
  const colon = hop.indexOf(':');
  return colon !== -1 && colon === hop.lastIndexOf(':') ? hop.slice(0, colon) : hop;
}
