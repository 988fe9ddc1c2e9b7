// The pure building blocks of click analytics: what a User-Agent says, which site a Referer
// names, and which country an address is in (checked against the CSV the table is built from).

import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { countryOf } from '../../src/analytics/countries.ts';
import { cidrRange, NO_COUNTRY_V4, NO_COUNTRY_V6 } from '../../src/analytics/country-table.ts';
import { DIRECT, referrerHost, UNKNOWN_REFERRER } from '../../src/analytics/referrers.ts';
import { AGENT_CACHE_SIZE, describeAgent } from '../../src/analytics/user-agents.ts';

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('user agents', () => {
  test.each([
    [CHROME_WINDOWS, 'Chrome', 'Windows', 'desktop'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0',
      'Edge',
      'Windows',
      'desktop',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
      'Safari',
      'Mac OS',
      'desktop',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
      'Firefox',
      'Linux',
      'desktop',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      'Mobile Safari',
      'iOS',
      'mobile',
    ],
    [
      'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      'Mobile Safari',
      'iOS',
      'tablet',
    ],
    [
      'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
      'Chrome',
      'Android',
      'mobile',
    ],
    [
      'Mozilla/5.0 (Linux; Android 13; SM-R910) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
      'Chrome',
      'Android',
      'wearable',
    ],
    [
      'Mozilla/5.0 (PlayStation 5 3.11) AppleWebKit/605.1.15 (KHTML, like Gecko)',
      'WebKit',
      'PlayStation',
      'console',
    ],
    [
      'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
      'Samsung Internet',
      'Tizen',
      'smarttv',
    ],
  ])('%s', (userAgent, browser, os, device) => {
    expect(describeAgent(userAgent)).toEqual({ browser, os, device, bot: false });
  });

  test('bots are bots, whatever browser they name', () => {
    expect(
      describeAgent('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
    ).toEqual({ browser: 'Unknown', os: 'Unknown', device: 'bot', bot: true });
    expect(describeAgent('curl/8.5.0')).toMatchObject({ device: 'bot', bot: true });
    expect(describeAgent('python-requests/2.31.0')).toMatchObject({ device: 'bot', bot: true });
    expect(
      describeAgent('facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)'),
    ).toMatchObject({ device: 'bot', bot: true });
    // The parser still names what a headless browser claims to be.
    expect(describeAgent(CHROME_WINDOWS.replace('Chrome/', 'HeadlessChrome/'))).toEqual({
      browser: 'Chrome Headless',
      os: 'Windows',
      device: 'bot',
      bot: true,
    });
  });

  test('no User-Agent, or an empty one, is unknown but not a bot (isbot says so too)', () => {
    const none = { browser: 'Unknown', os: 'Unknown', device: 'unknown', bot: false };
    expect(describeAgent(null)).toEqual(none);
    expect(describeAgent('')).toEqual(none);
  });

  test('the answer is one frozen object per agent string', () => {
    const first = describeAgent(CHROME_WINDOWS);
    expect(describeAgent(CHROME_WINDOWS)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(describeAgent(null))).toBe(true);
  });

  test(`at most ${AGENT_CACHE_SIZE} agents are remembered, the oldest forgotten first`, () => {
    const oldest = 'kurz-test-agent/0';
    const remembered = describeAgent(oldest);
    for (let i = 1; i <= AGENT_CACHE_SIZE; i++) describeAgent(`kurz-test-agent/${i}`);
    const again = describeAgent(oldest);
    expect(again).not.toBe(remembered);
    expect(again).toEqual(remembered);
    // The newest are still there.
    const newest = `kurz-test-agent/${AGENT_CACHE_SIZE}`;
    expect(describeAgent(newest)).toBe(describeAgent(newest));
  });
});

describe('referrers', () => {
  test.each([
    [null, DIRECT],
    ['', DIRECT],
    ['https://www.example.com/some/page', 'www.example.com'],
    ['HTTPS://WWW.Example.COM/Path', 'www.example.com'],
    ['http://example.com', 'example.com'],
    // A default port goes, another stays; user info never shows.
    ['https://example.com:443/', 'example.com'],
    ['https://example.com:8443/x', 'example.com:8443'],
    ['https://user:secret@example.com/', 'example.com'],
    // IDNs in their ASCII form, so that both spellings count as one site.
    ['https://bücher.de/', 'xn--bcher-kva.de'],
    ['https://xn--bcher-kva.de/', 'xn--bcher-kva.de'],
    ['http://[2001:DB8::1]:8080/', '[2001:db8::1]:8080'],
    ['http://192.0.2.1/', '192.0.2.1'],
    // Apps and other schemes with a host keep their scheme.
    ['android-app://com.google.android.gm/', 'android-app://com.google.android.gm'],
    ['android-app://Com.Google.Android.GM', 'android-app://com.google.android.gm'],
    ['ftp://Files.Example.com/pub', 'ftp://files.example.com'],
    // No host, or no URL at all.
    ['about:blank', UNKNOWN_REFERRER],
    ['file:///etc/passwd', UNKNOWN_REFERRER],
    ['data:text/html,hi', UNKNOWN_REFERRER],
    ['example.com/page', UNKNOWN_REFERRER],
    ['not a url', UNKNOWN_REFERRER],
    ['http://', UNKNOWN_REFERRER],
  ])('%p → %p', (referrer, host) => {
    expect(referrerHost(referrer)).toBe(host);
  });
});

describe('countries', () => {
  test('well-known public addresses', () => {
    expect(countryOf('8.8.8.8')).toBe('US');
    expect(countryOf('2001:4860:4860::8888')).toBe('US');
    // What the table says of 1.1.1.0/24 and RIPE's own block, read from the CSV.
    expect(countryOf('1.1.1.1')).toBe(v4Reference(ipv4Number('1.1.1.1')));
    expect(countryOf('193.0.6.139')).toBe(v4Reference(ipv4Number('193.0.6.139')));
  });

  test('the forms a socket or a proxy header gives', () => {
    for (const form of [
      '::ffff:8.8.8.8',
      '::FFFF:8.8.8.8',
      '::ffff:808:808',
      '0:0:0:0:0:ffff:8.8.8.8',
      '[::ffff:8.8.8.8]',
    ]) {
      expect(countryOf(form)).toBe('US');
    }
    // The upper half of the IPv4 space, whose first bit is a sign bit to 32-bit integers.
    for (const address of ['128.0.105.1', '200.1.2.3', '223.255.255.255']) {
      expect(countryOf(address)).not.toBeNull();
      expect(countryOf(`::ffff:${address}`)).toBe(countryOf(address));
    }
    for (const form of [
      '2001:4860:4860:0:0:0:0:8888',
      '2001:4860:4860:0000:0000:0000:0000:8888',
      '2001:4860:4860::8888%eth0',
      '2001:4860:4860::8888%25',
      '[2001:4860:4860::8888]',
      '2001:4860:4860::',
      '2001:4860:4860::0.0.0.1',
      '2001:4860:4860:ABCD::',
    ]) {
      expect(countryOf(form)).toBe('US');
    }
  });

  test('private, loopback and other special-purpose addresses have no country', () => {
    for (const address of [
      '0.0.0.0',
      '10.1.2.3',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.1.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.2.10',
      '192.168.1.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.251',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:192.168.1.1',
      '::ffff:127.0.0.1',
      '64:ff9b::808:808',
      'fe80::1%eth0',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '2001:2::1',
      '2002:c000:204::1',
      '3fff::1',
    ]) {
      expect({ address, country: countryOf(address) }).toEqual({ address, country: null });
    }
  });

  test('the neighbours of special-purpose blocks keep their country', () => {
    expect(countryOf('11.0.0.0')).toBe(v4Reference(ipv4Number('11.0.0.0')));
    expect(countryOf('172.15.255.255')).toBe(v4Reference(ipv4Number('172.15.255.255')));
    expect(countryOf('172.32.0.0')).toBe(v4Reference(ipv4Number('172.32.0.0')));
    expect(countryOf('223.255.255.255')).toBe(v4Reference(ipv4Number('223.255.255.255')));
    expect(countryOf('11.0.0.0')).not.toBeNull();
  });

  test('what is no address has no country', () => {
    for (const text of [
      null,
      undefined,
      '',
      'localhost',
      'garbage',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.256',
      '01.2.3.4',
      '1.2.3.04',
      '1..3.4',
      '1.2.3.',
      '.1.2.3',
      ' 8.8.8.8',
      '8.8.8.8 ',
      '8.8.8.8:80',
      '1.2.3.-4',
      '١.٢.٣.٤',
      '8.8.8.8%eth0',
      ':',
      ':::',
      ':2001:4860::1',
      '2001:4860::1:',
      '2001:4860::8888::1',
      '2001:4860:4860:0:0:0:0:8888:1',
      '2001:4860:4860:0:0:0:8888',
      '2001:4860:4860::08888',
      '2001:4860:4860::g',
      '2001:4860:4860::8888%',
      '::ffff:8.8.8',
      '::ffff:8.8.8.8.8',
      '::ffff:8.8.8.8:1',
      '1:2:3:4:5:6:7:8.8.8.8',
      '[2001:4860:4860::8888',
      '2001:4860:4860::8888]',
      '[8.8.8.8',
    ]) {
      expect({ text, country: countryOf(text) }).toEqual({ text, country: null });
    }
  });

  test('IPv4: every 400th range of the CSV, at its start, middle and end', () => {
    let checked = 0;
    for (let i = 0; i < v4Rows.length; i += 400) {
      const row = v4Rows[i] as V4Row;
      for (const address of [row.start, Math.floor((row.start + row.end) / 2), row.end]) {
        const text = ipv4Text(address);
        const expected = v4Reference(address);
        expect({ text, country: countryOf(text) }).toEqual({ text, country: expected });
        expect(countryOf(`::ffff:${text}`)).toBe(expected);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2000);
  });

  test('IPv4: where ranges nest, the later, more specific one wins until it ends', () => {
    let nested = 0;
    for (let i = 1; i < v4Rows.length; i++) {
      const outer = v4Rows[i - 1] as V4Row;
      const inner = v4Rows[i] as V4Row;
      if (inner.end > outer.end) continue;
      nested++;
      for (const address of [inner.start, inner.end, inner.end + 1, inner.start - 1]) {
        const text = ipv4Text(address);
        expect({ text, country: countryOf(text) }).toEqual({
          text,
          country: v4Reference(address),
        });
      }
    }
    expect(nested).toBeGreaterThan(500);
  });

  test('IPv6: every 200th range of the CSV, at its start, middle and end', () => {
    let checked = 0;
    for (let i = 0; i < v6Rows.length; i += 200) {
      const row = v6Rows[i] as V6Row;
      for (const address of [row.start, (row.start + row.end) / 2n, row.end]) {
        // Inside a /64 that the data splits the answer is the country at the /64's end.
        if (splitPrefixes.has(address >> 64n)) continue;
        const text = ipv6Text(address);
        expect({ text, country: countryOf(text) }).toEqual({ text, country: v6Reference(address) });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2000);
  });
});

// The CSV the table is built from, and a slow but plain reading of it: an address is in the
// country of the last row that covers it, unless it is in a special-purpose block.

const csvFolder = dirname(
  Bun.resolveSync('@ip-location-db/geo-whois-asn-country/package.json', import.meta.dir),
);
const csv = (name: string) =>
  readFileSync(join(csvFolder, name), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split(',') as [string, string, string]);

interface V4Row {
  start: number;
  end: number;
  country: string;
}
interface V6Row {
  start: bigint;
  end: bigint;
  country: string;
}

const v4Rows: V4Row[] = csv('geo-whois-asn-country-ipv4-num.csv').map(([s, e, c]) => ({
  start: Number(s),
  end: Number(e),
  country: c,
}));
const v6Rows: V6Row[] = csv('geo-whois-asn-country-ipv6-num.csv').map(([s, e, c]) => ({
  start: BigInt(s),
  end: BigInt(e),
  country: c,
}));
const v4Special = NO_COUNTRY_V4.map(cidrRange);
const v6Special = NO_COUNTRY_V6.map(cidrRange);

/** The /64s in which a range of the data starts or ends other than on a /64 boundary. */
const splitPrefixes = new Set<bigint>();
const LOW64 = (1n << 64n) - 1n;
for (const row of v6Rows) {
  if ((row.start & LOW64) !== 0n) splitPrefixes.add(row.start >> 64n);
  if ((row.end & LOW64) !== LOW64) splitPrefixes.add(row.end >> 64n);
}

function v4Reference(address: number): string | null {
  if (v4Special.some(([first, last]) => BigInt(address) >= first && BigInt(address) <= last)) {
    return null;
  }
  // Rows are sorted by start: look back from the last one starting at or before the address.
  const high = upperBound(v4Rows.length, (i) => (v4Rows[i] as V4Row).start <= address);
  for (let i = high - 1; i >= 0; i--) {
    const row = v4Rows[i] as V4Row;
    if (row.end >= address) return row.country;
  }
  return null;
}

function v6Reference(address: bigint): string | null {
  if (v6Special.some(([first, last]) => address >= first && address <= last)) return null;
  const high = upperBound(v6Rows.length, (i) => (v6Rows[i] as V6Row).start <= address);
  for (let i = high - 1; i >= 0; i--) {
    const row = v6Rows[i] as V6Row;
    if (row.end >= address) return row.country;
  }
  return null;
}

/** The number of leading indexes for which `before` holds (it holds, then no longer). */
function upperBound(length: number, before: (i: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(mid)) low = mid + 1;
    else high = mid;
  }
  return low;
}

function ipv4Number(text: string): number {
  return text.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function ipv4Text(address: number): string {
  return [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join('.');
}

function ipv6Text(address: bigint): string {
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) {
    groups.push(((address >> shift) & 0xffffn).toString(16));
  }
  return groups.join(':');
}
