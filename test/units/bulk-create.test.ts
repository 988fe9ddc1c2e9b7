// The making of a bulk call's links (links/bulk-create.ts), against a store that records
// each batch it is given: one batch for short links, batches of at most 1 MiB for long
// ones, generated codes drawn again alone, and passwords hashed once each, a few at once.

import { describe, expect, test } from 'bun:test';
import {
  BATCH_BYTES,
  type Draft,
  HASHES_AT_ONCE,
  hashPasswords,
  makeLinks,
} from '../../src/links/bulk-create.ts';
import { LinkWriter } from '../../src/links/link-writer.ts';
import {
  type CreatedLink,
  LINK_LIMIT_REACHED,
  type Link,
  type NewLink,
  type Store,
} from '../../src/store/store.ts';

/** A writer over a store that makes every link, or answers `answer` for one it names. */
function recording(answer: (link: NewLink, seen: number) => CreatedLink | 'make' = () => 'make') {
  const batches: NewLink[][] = [];
  const seen = new Map<string, number>();
  let ids = 0;
  const store = {
    async createLinks(links: readonly NewLink[]): Promise<CreatedLink[]> {
      batches.push([...links]);
      return links.map((link) => {
        const times = (seen.get(link.originalUrl) ?? 0) + 1;
        seen.set(link.originalUrl, times);
        const result = answer(link, times);
        if (result !== 'make') return result;
        return { ...link, id: ++ids, domainId: 0, clicks: 0 };
      });
    },
  } as unknown as Store;
  return { writer: new LinkWriter(store, { maxPending: 10_000 }), batches };
}

const draft = (url: string, custom?: string): Draft => ({
  link: { userId: null, originalUrl: url, source: null, createdAt: 1 },
  custom,
});

describe('makeLinks', () => {
  test('a thousand links of short URLs are one batch, in order', async () => {
    const { writer, batches } = recording();
    const drafts = Array.from({ length: 1000 }, (_, i) => draft(`https://example.com/${i}`));
    const made = (await makeLinks(writer, drafts)) as Link[];
    expect(batches.map((b) => b.length)).toEqual([1000]);
    expect(made.map((l) => l.originalUrl)).toEqual(drafts.map((d) => d.link.originalUrl));
    expect(new Set(made.map((l) => l.shortCode)).size).toBe(1000);
  });

  test('long URLs go in batches of at most 1 MiB, one after the other, results in order', async () => {
    const { writer, batches } = recording();
    const url = (i: number) => `https://example.com/${i}/${'x'.repeat(8000)}`;
    const drafts = Array.from({ length: 1000 }, (_, i) => draft(url(i)));
    const made = (await makeLinks(writer, drafts)) as Link[];
    expect(batches.length).toBeGreaterThanOrEqual(8);
    for (const batch of batches) {
      const bytes = batch.reduce((sum, link) => sum + link.originalUrl.length, 0);
      expect(bytes).toBeLessThanOrEqual(BATCH_BYTES);
    }
    expect(batches.flat().map((l) => l.originalUrl)).toEqual(drafts.map((d) => d.link.originalUrl));
    expect(made.map((l) => l.originalUrl)).toEqual(drafts.map((d) => d.link.originalUrl));
  });

  test('a generated code found taken is drawn again for that link alone; a custom one taken, or a quota reached, is final', async () => {
    const { writer, batches } = recording((link, times) => {
      if (link.originalUrl === 'https://example.com/unlucky' && times < 3) return undefined;
      if (link.shortCode === 'taken') return undefined;
      if (link.originalUrl === 'https://example.com/over') return LINK_LIMIT_REACHED;
      return 'make';
    });
    const made = await makeLinks(writer, [
      draft('https://example.com/a'),
      draft('https://example.com/unlucky'),
      draft('https://example.com/b', 'taken'),
      draft('https://example.com/over'),
      draft('https://example.com/c', 'mine'),
    ]);
    expect(made.map((m) => (typeof m === 'string' ? m : m.shortCode))).toEqual([
      (made[0] as Link).shortCode,
      (made[1] as Link).shortCode,
      'code-taken',
      'limit-reached',
      'mine',
    ]);
    expect(batches.map((b) => b.map((l) => l.originalUrl.slice(20)))).toEqual([
      ['a', 'unlucky', 'b', 'over', 'c'],
      ['unlucky'],
      ['unlucky'],
    ]);
    // Each attempt drew a new code.
    expect(new Set(batches.map((b) => b.at(b.length === 1 ? 0 : 1)?.shortCode)).size).toBe(3);
  });
});

describe('hashPasswords', () => {
  test('hashes each distinct password once, at most a few at a time; none is null', async () => {
    let running = 0;
    let most = 0;
    const hashed: string[] = [];
    const hasher = {
      async hash(password: string) {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        hashed.push(password);
        return `hash:${password}`;
      },
    };
    const passwords = ['a', null, 'b', undefined, 'a', 'c', 'd', 'e', 'f', 'b', ''];
    expect(await hashPasswords(hasher, passwords)).toEqual([
      'hash:a',
      null,
      'hash:b',
      null,
      'hash:a',
      'hash:c',
      'hash:d',
      'hash:e',
      'hash:f',
      'hash:b',
      null,
    ]);
    expect(hashed.sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(most).toBe(HASHES_AT_ONCE);
    expect(await hashPasswords(hasher, [null, undefined])).toEqual([null, null]);
  });
});
