import { describe, expect, test } from 'bun:test';
import { LinkCache, UNKNOWN } from '../src/redirect/link-cache.ts';
import { openSqlite } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { withFaults } from './support/faulty-store.ts';

async function setup(codes: string[], options = { size: 3, missSize: 2, missTtlMs: 50 }) {
  const real = openSqlite({ path: ':memory:', durability: 'normal' });
  for (const code of codes) {
    await real.createLinks([
      {
        userId: null,
        originalUrl: `https://x.example/${code}`,
        shortCode: code,
        source: null,
        createdAt: 1,
      },
    ]);
  }
  const lookups: string[] = [];
  const store: Store = withFaults(real, {
    findLinkByCode: (code) => {
      lookups.push(code);
      return real.findLinkByCode(code);
    },
  });
  return { cache: new LinkCache(store, options), lookups };
}

describe('LinkCache', () => {
  test('a link is read from the store once, then served from memory', async () => {
    const { cache, lookups } = await setup(['a']);
    expect(cache.peek('a')).toBeUndefined();
    const link = await cache.get('a');
    expect(link?.respond().headers.get('location')).toBe('https://x.example/a');
    expect(cache.peek('a')).toBe(link as NonNullable<typeof link>);
    await cache.get('a');
    expect(lookups).toEqual(['a']);
  });

  test('each 307 is a fresh Response with the same headers', async () => {
    const { cache } = await setup(['a']);
    const link = await cache.get('a');
    const [one, two] = [link?.respond(), link?.respond()];
    expect(one).not.toBe(two as Response);
    expect(one?.status).toBe(307);
    expect(two?.headers.get('cache-control')).toBe('private, no-store');
  });

  test('is bounded; a link used since it was cached gets a second chance', async () => {
    const { cache, lookups } = await setup(['a', 'b', 'c', 'd']);
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    cache.peek('a'); // used: survives the next eviction
    await cache.get('d'); // over the bound: b (oldest unused) goes
    expect(cache.peek('a')).not.toBeUndefined();
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('c')).not.toBeUndefined();
    expect(cache.peek('d')).not.toBeUndefined();
    expect(lookups).toEqual(['a', 'b', 'c', 'd']);
  });

  test('an unknown code is remembered briefly, then asked again', async () => {
    const { cache, lookups } = await setup([]);
    expect(await cache.get('nope')).toBeUndefined();
    expect(cache.peek('nope')).toBe(UNKNOWN);
    expect(await cache.get('nope')).toBeUndefined();
    expect(lookups).toEqual(['nope']);
    await Bun.sleep(60);
    expect(cache.peek('nope')).toBeUndefined();
    await cache.get('nope');
    expect(lookups).toEqual(['nope', 'nope']);
  });

  test('unknown codes are bounded too', async () => {
    const { cache } = await setup([]);
    for (const code of ['x', 'y', 'z']) await cache.get(code);
    expect(cache.peek('x')).toBeUndefined();
    expect(cache.peek('y')).toBe(UNKNOWN);
    expect(cache.peek('z')).toBe(UNKNOWN);
  });

  test('forgetMissing makes a newly created code visible at once', async () => {
    const { cache } = await setup([]);
    await cache.get('late');
    expect(cache.peek('late')).toBe(UNKNOWN);
    cache.forgetMissing('late');
    expect(cache.peek('late')).toBeUndefined();
  });
});
