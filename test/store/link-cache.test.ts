import { describe, expect, test } from 'bun:test';
import { LinkCache, UNKNOWN } from '../../src/redirect/link-cache.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { withFaults } from '../support/faulty-store.ts';

/** A link of no one to https://x.example/CODE. */
function makeLink(store: Store, code: string) {
  return store.createLinks([
    {
      userId: null,
      originalUrl: `https://x.example/${code}`,
      shortCode: code,
      source: null,
      createdAt: 1,
    },
  ]);
}

async function setup(codes: string[], options = { size: 3, missSize: 2, missTtlMs: 50 }) {
  const real = openSqlite({ path: ':memory:', durability: 'normal' });
  for (const code of codes) await makeLink(real, code);
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

  test('forget makes a newly created code visible at once', async () => {
    const { cache } = await setup([]);
    await cache.get('late');
    expect(cache.peek('late')).toBe(UNKNOWN);
    cache.forget('late');
    expect(cache.peek('late')).toBeUndefined();
  });

  test('a change told while a lookup waits is not hidden by what that lookup found', async () => {
    const real = openSqlite({ path: ':memory:', durability: 'normal' });
    let changed: (code: string, domainId: number) => void = () => {};
    let answer: () => void = () => {};
    const store: Store = withFaults(real, {
      watchLinks: (tell) => {
        changed = tell;
        return () => {};
      },
      // The lookup answers "no link" from before the link was made…
      findLinkByCode: () =>
        new Promise((resolve) => {
          answer = () => resolve(undefined);
        }),
    });
    const cache = new LinkCache(store, { size: 3, missSize: 2, missTtlMs: 10_000 });
    const looking = cache.get('fresh');
    await Bun.sleep(0);
    // … and another instance's notice of the new code arrives before the answer does.
    changed('fresh', 0);
    answer();
    expect(await looking).toBeUndefined();
    expect(cache.peek('fresh')).toBeUndefined();
  });

  test('counts its lookups (hits from memory, misses from the store) and the 307s it makes', async () => {
    const { cache, lookups } = await setup(['a']);
    expect(cache.peek('a')).toBeUndefined(); // not counted: the caller asks get() next
    const link = await cache.get('a'); // miss
    cache.peek('a'); // hit
    await cache.get('a'); // hit
    expect(await cache.get('none')).toBeUndefined(); // miss
    expect(cache.peek('none')).toBe(UNKNOWN); // hit: known to have no link
    expect([cache.hitCount, cache.missCount, lookups.length]).toEqual([3, 2, 2]);
    expect(cache.size).toBe(1);
    link?.respond();
    link?.respond();
    expect(cache.redirectCount).toBe(2);
  });
});

describe('LinkCache on a store several instances share', () => {
  /** A store with settle(): each call first tells the notices queued in `pending`. */
  async function shared(codes: string[]) {
    const lookups: string[] = [];
    const real = openSqlite({ path: ':memory:', durability: 'normal' });
    let tell: (code: string, domainId: number) => void = () => {};
    const pending: string[] = [];
    let settles = 0;
    const store: Store = withFaults(real, {
      watchLinks: (changed) => {
        tell = changed;
        return () => {};
      },
      findLinkByCode: (code) => {
        lookups.push(code);
        return real.findLinkByCode(code);
      },
      settle: async () => {
        settles++;
        for (const code of pending.splice(0)) tell(code, 0);
      },
    });
    const create = async (code: string) => {
      await makeLink(real, code);
      pending.push(code);
    };
    for (const code of codes) await create(code);
    pending.length = 0;
    const cache = new LinkCache(store, { size: 3, missSize: 2, missTtlMs: 10_000 });
    return { cache, lookups, create, settles: () => settles };
  }

  test('an unknown code is never answered from memory without settling first', async () => {
    const { cache, lookups, settles } = await shared([]);
    expect(await cache.get('nope')).toBeUndefined();
    expect(cache.peek('nope')).toBeUndefined();
    expect(await cache.get('nope')).toBeUndefined();
    // The second miss was believed after settling, without asking the store again.
    expect(lookups).toEqual(['nope']);
    expect(settles()).toBe(1);
  });

  test('a code another instance created after the miss is found at the next request', async () => {
    const { cache, create } = await shared([]);
    expect(await cache.get('late')).toBeUndefined();
    await create('late');
    const link = await cache.get('late');
    expect(link?.respond().headers.get('location')).toBe('https://x.example/late');
  });

  test('a miss believed after settling is a hit; asking the store is a miss', async () => {
    const { cache } = await shared(['a']);
    await cache.get('nope'); // miss
    await cache.get('nope'); // hit, after settling
    await cache.get('a'); // miss
    await cache.get('a'); // hit
    expect([cache.hitCount, cache.missCount]).toEqual([2, 2]);
  });

  test('known links are still answered without waiting', async () => {
    const { cache, settles } = await shared(['a']);
    await cache.get('a');
    expect(cache.peek('a')).not.toBeUndefined();
    expect(settles()).toBe(0);
  });
});
