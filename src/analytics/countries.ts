// The country of a client address, so that a click can be counted by country without its
// address ever being stored. The table is packed into the code at bundle time (country-table.ts)
// and unpacked on the first lookup: about 600,000 ranges, binary-searched in typed arrays.

import { packedCountryTable } from './country-table.ts' with { type: 'macro' };

const PACKED = packedCountryTable();

interface CountryTable {
  /** Where each IPv4 run starts, ascending; the first is 0. */
  v4Starts: Uint32Array;
  v4Countries: Uint8Array;
  /** Where each IPv6 run starts, as /64 prefixes: upper and lower 32 bits, interleaved. */
  v6Starts: Uint32Array;
  v6Countries: Uint8Array;
  /** Country codes by index; index 0 is no country. */
  codes: (string | null)[];
}

let table: CountryTable | undefined;

/**
 * The ISO 3166-1 alpha-2 code of the country an IPv4 or IPv6 address is registered in, or
 * null: for no address, one that does not parse, private, loopback, link-local, documentation,
 * multicast and other special-purpose addresses, and ranges the table places nowhere.
 * Accepts what a socket or a Forwarded header gives: `1.2.3.4`, `2001:db8::1`, `[2001:db8::1]`,
 * `fe80::1%eth0`, IPv4-mapped `::ffff:1.2.3.4` (looked up as IPv4). No leading zeros in IPv4
 * (`010.0.0.1` is octal to some parsers and decimal to others, so it is no address here).
 */
export function countryOf(address: string | null | undefined): string | null {
  if (address === null || address === undefined) return null;
  let start = 0;
  let end = address.length;
  if (address.charCodeAt(0) === BRACKET_OPEN && address.charCodeAt(end - 1) === BRACKET_CLOSE) {
    start = 1;
    end--;
  }
  const colon = address.indexOf(':', start);
  if (colon === -1 || colon >= end) {
    const v4 = ipv4(address, start, end);
    return v4 === -1 ? null : lookupV4(v4);
  }
  const zone = address.indexOf('%', start);
  if (zone !== -1 && zone < end) {
    if (zone === end - 1) return null;
    end = zone;
  }
  if (!ipv6(address, start, end)) return null;
  const g = GROUPS;
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return lookupV4((((g[6] as number) << 16) | (g[7] as number)) >>> 0);
  }
  return lookupV6(
    (((g[0] as number) << 16) | (g[1] as number)) >>> 0,
    (((g[2] as number) << 16) | (g[3] as number)) >>> 0,
  );
}

const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const DOT = 0x2e;
const COLON = 0x3a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/** The dotted quad in text[start, end) as an unsigned 32-bit number, or -1. */
function ipv4(text: string, start: number, end: number): number {
  let value = 0;
  let parts = 0;
  let i = start;
  while (true) {
    const first = i;
    let part = 0;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c < DIGIT_0 || c > DIGIT_9) break;
      part = part * 10 + (c - DIGIT_0);
    }
    const digits = i - first;
    if (digits === 0 || digits > 3 || part > 255) return -1;
    if (digits > 1 && text.charCodeAt(first) === DIGIT_0) return -1;
    value = value * 256 + part;
    parts++;
    if (i === end) return parts === 4 ? value : -1;
    if (parts === 4 || text.charCodeAt(i) !== DOT) return -1;
    i++;
  }
}

/** The eight 16-bit groups of the last IPv6 address parsed (one buffer: no allocation a call). */
const GROUPS = new Uint16Array(8);

