// The one host normaliser: two spellings of one host must never pass one check and fail
// another.

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
