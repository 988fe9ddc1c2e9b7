// The rules of a short domain as an operator gives it: its base URL, in the canonical
// form every host check shares, and the redirects it may set.

import { describe, expect, test } from 'bun:test';
import { ApiError, Messages } from '../../src/domain/errors.ts';
import { normalizeHost } from '../../src/domain/hosts.ts';
import {
  DOMAIN_URL_MAX_LENGTH,
  domainHostOf,
  parseDomainRedirect,
  parseDomainUrl,
} from '../../src/domain/short-domains.ts';

function refusal(run: () => unknown): { status: number; message: string } | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, message: error.message };
    throw error;
  }
  return undefined;
}

describe('a domain base URL', () => {
  test.each([
    ['https://go.example.com', 'https://go.example.com', 'go.example.com'],
    ['https://go.example.com/', 'https://go.example.com', 'go.example.com'],
    ['HTTPS://Go.Example.COM', 'https://go.example.com', 'go.example.com'],
    ['https://go.example.com.', 'https://go.example.com', 'go.example.com'],
    ['https://go.example.com:443', 'https://go.example.com', 'go.example.com'],
    ['http://go.example.com:80/', 'http://go.example.com', 'go.example.com'],
    ['https://go.example.com:8443', 'https://go.example.com:8443', 'go.example.com:8443'],
    ['http://localhost:8080', 'http://localhost:8080', 'localhost:8080'],
    ['https://bücher.example', 'https://xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['http://[::1]:8080', 'http://[::1]:8080', '[::1]:8080'],
    ['http://[::ffff:127.0.0.1]:8080', 'http://127.0.0.1:8080', '127.0.0.1:8080'],
    ['http://192.0.2.7', 'http://192.0.2.7', '192.0.2.7'],
  ])('%s is %s, host %s', (given, baseUrl, host) => {
    expect(parseDomainUrl(given)).toEqual({ baseUrl, host });
  });

  test('its host is the one a Host header naming it normalises to', () => {
    for (const [given, header] of [
      ['https://Go.Example.com.', 'GO.example.com:443'],
      ['https://bücher.example:8443', 'xn--bcher-kva.example:8443'],
      ['http://go.example.com', 'go.example.com.:80'],
    ] as const) {
      expect(parseDomainUrl(given).host).toBe(normalizeHost(header) as string);
    }
  });

  test.each([
    ['not a string', 42],
    ['empty', ''],
    ['a host alone', 'go.example.com'],
    ['another scheme', 'ftp://go.example.com'],
    ['no host', 'https://'],
    ['an empty host with a port', 'https://:8443'],
    ['a path', 'https://go.example.com/x'],
    ['two slashes', 'https://go.example.com//'],
    ['a query', 'https://go.example.com/?a=b'],
    ['an empty query', 'https://go.example.com?'],
    ['a fragment', 'https://go.example.com#top'],
    ['user-info', 'https://ann@go.example.com'],
    ['a password', 'https://ann:pw@go.example.com'],
    ['a backslash', 'https://go.example.com\\'],
    ['whitespace', 'https://go example.com'],
    ['a trailing newline', 'https://go.example.com\n'],
    ['a bad port', 'https://go.example.com:99999'],
    ['a bad IPv4 address', 'http://256.1.1.1'],
    ['https on port 80', 'https://go.example.com:80'],
    ['http on port 443', 'http://go.example.com:443'],
    ['a hostname over 253 characters', `https://${'a.'.repeat(127)}com`],
    ['anything over the length limit', `https://${'a'.repeat(DOMAIN_URL_MAX_LENGTH)}.com`],
  ])('refuses %s with 400 and the domain rule', (_what, given) => {
    expect(refusal(() => parseDomainUrl(given))).toEqual({
      status: 400,
      message: Messages.domainRule,
    });
  });
});

describe('the name of a domain', () => {
  test('a host in any spelling, or a whole base URL, names its canonical host', () => {
    for (const [name, host] of [
      ['go.example.com', 'go.example.com'],
      ['GO.example.com.', 'go.example.com'],
      ['go.example.com:443', 'go.example.com'],
      ['go.example.com:8443', 'go.example.com:8443'],
      ['bücher.example', 'xn--bcher-kva.example'],
      ['https://go.example.com', 'go.example.com'],
      ['https://go.example.com:8443/', 'go.example.com:8443'],
      ['HTTP://Go.Example.com', 'go.example.com'],
    ] as const) {
      expect([name, domainHostOf(name)]).toEqual([name, host]);
    }
  });

  test('a URL with more than a base URL, or no host at all, names none', () => {
    for (const name of [
      'https://go.example.com/x',
      'https://a@go.example.com',
      'https://',
      '',
      'a b',
      'a/b',
    ]) {
      expect([name, domainHostOf(name)]).toEqual([name, undefined]);
    }
  });
});

describe("a domain's redirects", () => {
  test('absent leaves it as it is, null clears it', () => {
    expect(parseDomainRedirect(undefined)).toBeUndefined();
    expect(parseDomainRedirect(null)).toBeNull();
  });

  test('a target URL is kept exactly as given', () => {
    for (const url of [
      'https://example.com',
      'http://example.com/a?b=c#d',
      'https://例え.jp/パス',
    ]) {
      expect(parseDomainRedirect(url)).toBe(url);
    }
  });

  test.each([
    ['a number', 1],
    ['an object', {}],
    ['an empty string', ''],
    ['another scheme', 'javascript:alert(1)'],
    ['no host', 'https:///x'],
    ['user-info', 'https://a@b.example/'],
    ['whitespace', 'https://example.com/a b'],
  ])('refuses %s with 400 and the redirect rule', (_what, given) => {
    expect(refusal(() => parseDomainRedirect(given))).toEqual({
      status: 400,
      message: Messages.domainRedirectRule,
    });
  });
});
