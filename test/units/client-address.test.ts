// The client address: the socket peer, unless the peer is a trusted proxy; only then
// are forwarding headers read, from the right, skipping trusted hops.

import { describe, expect, test } from 'bun:test';
import { parseTrustedProxies } from '../../src/config/values.ts';
import { clientAddress, forwardedHops } from '../../src/net/client-address.ts';

const proxies = parseTrustedProxies(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
const headers = (h: Record<string, string>) => new Headers(h);

describe('client address', () => {
  test('by default the peer, whatever the headers say', () => {
    const forged = headers({ 'x-forwarded-for': '1.2.3.4', forwarded: 'for=5.6.7.8' });
    expect(clientAddress('203.0.113.5', forged, undefined)).toBe('203.0.113.5');
    expect(clientAddress('203.0.113.5', forged, parseTrustedProxies([]))).toBe('203.0.113.5');
  });

  test('an untrusted peer is the client even when trusted proxies are named', () => {
    const forged = headers({ 'x-forwarded-for': '10.1.1.1' });
    expect(clientAddress('203.0.113.5', forged, proxies)).toBe('203.0.113.5');
  });

  test('behind a trusted proxy: the right-most hop that is not a trusted proxy', () => {
    // The client forged the first hop; the proxy appended the address it saw.
    const h = headers({ 'x-forwarded-for': '6.6.6.6, 198.51.100.20, 10.0.0.3' });
    expect(clientAddress('10.0.0.2', h, proxies)).toBe('198.51.100.20');
    expect(
      clientAddress('127.0.0.1', headers({ 'x-forwarded-for': '198.51.100.21' }), proxies),
    ).toBe('198.51.100.21');
  });

  test('RFC 7239 Forwarded is read before X-Forwarded-For, with quotes, brackets and ports', () => {
    const h = headers({
      forwarded:
        'for=6.6.6.6;proto=https, for="[2001:db8:cafe::17]:4711";by=10.0.0.1, for=10.0.0.9',
      'x-forwarded-for': '7.7.7.7',
    });
    expect(forwardedHops(h)).toEqual(['6.6.6.6', '2001:db8:cafe::17', '10.0.0.9']);
    expect(clientAddress('10.0.0.2', h, proxies)).toBe('2001:db8:cafe::17');
    expect(forwardedHops(headers({ 'x-forwarded-for': '192.0.2.1:5555, [::1]:80' }))).toEqual([
      '192.0.2.1',
      '::1',
    ]);
  });

  test('a hop that is no address ends the walk at the last trusted proxy', () => {
    const h = headers({ forwarded: 'for=unknown, for=10.0.0.7' });
    expect(clientAddress('10.0.0.2', h, proxies)).toBe('10.0.0.7');
  });

  test('a trusted proxy without forwarding headers is the client itself', () => {
    expect(clientAddress('10.0.0.2', headers({}), proxies)).toBe('10.0.0.2');
  });

  test('IPv4-mapped IPv6 peers are their IPv4 address, also for trust', () => {
    expect(clientAddress('::ffff:203.0.113.5', headers({}), undefined)).toBe('203.0.113.5');
    const h = headers({ 'x-forwarded-for': '198.51.100.30' });
    expect(clientAddress('::ffff:10.0.0.2', h, proxies)).toBe('198.51.100.30');
    expect(clientAddress('fd12::1', h, proxies)).toBe('198.51.100.30');
  });

  test('no peer (a request made in-process) is "unknown"', () => {
    expect(clientAddress(undefined, headers({ 'x-forwarded-for': '1.2.3.4' }), proxies)).toBe(
      'unknown',
    );
  });
});
