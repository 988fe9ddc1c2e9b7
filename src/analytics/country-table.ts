// A Bun macro: runs when kurz is bundled (or transpiled by `bun run`/`bun test`) and packs the
// IP-to-country ranges of @ip-location-db/geo-whois-asn-country into one compact string that
// countries.ts carries, so the executable needs no file beside it and start-up parses no CSV.
//
// Licence: the package's package.json says CC0-1.0, but the NRO_LICENSE file and README it ships
// say the data (the five regional registries' statistics, merged with geofeeds) is CC BY 4.0 by
// the Number Resource Organization: the executable carries it, so kurz must credit nro.net.
// The README also warns of known errors in the npm copies and says npm updates will stop.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The table as countries.ts unpacks it. `packed` is base64 of the DEFLATE of, in order: the
 * deltas between consecutive IPv4 range starts as four byte planes (all low bytes, then all
 * second bytes, …), the same for the deltas between IPv6 range starts (upper 32 bits of the
 * /64 prefix, then lower 32 bits), then one country index byte per IPv4 range and per IPv6
 * range. Deltas split in byte planes are mostly zeros, which DEFLATE shrinks to a seventh.
 */
export interface PackedCountryTable {
  /** Two letters per country: country byte i (from 1; 0 is none) is codes.slice(2i - 2, 2i). */
  codes: string;
  v4Ranges: number;
  v6Ranges: number;
  packed: string;
}

/**
 * Addresses that are no country's, whatever the data says (it does place 192.168.0.0/16 in
 * AU and 2001:db8::/32 in JP): the special-purpose blocks of the IANA registries (RFC 6890
 * and successors), and in IPv6 everything outside global unicast 2000::/3.
 */
export const NO_COUNTRY_V4 = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relays (deprecated)
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address
];
export const NO_COUNTRY_V6 = [
  '::/3', // unspecified, loopback, IPv4-mapped (looked up as IPv4 before), NAT64, discard
  '2001::/23', // IETF protocol assignments: Teredo, benchmarking, ORCHID
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  '3fff::/20', // documentation
  '4000::/2', // unassigned, unique local, link-local, multicast …
  '8000::/1',
];

const PACKAGE = '@ip-location-db/geo-whois-asn-country';

export function packedCountryTable(): PackedCountryTable {
  const folder = dirname(Bun.resolveSync(`${PACKAGE}/package.json`, import.meta.dir));
  const read = (name: string) => readFileSync(join(folder, name), 'utf8');
  const v4 = flatten(
    rows(read('geo-whois-asn-country-ipv4-num.csv')),
    NO_COUNTRY_V4.map(cidrRange),
    32,
  );
  const v6 = prefixes64(
    flatten(rows(read('geo-whois-asn-country-ipv6-num.csv')), NO_COUNTRY_V6.map(cidrRange), 128),
  );

  const countries = [...new Set([...v4.countries, ...v6.countries])].filter((c) => c !== '');
  countries.sort();
  if (countries.length > 255) throw new Error(`${PACKAGE}: more than 255 countries`);
  const index = new Map(countries.map((c, i) => [c, i + 1]));
  index.set('', 0);

  const n4 = v4.starts.length;
  const n6 = v6.starts.length;
  const bytes = new Uint8Array(4 * n4 + 8 * n6 + n4 + n6);
  let offset = 0;
  const planes = (deltas: Uint32Array) => {
    const n = deltas.length;
    for (let i = 0; i < n; i++) {
      const d = deltas[i] as number;
      bytes[offset + i] = d & 0xff;
      bytes[offset + n + i] = (d >>> 8) & 0xff;
      bytes[offset + 2 * n + i] = (d >>> 16) & 0xff;
      bytes[offset + 3 * n + i] = d >>> 24;
    }
    offset += 4 * n;
  };
  const deltas = (starts: bigint[], shift: bigint) => {
    const out = new Uint32Array(starts.length);
    let previous = 0n;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i] as bigint;
      out[i] = Number(((start - previous) >> shift) & 0xffffffffn);
      previous = start;
    }
    return out;
  };
  planes(deltas(v4.starts, 0n));
  // A 64-bit delta as two 32-bit halves; countries.ts adds them back with the carry.
  planes(deltas(v6.starts, 32n));
  planes(deltas(v6.starts, 0n));
  for (const c of [...v4.countries, ...v6.countries]) bytes[offset++] = index.get(c) as number;

  return {
    codes: countries.join(''),
    v4Ranges: n4,
    v6Ranges: n6,
    packed: Buffer.from(Bun.deflateSync(bytes)).toString('base64'),
  };
}

