// The one host normaliser, and the checks that compare hosts through it: two spellings of
// one host must never pass one check and fail another.

import { describe, expect, test } from 'bun:test';
import {
  canonicalHostname,
  isDomainName,
  isIpLiteral,
  isLoopbackHostname,
  normalizeHost,
  requestAuthority,
  serviceKey,
  splitHost,
  urlHost,
} from '../../src/domain/hosts.ts';
import {
  baseUrlHost,
  isKnownHostname,
  liveOwnHosts,
  ownHostsOf,
} from '../../src/domain/own-hosts.ts';
import { checkTarget, parseBlocklist, type SelfHosts } from '../../src/domain/targets.ts';

describe('normalizeHost', () => {
  test.each([
    ['KURZ.Example', 'kurz.example'],
    ['kurz.example.', 'kurz.example'],
    ['Kurz.Example.:8080', 'kurz.example:8080'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['BÜCHER.example.', 'xn--bcher-kva.example'],
    ['[::ffff:127.0.0.1]:3000', '127.0.0.1:3000'],
    ['[::FFFF:cb00:7107]', '203.0.113.7'],
    ['[::1]:3000', '[::1]:3000'],
    ['[2001:DB8::1]', '[2001:db8::1]'],
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['_dmarc.example', '_dmarc.example'],
  ])('%p is %p', (host, canonical) => {
    expect(normalizeHost(host)).toBe(canonical);
  });

  test('a Host header says no scheme: ports 80 and 443 are both dropped', () => {
    expect(normalizeHost('kurz.example:80')).toBe('kurz.example');
    expect(normalizeHost('kurz.example:443')).toBe('kurz.example');
    expect(normalizeHost('kurz.example:3000')).toBe('kurz.example:3000');
  });

  test("with a scheme, only that scheme's default port is dropped", () => {
    expect(normalizeHost('kurz.example:443', 'https:')).toBe('kurz.example');
    expect(normalizeHost('kurz.example:443', 'http:')).toBe('kurz.example:443');
    expect(normalizeHost('kurz.example:80', 'http:')).toBe('kurz.example');
    expect(normalizeHost('kurz.example:80', 'https:')).toBe('kurz.example:80');
  });

  test.each([
    '',
    ' ',
    'kurz example',
    'kurz.example/x',
    'user@kurz.example',
    'kurz.example?x',
    'kurz.example#x',
    'a\\b',
    'kurz.example:99999',
    'kurz.example:x',
    '*.example',
    'a..b',
    '-leading.example',
    '[::1',
    '[zz::1]',
    '.',
  ])('junk is refused: %p', (junk) => {
    expect(normalizeHost(junk)).toBeUndefined();
  });
});

describe('urlHost', () => {
  test("the URL's scheme decides which default port is dropped", () => {
    expect(urlHost(new URL('https://Kurz.Example.:443/x'))).toBe('kurz.example');
    expect(urlHost(new URL('http://kurz.example:80/x'))).toBe('kurz.example');
    expect(urlHost(new URL('http://kurz.example:443/x'))).toBe('kurz.example:443');
    expect(urlHost(new URL('http://[::ffff:127.0.0.1]:3000/x'))).toBe('127.0.0.1:3000');
    expect(urlHost(new URL('https://[::ffff:203.0.113.7]/'))).toBe('203.0.113.7');
  });
});

describe('the parts of a canonical host', () => {
  test('canonicalHostname drops a final dot and unmaps IPv4-mapped IPv6', () => {
    expect(canonicalHostname('kurz.example.')).toBe('kurz.example');
    expect(canonicalHostname('[::ffff:7f00:1]')).toBe('127.0.0.1');
    expect(canonicalHostname('[::1]')).toBe('[::1]');
  });

  test('loopback: localhost and its subdomains, 127/8, ::1, and the unspecified addresses', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]']) {
      expect([host, isLoopbackHostname(host)]).toEqual([host, true]);
    }
    for (const host of ['0.0.0.0', '[::]']) expect(isLoopbackHostname(host)).toBe(true);
    for (const host of ['localhost.example', 'mylocalhost', '128.0.0.1', '[::2]', '10.0.0.1']) {
      expect([host, isLoopbackHostname(host)]).toEqual([host, false]);
    }
  });

  test('IP literals and domain names', () => {
    expect(isIpLiteral('203.0.113.7')).toBe(true);
    expect(isIpLiteral('[2001:db8::1]')).toBe(true);
    expect(isIpLiteral('kurz.example')).toBe(false);
    expect(isDomainName('kurz.example')).toBe(true);
    expect(isDomainName('kurz')).toBe(true);
    expect(isDomainName('*.example')).toBe(false);
    expect(isDomainName(`${'a'.repeat(64)}.example`)).toBe(false);
  });

  test('splitHost', () => {
    expect(splitHost('kurz.example:3000')).toEqual({ hostname: 'kurz.example', port: '3000' });
    expect(splitHost('kurz.example')).toEqual({ hostname: 'kurz.example', port: undefined });
    expect(splitHost('[::1]')).toEqual({ hostname: '[::1]', port: undefined });
    expect(splitHost('[::1]:3000')).toEqual({ hostname: '[::1]', port: '3000' });
  });

  test('serviceKey: loopback names and addresses are one, and so are ports 80 and 443', () => {
    for (const host of ['127.0.0.1:3000', '[::1]:3000', 'localhost:3000', 'a.localhost:3000']) {
      expect(serviceKey(host)).toBe('localhost:3000');
    }
    expect(serviceKey('0.0.0.0:3000')).toBe('localhost:3000');
    expect(serviceKey('127.0.0.1')).toBe('localhost');
    expect(serviceKey('kurz.example:443')).toBe('kurz.example');
    expect(serviceKey('kurz.example:80')).toBe('kurz.example');
    expect(serviceKey('kurz.example:8443')).toBe('kurz.example:8443');
  });

  test("requestAuthority reads the Host out of a request's URL", () => {
    expect(requestAuthority('http://Kurz.Example:3000/api/shorten?x=1')).toBe('Kurz.Example:3000');
    expect(requestAuthority('https://[::1]/')).toBe('[::1]');
    expect(requestAuthority('http://kurz.example')).toBe('kurz.example');
  });
});

