import { describe, expect, test } from 'bun:test';
import { ApiError, Messages } from '../../src/domain/errors.ts';
import { parseTag, parseTags } from '../../src/domain/tags.ts';

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('one tag', () => {
  test('is 1 to 32 letters, digits, hyphens or underscores, lower-cased', () => {
    expect(parseTag('Promo_2026-Q4')).toBe('promo_2026-q4');
    expect(parseTag('x')).toBe('x');
    expect(parseTag('A'.repeat(32))).toBe('a'.repeat(32));
  });

  test.each([
    ['empty', ''],
    ['33 characters', 'a'.repeat(33)],
    ['a space', 'a b'],
    ['a dot', 'a.b'],
    ['a letter outside ASCII', 'café'],
    ['a dotless capital I that lower-cases to ASCII', 'İ'],
    ['a number', 12],
    ['null', null],
    ['absent', undefined],
  ])('%s is refused with the tag rule', (_name, value) => {
    const error = refusal(() => parseTag(value));
    expect(error.status).toBe(400);
    expect(error.message).toBe(Messages.tagRule);
  });
});

describe('the tags of a body', () => {
  test('absent leaves the set as it is; null clears it', () => {
    expect(parseTags(undefined)).toBeUndefined();
    expect(parseTags(null)).toEqual([]);
    expect(parseTags([])).toEqual([]);
  });

  test('are lower-cased, merged when they differ only in case, and sorted', () => {
    expect(parseTags(['b', 'Promo', 'a_1', 'PROMO', 'a-1'])).toEqual(['a-1', 'a_1', 'b', 'promo']);
  });

  test('may be 10, duplicates included', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `t${i}`);
    expect(parseTags(ten)).toEqual(ten);
    expect(parseTags(Array(10).fill('same'))).toEqual(['same']);
  });

  test.each([
    ['11 tags', Array.from({ length: 11 }, (_, i) => `t${i}`)],
    ['11 entries of one tag', Array(11).fill('same')],
    ['a string', 'promo'],
    ['an object', { promo: true }],
    ['a number', 1],
    ['a bad tag among good ones', ['ok', 'not ok']],
    ['an empty tag', ['']],
    ['a tag of 33 characters', ['a'.repeat(33)]],
    ['a null entry', ['ok', null]],
    ['a number entry', [7]],
  ])('%s is refused with the tags rule', (_name, value) => {
    const error = refusal(() => parseTags(value));
    expect(error.status).toBe(400);
    expect(error.message).toBe(Messages.tagsRule);
  });
});
