// --tls auto's rules without an ACME server: which hosts get a certificate, when one is
// renewed (30 days before its end, or a third of a short lifetime), how long a failed
// name waits, and what of an error reaches the log.

import { describe, expect, test } from 'bun:test';
import { certificateNames } from '../../src/tls/acme/names.ts';
import { reasonOf } from '../../src/tls/acme/orderer.ts';
import {
  DEFAULT_BACKOFF,
  needsOrder,
  RENEW_BEFORE_MS,
  renewalTime,
  retryDelay,
} from '../../src/tls/acme/schedule.ts';

const DAY = 86_400_000;
const cert = (fromDay: number, toDay: number) => ({
  notBefore: new Date(fromDay * DAY),
  notAfter: new Date(toDay * DAY),
});

describe('the names of the certificates', () => {
  test('hostnames without their port, lower-cased, each once; IPs and dotless names left out, saying why', () => {
    expect(
      certificateNames([
        's.example.com',
        'Go.Example.org:8443',
        'go.example.org',
        '127.0.0.1:3000',
        '[::1]:8080',
        'localhost:3000',
        'xn--bcher-kva.example',
      ]),
    ).toEqual({
      names: ['s.example.com', 'go.example.org', 'xn--bcher-kva.example'],
      skipped: [
        {
          host: '127.0.0.1:3000',
          reason: 'an IP address cannot have a certificate from an ACME server',
        },
        {
          host: '[::1]:8080',
          reason: 'an IP address cannot have a certificate from an ACME server',
        },
        { host: 'localhost:3000', reason: 'a name without a dot is not a public domain' },
      ],
    });
  });
});

describe('renewal', () => {
  test("a 90-day certificate is renewed 30 days before its end (Let's Encrypt's advice)", () => {
    expect(RENEW_BEFORE_MS).toBe(30 * DAY);
    expect(renewalTime(cert(0, 90))).toBe(60 * DAY);
    expect(renewalTime(cert(0, 365))).toBe(335 * DAY);
    expect(needsOrder(cert(0, 90), 60 * DAY - 1)).toBe(false);
    expect(needsOrder(cert(0, 90), 60 * DAY)).toBe(true);
  });

  test('a short-lived one when a third of its lifetime is left, so it is not renewed over and over', () => {
    expect(renewalTime(cert(0, 6))).toBe(4 * DAY);
    expect(needsOrder(cert(0, 6), 3 * DAY)).toBe(false);
    expect(needsOrder(cert(0, 6), 4 * DAY)).toBe(true);
    const sixSeconds = { notBefore: new Date(0), notAfter: new Date(6_000) };
    expect(renewalTime(sixSeconds)).toBe(4_000);
  });

  test('a name without a certificate needs an order at once', () => {
    expect(needsOrder(undefined, 0)).toBe(true);
  });
});

describe('back-off after failures', () => {
  test('1 min, doubling with each failure in a row, up to 6 h', () => {
    const minutes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50].map(
      (failures) => retryDelay(failures, DEFAULT_BACKOFF) / 60_000,
    );
    expect(minutes).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 360, 360]);
    expect(retryDelay(2, { firstMs: 300, maxMs: 1_000 })).toBe(600);
    expect(retryDelay(3, { firstMs: 300, maxMs: 1_000 })).toBe(1_000);
  });
});

describe('the reason logged', () => {
  test('the message on one line, without anything shaped like a PEM block', () => {
    const error = new Error(
      'Invalid response from http://s.example.com/.well-known/acme-challenge/x:\n404\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\nend',
    );
    expect(reasonOf(error)).toBe(
      'Invalid response from http://s.example.com/.well-known/acme-challenge/x: 404 [PEM removed] end',
    );
    expect(reasonOf('x'.repeat(600))).toHaveLength(501);
    expect(reasonOf(new Error(''))).toBe('unknown error');
  });
});
