import { describe, expect, test } from 'bun:test';
import { normalizeEmail } from '../src/domain/accounts.ts';
import {
  generateCode,
  isCodeShaped,
  isReservedCode,
  parseCustomCode,
} from '../src/domain/codes.ts';
import { cut } from '../src/domain/sources.ts';
import { toLocationHeader } from '../src/domain/urls.ts';

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
