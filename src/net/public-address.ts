// Whether an IP address is on the public internet: webhooks may call only such
// addresses (unless the operator allows private ones), so that a URL cannot make kurz
// probe its own host or network. IPv4 by the IANA special-purpose registry; IPv6 by an
// allow-list (global unicast, 2000::/3) less its special blocks, with the IPv4 address
// inside a mapped or NAT64 address judged as IPv4.

import { BlockList, isIP } from 'node:net';

/** IPv4 blocks that are not public: this network, private, shared (CGNAT), loopback, … */
const NOT_PUBLIC_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space (CGNAT, RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

/** IPv6 blocks inside 2000::/3 that are not public. */
const NOT_PUBLIC_V6: readonly [string, number][] = [
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, …)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address of any kind behind a relay
  ['3fff::', 20], // documentation
];

const notPublicV4 = new BlockList();
for (const [address, prefix] of NOT_PUBLIC_V4) notPublicV4.addSubnet(address, prefix, 'ipv4');
const notPublicV6 = new BlockList();
for (const [address, prefix] of NOT_PUBLIC_V6) notPublicV6.addSubnet(address, prefix, 'ipv6');

/**
 * True when `address` (an IPv4 or IPv6 literal, without brackets) is a public unicast
 * address; false for anything else, including what is not an address at all.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !notPublicV4.check(address, 'ipv4');
  if (family !== 6) return false;
  const groups = ipv6Groups(address);
  if (groups === undefined) return false;
  const embedded = embeddedIpv4(groups);
  if (embedded !== undefined) return isPublicAddress(embedded);
  // Global unicast is 2000::/3; everything outside it (loopback, unspecified,
  // link-local fe80::/10, unique-local fc00::/7, multicast ff00::/8, …) is not public.
  if (((groups[0] as number) & 0xe000) !== 0x2000) return false;
  return !notPublicV6.check(address, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address stands for: IPv4-mapped (::ffff:a.b.c.d), which a
 * dual-stack socket connects to over IPv4, and the NAT64 well-known prefix
 * (64:ff9b::a.b.c.d), which a NAT64 gateway forwards there.
 */
function embeddedIpv4(groups: readonly number[]): string | undefined {
  const [a, b, c, d, e, f, g, h] = groups as [number, ...number[]];
  const mapped = a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff;
  const nat64 = a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0;
  if (!mapped && !nat64) return undefined;
  return [(g as number) >> 8, (g as number) & 0xff, (h as number) >> 8, (h as number) & 0xff].join(
    '.',
  );
}

/** The eight 16-bit groups of an IPv6 literal (`::` expanded, a dotted IPv4 tail read). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const octets = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    tail = [
      ((octets[0] as number) << 8) | (octets[1] as number),
      ((octets[2] as number) << 8) | (octets[3] as number),
    ];
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = rest === undefined ? [] : parse(rest);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined;
  const groups = [...front, ...new Array<number>(missing).fill(0), ...back];
  if (tail.length === 2) groups.splice(6, 2, ...tail);
  return groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff) ? undefined : groups;
}