/** Parses the IPv6 address in text[start, end) into GROUPS; false when it is none. */
function ipv6(text: string, start: number, end: number): boolean {
  const g = GROUPS;
  g.fill(0);
  let count = 0;
  /** Where `::` stands, as a group index; -1 when it does not. */
  let gap = -1;
  let i = start;
  if (text.charCodeAt(i) === COLON) {
    if (text.charCodeAt(i + 1) !== COLON) return false;
    gap = 0;
    i += 2;
    if (i === end) return true;
  }
  while (true) {
    const first = i;
    let group = 0;
    for (; i < end && i - first < 5; i++) {
      const digit = hexDigit(text.charCodeAt(i));
      if (digit === -1) break;
      group = (group << 4) | digit;
    }
    if (i < end && text.charCodeAt(i) === DOT) {
      // An IPv4 address in the last 32 bits (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`).
      const v4 = count <= 6 ? ipv4(text, first, end) : -1;
      if (v4 === -1) return false;
      g[count++] = v4 >>> 16;
      g[count++] = v4 & 0xffff;
      break;
    }
    if (i === first || i - first > 4 || count === 8) return false;
    g[count++] = group;
    if (i === end) break;
    if (text.charCodeAt(i) !== COLON) return false;
    i++;
    if (text.charCodeAt(i) === COLON) {
      if (gap !== -1) return false;
      gap = count;
      i++;
      if (i === end) break;
    } else if (i === end) {
      return false;
    }
  }
  if (gap === -1) return count === 8;
  if (count > 7) return false;
  // Move the groups after `::` to the end; what they leave is zeros.
  const moved = count - gap;
  for (let k = 1; k <= moved; k++) {
    g[8 - k] = g[count - k] as number;
    g[count - k] = 0;
  }
  return true;
}

function hexDigit(c: number): number {
  if (c >= DIGIT_0 && c <= DIGIT_9) return c - DIGIT_0;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function lookupV4(address: number): string | null {
  const t = table ?? load();
  const starts = t.v4Starts;
  // The last run starting at or before the address; starts[0] is 0, so there is one.
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if ((starts[mid] as number) <= address) low = mid;
    else high = mid - 1;
  }
  return t.codes[t.v4Countries[low] as number] ?? null;
}

function lookupV6(upper: number, lower: number): string | null {
  const t = table ?? load();
  const starts = t.v6Starts;
  let low = 0;
  let high = starts.length / 2 - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    const u = starts[2 * mid] as number;
    if (u < upper || (u === upper && (starts[2 * mid + 1] as number) <= lower)) low = mid;
    else high = mid - 1;
  }
  return t.codes[t.v6Countries[low] as number] ?? null;
}

/** Unpacks the table (a few milliseconds, once); see PackedCountryTable for the layout. */
function load(): CountryTable {
  const bytes = Bun.inflateSync(Buffer.from(PACKED.packed, 'base64'));
  const n4 = PACKED.v4Ranges;
  const n6 = PACKED.v6Ranges;
  let offset = 0;
  /** The i-th 32-bit delta of the four byte planes of n deltas at `offset`. */
  const delta = (i: number, n: number) =>
    (bytes[offset + i] as number) |
    ((bytes[offset + n + i] as number) << 8) |
    ((bytes[offset + 2 * n + i] as number) << 16) |
    ((bytes[offset + 3 * n + i] as number) << 24);

  const v4Starts = new Uint32Array(n4);
  let at = 0;
  for (let i = 0; i < n4; i++) {
    at = (at + delta(i, n4)) >>> 0;
    v4Starts[i] = at;
  }
  offset += 4 * n4;

  // The upper halves of the 64-bit deltas first, then the lower halves and the carry.
  const v6Starts = new Uint32Array(2 * n6);
  for (let i = 0; i < n6; i++) v6Starts[2 * i] = delta(i, n6);
  offset += 4 * n6;
  let upper = 0;
  let lower = 0;
  for (let i = 0; i < n6; i++) {
    const sum = lower + (delta(i, n6) >>> 0);
    lower = sum >>> 0;
    upper = (upper + (v6Starts[2 * i] as number) + (sum > 0xffffffff ? 1 : 0)) >>> 0;
    v6Starts[2 * i] = upper;
    v6Starts[2 * i + 1] = lower;
  }
  offset += 4 * n6;

  const codes: (string | null)[] = [null];
  for (let i = 0; i < PACKED.codes.length; i += 2) codes.push(PACKED.codes.slice(i, i + 2));
  table = {
    v4Starts,
    // Copies, so that the unpacked buffer (mostly the delta planes) can be collected.
    v4Countries: bytes.slice(offset, offset + n4),
    v6Starts,
    v6Countries: bytes.slice(offset + n4, offset + n4 + n6),
    codes,
  };
  return table;
}
