// The rules of GET /api/links's search, as pure functions: its parameters, the pattern
// and trigrams a text becomes, and which links a store starts a page or a count from.

import { describe, expect, test } from 'bun:test';
import { ApiError } from '../../src/domain/errors.ts';
import { parseListSearch } from '../../src/links/list-query.ts';
import {
  containsPattern,
  countDriver,
  type LinkSearch,
  pageDriver,
  RARE_TEXT,
} from '../../src/store/link-search.ts';
import { trigramMatch } from '../../src/store/sqlite/link-search.ts';

const params = (query: string) => new URLSearchParams(query);
const domains = (name: string) => (name === 'go.example' ? 3 : undefined);

function refusal(query: string): string | undefined {
  try {
    parseListSearch(params(query), domains);
  } catch (error) {
    if (error instanceof ApiError) return error.message;
    throw error;
  }
  return undefined;
}

describe('the parameters of a search', () => {
  test('none of them: no search, whatever else the query holds', () => {
    expect(parseListSearch(params(''), domains)).toBeUndefined();
    expect(parseListSearch(params('limit=5&offset=2&page=3'), domains)).toBeUndefined();
  });

  test('each read, with the defaults of sort and order, and given back for the next link', () => {
    expect(parseListSearch(params('q=a%20b&tag=Promo&domain=go.example'), domains)).toEqual({
      text: 'a b',
      domainId: 3,
      tag: 'promo',
      sort: 'created',
      descending: true,
      full: false,
      query: '&q=a%20b&domain=go.example&tag=Promo',
    });
    expect(parseListSearch(params('sort=code'), domains)).toMatchObject({ descending: false });
    expect(parseListSearch(params('sort=clicks'), domains)).toMatchObject({ descending: true });
    expect(parseListSearch(params('order=asc&view=full'), domains)).toMatchObject({
      sort: 'created',
      descending: false,
      full: true,
      query: '&order=asc&view=full',
    });
  });

  test('q is 1 to 200 characters, counted as characters', () => {
    expect(refusal(`q=${'x'.repeat(200)}`)).toBeUndefined();
    expect(refusal(`q=${'😀'.repeat(200)}`)).toBeUndefined();
    expect(refusal(`q=${'x'.repeat(201)}`)).toBe('q must be 1 to 200 characters');
    expect(refusal('q=')).toBe('q must be 1 to 200 characters');
  });

  test('the first wrong parameter answers, in the order q, domain, tag, sort, order, view', () => {
    expect(refusal('view=x&order=x&sort=x&tag=.&domain=x&q=')).toBe(
      'q must be 1 to 200 characters',
    );
    expect(refusal('view=x&order=x&sort=x&tag=.&domain=x')).toContain('domain must name');
    expect(refusal('view=x&order=x&sort=x&tag=.')).toContain('tag must be');
    expect(refusal('view=x&order=x&sort=x')).toContain('sort must be');
    expect(refusal('view=x&order=x')).toContain('sort must be');
    expect(refusal('view=x')).toBe('view must be full');
    expect(refusal('tag=a&tag=b')).toContain('tag must be');
  });
});

describe('a text as the stores look for it', () => {
  test('LIKE wildcards and the escape character match themselves', () => {
    expect(containsPattern('50%_off\\x')).toBe('%50\\%\\_off\\\\x%');
  });

  test('up to 8 quoted trigrams spread over the text; none under 3 characters', () => {
    expect(trigramMatch('ab')).toBeUndefined();
    expect(trigramMatch('a\u0001bc')).toBeUndefined();
    expect(trigramMatch('abc')).toBe('"abc"');
    expect(trigramMatch('a"bcd')).toBe('"a""b" AND """bc" AND "bcd"');
    const long = trigramMatch('https://example.com/articles/2026/spring-sale') as string;
    expect(long.split(' AND ')).toHaveLength(8);
    expect(long.startsWith('"htt"')).toBe(true);
    expect(long.endsWith('"ale"')).toBe(true);
    expect(trigramMatch('😀😀😀')).toBe('"😀😀😀"');
  });
});

describe('where a page or a count starts', () => {
  const search = (extra: Partial<LinkSearch>): LinkSearch => ({
    owner: null,
    sort: 'clicks',
    descending: true,
    limit: 50,
    ...extra,
  });
  const links = 1_000_000;

  test('without an owner, a tag or a rare text, the database walks or counts its own way', () => {
    expect(countDriver({ links })).toBe('walk');
    expect(pageDriver(search({}), { links }, links)).toBe('walk');
    expect(pageDriver(search({}), { links, text: RARE_TEXT + 1 }, 5)).toBe('walk');
  });

  test('a rare tag, text, owner or domain is gathered; a common one is checked on the walk', () => {
    expect(pageDriver(search({ tag: 'x' }), { links, tag: 1_000 }, 1_000)).toBe('tag');
    expect(pageDriver(search({ tag: 'x' }), { links, tag: 200_000 }, 200_000)).toBe('walk');
    expect(pageDriver(search({ text: 'x' }), { links, text: 40 }, 40)).toBe('text');
    expect(pageDriver(search({ owner: 1 }), { links, owner: 9_000 }, 9_000)).toBe('owner');
    expect(pageDriver(search({ domainId: 4 }), { links, domain: 1_000 }, 1_000)).toBe('domain');
    // The smallest named set is the one gathered.
    expect(pageDriver(search({ owner: 1, tag: 'x' }), { links, owner: 9_000, tag: 500 }, 40)).toBe(
      'tag',
    );
  });

  test("a tag's or a text's links are counted from them; an owner's or a domain's in their index", () => {
    expect(countDriver({ links, tag: 200_000 })).toBe('tag');
    expect(countDriver({ links, tag: 600_000 })).toBe('walk');
    expect(countDriver({ links, text: 300 })).toBe('text');
    expect(countDriver({ links, owner: 9_000, tag: 200_000 })).toBe('walk');
    expect(countDriver({ links, domain: 100_000 })).toBe('walk');
  });

  test("by creation an owner's own index is walked; deep pages favour gathering", () => {
    const sizes = { links, owner: 9_000, tag: 10_000 };
    expect(pageDriver(search({ owner: 1, tag: 'x', sort: 'created' }), sizes, 5_000)).toBe('walk');
    // About 5,000 links walked for a page of a tag on 1%: gathered all the same.
    expect(pageDriver(search({ tag: 'x', sort: 'created' }), { links, tag: 10_000 }, 10_000)).toBe(
      'tag',
    );
    expect(pageDriver(search({ tag: 'x', sort: 'created' }), { links, tag: 50_000 }, 50_000)).toBe(
      'walk',
    );
    expect(pageDriver(search({ tag: 'x', sort: 'created' }), { links, tag: 1_000 }, 1_000)).toBe(
      'tag',
    );
    expect(pageDriver(search({ tag: 'x' }), { links, tag: 300_000 }, 300_000)).toBe('walk');
    expect(
      pageDriver(search({ tag: 'x', offset: 200_000 }), { links, tag: 300_000 }, 300_000),
    ).toBe('tag');
  });
});