describe('own hosts', () => {
  test('the base URL and the registered domains, as service keys and as hostnames', () => {
    const own = ownHostsOf(['go.example', 'kurz.example:8443', '127.0.0.1:3000']);
    expect([...own.services]).toEqual(['go.example', 'kurz.example:8443', 'localhost:3000']);
    expect([...own.hostnames]).toEqual(['go.example', 'kurz.example', '127.0.0.1']);
    expect(baseUrlHost('https://Go.Example./')).toBe('go.example');
    expect(baseUrlHost('')).toBeUndefined();
  });

  test('live own hosts are made again only when the base URL or the domain set changes', () => {
    let base = '';
    let domains: ReadonlySet<string> = new Set(['go.example']);
    const own = liveOwnHosts(
      () => base,
      () => domains,
    );
    const first = own();
    expect([...first.hostnames]).toEqual(['go.example']);
    expect(own()).toBe(first);
    base = 'http://localhost:3000';
    const second = own();
    expect([...second.services]).toEqual(['localhost:3000', 'go.example']);
    expect(own()).toBe(second);
    domains = new Set(['go.example', 'to.example']);
    expect([...own().hostnames]).toEqual(['localhost', 'go.example', 'to.example']);
  });

  test("known hosts for a browser's write: own, IP literals, loopback names, allowed names", () => {
    const own = ownHostsOf(['kurz.example', 'go.example']);
    const allowed = new Set(['kurz.lan']);
    for (const host of [
      'kurz.example',
      'go.example',
      'kurz.lan',
      '192.168.1.5',
      '[fd00::5]',
      'localhost',
      'kurz.localhost',
    ]) {
      expect([host, isKnownHostname(host, own, allowed)]).toEqual([host, true]);
    }
    for (const host of ['evil.example', 'www.kurz.example', 'kurz.lan.evil.example', 'kurz']) {
      expect([host, isKnownHostname(host, own, allowed)]).toEqual([host, false]);
    }
  });
});

// The audit of the build before the one normaliser: each of these was accepted.
describe('the checks that compare hosts, through the normaliser', () => {
  const self = (url: string, hosts: SelfHosts) => {
    try {
      checkTarget(url, hosts, undefined);
      return 'accepted';
    } catch (error) {
      return (error as Error).message;
    }
  };
  const SELF = 'URL must not point to this service';

  test('with an IP base URL, the IPv4-mapped IPv6 spelling of it is kurz itself', () => {
    const own = ownHostsOf([urlHost(new URL('http://127.0.0.1:3000'))]);
    expect(self('http://[::ffff:127.0.0.1]:3000/x', { own })).toBe(SELF);
    expect(self('http://[::ffff:7f00:1]:3000/x', { own })).toBe(SELF);
    expect(self('http://[::1]:3000/x', { own })).toBe(SELF);
    expect(self('http://[::ffff:127.0.0.1]:3001/x', { own })).toBe('accepted');
  });

  test('with the default base URL, any loopback name or address on its port is kurz itself', () => {
    const own = ownHostsOf([urlHost(new URL('http://localhost:3000'))]);
    const requestHost = normalizeHost('localhost:3000');
    for (const url of [
      'http://127.0.0.1:3000/x',
      'http://127.8.9.10:3000/x',
      'http://[::1]:3000/x',
      'http://LOCALHOST.:3000/x',
      'http://app.localhost:3000/x',
      'http://0.0.0.0:3000/x',
    ]) {
      expect([url, self(url, { own, requestHost })]).toEqual([url, SELF]);
    }
    // The same machine on another port is another service.
    expect(self('http://127.0.0.1:8080/x', { own, requestHost })).toBe('accepted');
  });

  test('a request that came to a loopback Host makes every loopback target on its port kurz', () => {
    const own = ownHostsOf([urlHost(new URL('https://kurz.example'))]);
    expect(self('http://127.0.0.1:3000/x', { own, requestHost: 'localhost:3000' })).toBe(SELF);
    expect(self('http://127.0.0.1:3000/x', { own })).toBe('accepted');
  });

  test('every registered domain is kurz itself, on its port', () => {
    const own = ownHostsOf(['kurz.example', 'go.example', 'to.example:8443']);
    expect(self('https://GO.example./abc', { own })).toBe(SELF);
    expect(self('http://go.example/abc', { own })).toBe(SELF);
    expect(self('https://to.example:8443/abc', { own })).toBe(SELF);
    expect(self('https://to.example/abc', { own })).toBe('accepted');
    expect(self('https://www.go.example/abc', { own })).toBe('accepted');
  });

  test('a blocked address is blocked in its IPv4-mapped IPv6 spelling too', () => {
    const list = parseBlocklist('203.0.113.7\n');
    expect(list.blocks(new URL('https://[::ffff:203.0.113.7]/').hostname)).toBe(true);
    expect(list.blocks('203.0.113.7')).toBe(true);
    expect(list.blocks(new URL('https://[::ffff:203.0.113.8]/').hostname)).toBe(false);
    // And an entry written that way blocks the address.
    expect(parseBlocklist('[::ffff:203.0.113.7]\n').blocks('203.0.113.7')).toBe(true);
  });
});