type Row = [start: bigint, end: bigint, country: string];

/** Rows of `start,end,country` with the addresses as decimal numbers, in the file's order. */
function rows(csv: string): Row[] {
  const out: Row[] = [];
  for (const line of csv.split('\n')) {
    if (line === '') continue;
    const [start, end, country] = line.split(',');
    if (country === undefined || !/^[A-Z]{2}$/.test(country)) {
      throw new Error(`${PACKAGE}: unexpected line "${line}"`);
    }
    out.push([BigInt(start as string), BigInt(end as string), country]);
  }
  return out;
}

/** Runs of one country (or of none, '') in address order: where each starts, and whose it is. */
class Runs {
  readonly starts: bigint[] = [];
  readonly countries: string[] = [];

  /** From `at` on, `country`; a later call for the same `at` replaces an earlier one. */
  set(at: bigint, country: string): void {
    if (this.starts.at(-1) === at) this.countries[this.countries.length - 1] = country;
    else {
      this.starts.push(at);
      this.countries.push(country);
    }
  }

  /** The same runs with neighbours of one country joined. */
  joined(): Runs {
    const out = new Runs();
    for (let i = 0; i < this.starts.length; i++) {
      if (out.countries.at(-1) !== this.countries[i]) {
        out.set(this.starts[i] as bigint, this.countries[i] as string);
      }
    }
    return out;
  }
}

/**
 * Turns the rows into runs. The rows are sorted by start but nest (a /16 of one country,
 * then a /24 inside it of another): where rows overlap, the later row wins, as the more
 * specific entry of a geofeed does. Then the blocks of no country are cut out.
 */
function flatten(table: Row[], noCountry: [bigint, bigint][], bits: number): Runs {
  const runs = new Runs();
  // Rows still open at the sweep's position; the top one is in force.
  const open: { end: bigint; country: string }[] = [];
  const closeBefore = (at: bigint) => {
    for (let top = open.at(-1); top !== undefined && top.end < at; top = open.at(-1)) {
      open.pop();
      // Rows under the top that end no later than it were hidden until their end.
      while (open.length > 0 && (open.at(-1)?.end as bigint) <= top.end) open.pop();
      runs.set(top.end + 1n, open.at(-1)?.country ?? '');
    }
  };
  runs.set(0n, '');
  for (const [start, end, country] of table) {
    closeBefore(start);
    open.push({ end, country });
    runs.set(start, country);
  }
  const limit = 1n << BigInt(bits);
  closeBefore(limit);

  const out = new Runs();
  let i = 0;
  let inForce = '';
  for (const [first, last] of noCountry.sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    for (; i < runs.starts.length && (runs.starts[i] as bigint) < first; i++) {
      inForce = runs.countries[i] as string;
      out.set(runs.starts[i] as bigint, inForce);
    }
    out.set(first, '');
    for (; i < runs.starts.length && (runs.starts[i] as bigint) <= last; i++) {
      inForce = runs.countries[i] as string;
    }
    if (last + 1n < limit) out.set(last + 1n, inForce);
  }
  for (; i < runs.starts.length; i++) {
    if ((runs.starts[i] as bigint) < limit)
      out.set(runs.starts[i] as bigint, runs.countries[i] as string);
  }
  return out.joined();
}

/**
 * IPv6 runs keyed by their /64 prefix, which is all countries.ts compares: registries and
 * geofeeds place IPv6 at /64 or coarser, save a few thousand geofeed entries for single
 * addresses. A /64 that the data splits takes the country in force at its end, so that the
 * /64s after it stay right.
 */
function prefixes64(runs: Runs): Runs {
  const out = new Runs();
  for (let i = 0; i < runs.starts.length; i++) {
    out.set((runs.starts[i] as bigint) >> 64n, runs.countries[i] as string);
  }
  return out.joined();
}

/** A CIDR block written out as its first and last address (written well: a build-time table). */
export function cidrRange(block: string): [bigint, bigint] {
  const [address = '', length = ''] = block.split('/');
  const bits = address.includes(':') ? 128 : 32;
  let value = 0n;
  if (bits === 32) {
    for (const part of address.split('.')) value = (value << 8n) | BigInt(part);
  } else {
    const [head = '', tail] = address.split('::');
    const groups = (text: string) => (text === '' ? [] : text.split(':'));
    const left = groups(head);
    const right = tail === undefined ? [] : groups(tail);
    const all = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
    for (const group of all) value = (value << 16n) | BigInt(`0x${group}`);
  }
  const host = (1n << BigInt(bits - Number(length))) - 1n;
  return [value & ~host, value | host];
}
