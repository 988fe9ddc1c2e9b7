import { describe, expect, test } from 'bun:test';
import { normalizeEmail } from '../../src/domain/accounts.ts';
import {
  generateCode,
  isCodeShaped,
  isReservedCode,
  parseCustomCode,
} from '../../src/domain/codes.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { cut, storable } from '../../src/domain/sources.ts';
import { parseTargetUrl, toLocationHeader } from '../../src/domain/urls.ts';

describe('generated codes', () => {
  test('are 7 characters of [A-Za-z0-9]', () => {
    for (let i = 0; i < 1000; i++) expect(generateCode()).toMatch(/^[A-Za-z0-9]{7}$/);
  });

  test('use all 62 characters about evenly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const draws = 20_000;
    for (let i = 0; i < draws; i++) {
      for (const ch of generateCode()) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (draws * 7) / 62;
    // With modulo bias over bytes, the first 8 characters would come out ~25% more often.
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.1);
  });
});

describe('code rules', () => {
  test('reserved words are compared case-insensitively', () => {
    expect(isReservedCode('HeAlTh')).toBe(true);
    expect(isReservedCode('healthy')).toBe(false);
  });

  test('a path segment is code-shaped only when it follows the custom code rule', () => {
    expect(isCodeShaped('a-B_9')).toBe(true);
    expect(isCodeShaped('a.b')).toBe(false);
    expect(isCodeShaped('x'.repeat(33))).toBe(false);
    expect(isCodeShaped('')).toBe(false);
  });

  test('custom codes: undefined and null mean none', () => {
    expect(parseCustomCode(undefined)).toBeUndefined();
    expect(parseCustomCode(null)).toBeUndefined();
    expect(parseCustomCode('Ok_1-')).toBe('Ok_1-');
  });
});

describe('e-mail normalisation', () => {
  test('trims and lower-cases', () => {
    expect(normalizeEmail('  Ann@Example.COM\t')).toBe('ann@example.com');
  });

  test('an unpaired surrogate is no address', () => {
    expect(normalizeEmail('a\uD800@example.com')).toBeUndefined();
    expect(normalizeEmail('a\uD83D\uDE00@example.com')).toBe('a\uD83D\uDE00@example.com');
  });
});

describe('storable labels', () => {
  test('U+0000 and unpaired surrogates become U+FFFD; everything else is kept', () => {
    expect(storable('a\u0000b')).toBe('a\uFFFDb');
    expect(storable('\uDC00x\uD800')).toBe('\uFFFDx\uFFFD');
    expect(storable('café 😀')).toBe('café 😀');
  });
});

/** The message parseTargetUrl refuses `url` with, or undefined when it accepts it. */
function refusal(url: unknown): string | undefined {
  try {
    parseTargetUrl(url);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status).toBe(400);
    return error.message;
  }
}

describe('target URLs: authorities read alike by browsers and other clients', () => {
  test.each([
    'https://bank.example@evil.example/',
    'https://user:pass@example.com/',
    'https://user:@example.com/',
    'https://:pass@example.com/',
    'https://@example.com/',
    'http://a@b@example.com',
    'http://127.0.0.1:1\\@127.0.0.1:2/',
    'http://example.com\\@evil.example/',
    'http://example.com\\',
    'https://\\\\evil.example/x',
    'https://example.com\\path',
  ])('%p, with user-info or a backslash in its authority, is not valid', (url) => {
    expect(refusal(url)).toBe('URL is not valid');
  });

  test.each([
    'https://example.com/@someone',
    'https://example.com/a\\b',
    'https://example.com/?mail=a@b.example',
    'https://example.com/?q=a\\b',
    'https://example.com#@frag',
    'https://example.com#x\\y',
    'https://example.com:8443/p',
  ])('%p, with @ or a backslash only after its authority, is accepted as given', (url) => {
    expect(parseTargetUrl(url)).toBe(url);
  });

  test('the scheme is checked before the authority', () => {
    expect(refusal('ftp://user@example.com/')).toBe('URL must start with http:// or https://');
  });
});

describe('Location header form', () => {
  test('percent-encodes only non-ASCII, as UTF-8', () => {
    expect(toLocationHeader('https://x.example/%20ä?q=€')).toBe(
      'https://x.example/%20%C3%A4?q=%E2%82%AC',
    );
    expect(toLocationHeader('https://x.example/a b')).toBe('https://x.example/a b');
  });
});

describe('cut', () => {
  test('never splits a surrogate pair', () => {
    expect(cut('😀😀😀', 2)).toBe('😀😀');
    expect(cut('abc', 5)).toBe('abc');
  });
});
