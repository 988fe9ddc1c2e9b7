import { describe, expect, test } from 'bun:test';
import { ClickWriter } from '../../src/clicks/click-writer.ts';
import { GroupCommit } from '../../src/clicks/group-commit.ts';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { LinkWriter } from '../../src/links/link-writer.ts';
import type { Click, Link } from '../../src/store/store.ts';
import { click } from '../support/clicks.ts';
import { withFaults } from '../support/faulty-store.ts';
import { TestApp } from '../support/test-app.ts';

async function withLink() {
  const app = await TestApp.init('open');
  const link = await app.anonymous().link('https://example.com', { custom_code: 'abc' });
  return { app, link };
}

async function counter(app: TestApp, id: number): Promise<number | undefined> {
  const { links } = await app.store.listLinks({ owner: null, offset: 0 });
  return links.find((l) => l.id === id)?.clicks;
}

describe('ClickWriter (group commit)', () => {
  test('clicks recorded in one event-loop turn are committed in one batch', async () => {
    const { app, link } = await withLink();
    const batches: number[] = [];
    const store = withFaults(app.store, {
      recordClicks: (clicks) => {
        batches.push(clicks.length);
        return app.store.recordClicks(clicks);
      },
    });
    const writer = new ClickWriter(store, { maxPending: 1000 });
    await Promise.all(Array.from({ length: 100 }, () => writer.record(click(link.id))));
    expect(batches).toEqual([100]);
    expect(await counter(app, link.id)).toBe(100);
    expect(await app.clickRecords(link.id)).toHaveLength(100);
  });

  test('tells its waiting clicks, each committed batch to its observer, and its failed batches', async () => {
    const { app, link } = await withLink();
    let failing = false;
    const store = withFaults(app.store, {
      recordClicks: (clicks) =>
        failing ? Promise.reject(new Error('disk on fire')) : app.store.recordClicks(clicks),
    });
    const writer = new ClickWriter(store, { maxPending: 1000 });
    const committed: [number, number][] = [];
    writer.observeCommits((items, seconds) => committed.push([items, seconds]));
    const clicks = Array.from({ length: 7 }, () => writer.record(click(link.id)));
    expect(writer.pending).toBe(7);
    await Promise.all(clicks);
    expect(writer.pending).toBe(0);
    expect(committed.map(([items]) => items)).toEqual([7]);
    expect(committed[0]?.[1]).toBeGreaterThan(0);
    failing = true;
    await expect(writer.record(click(link.id))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect([writer.failedBatches, committed.length, writer.pending]).toEqual([1, 1, 0]);
  });

  test('a click is committed before record() resolves', async () => {
    const { app, link } = await withLink();
    const writer = new ClickWriter(app.store, { maxPending: 10 });
    await writer.record(click(link.id));
    expect(await counter(app, link.id)).toBe(1);
  });

  test('a failing batch rejects every waiter and writes nothing of it', async () => {
    const { app, link } = await withLink();
    const errors: unknown[] = [];
    const writer = new ClickWriter(app.store, { maxPending: 10, onError: (e) => errors.push(e) });
    // The last click breaks a NOT NULL constraint: the batch fails after two rows went in.
    const broken = { ...click(link.id), createdAt: null } as unknown as Click;
    const results = await Promise.allSettled([
      writer.record(click(link.id)),
      writer.record(click(link.id)),
      writer.record(broken),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    }
    expect(errors).toHaveLength(1);
    expect(await counter(app, link.id)).toBe(0);
    expect(await app.clickRecords(link.id)).toHaveLength(0);
    // The writer goes on working after a failed batch.
    await writer.record(click(link.id));
    expect(await counter(app, link.id)).toBe(1);
  });

  test('the queue is bounded: past maxPending, clicks are refused at once', async () => {
    const { app, link } = await withLink();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = withFaults(app.store, {
      recordClicks: async (clicks) => {
        await gate;
        return app.store.recordClicks(clicks);
      },
    });
    const writer = new ClickWriter(store, { maxPending: 3 });
    const accepted = [
      writer.record(click(link.id)),
      writer.record(click(link.id)),
      writer.record(click(link.id)),
    ];
    await expect(writer.record(click(link.id))).rejects.toBeInstanceOf(StoreUnavailableError);
    release();
    await Promise.all(accepted);
    expect(await counter(app, link.id)).toBe(3);
    await writer.record(click(link.id));
    expect(await counter(app, link.id)).toBe(4);
  });

  test('clicks arriving during a slow flush form the next batch', async () => {
    const { app, link } = await withLink();
    const batches: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = withFaults(app.store, {
      recordClicks: async (clicks) => {
        batches.push(clicks.length);
        if (batches.length === 1) await gate;
        return app.store.recordClicks(clicks);
      },
    });
    const writer = new ClickWriter(store, { maxPending: 100 });
    const first = [writer.record(click(link.id)), writer.record(click(link.id))];
    await new Promise((resolve) => setImmediate(resolve));
    const second = [
      writer.record(click(link.id)),
      writer.record(click(link.id)),
      writer.record(click(link.id)),
    ];
    release();
    await Promise.all([...first, ...second]);
    expect(batches).toEqual([2, 3]);
    expect(await counter(app, link.id)).toBe(5);
  });

  test('drain() commits everything pending', async () => {
    const { app, link } = await withLink();
    const writer = new ClickWriter(app.store, { maxPending: 100 });
    const pending = Array.from({ length: 7 }, () => writer.record(click(link.id)));
    await writer.drain();
    expect(await counter(app, link.id)).toBe(7);
    await Promise.all(pending);
  });
});

describe('LinkWriter (group commit of new links)', () => {
  test('concurrent creates share one commit and each gets its own link', async () => {
    const app = await TestApp.init('open');
    const batches: number[] = [];
    const store = withFaults(app.store, {
      createLinks: (links) => {
        batches.push(links.length);
        return app.store.createLinks(links);
      },
    });
    const writer = new LinkWriter(store, { maxPending: 100 });
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        writer.create({
          userId: null,
          originalUrl: `https://x.example/${i}`,
          shortCode: `c${i}`,
          source: null,
          createdAt: i,
        }),
      ),
    );
    expect(batches).toEqual([20]);
    expect(made.map((l) => (l as Link).shortCode)).toEqual(
      Array.from({ length: 20 }, (_, i) => `c${i}`),
    );
    expect(made.map((l) => (l as Link).originalUrl)).toEqual(
      Array.from({ length: 20 }, (_, i) => `https://x.example/${i}`),
    );
  });

  test('createMany puts its links in one batch with the creates of the same turn, results in order; past maxPending, none of them', async () => {
    const app = await TestApp.init('open');
    const batches: string[][] = [];
    const store = withFaults(app.store, {
      createLinks: (links) => {
        batches.push(links.map((l) => l.shortCode));
        return app.store.createLinks(links);
      },
    });
    const writer = new LinkWriter(store, { maxPending: 10 });
    const link = (code: string) => ({
      userId: null,
      originalUrl: `https://x.example/${code}`,
      shortCode: code,
      source: null,
      createdAt: 1,
    });
    const single = writer.create(link('one'));
    const many = writer.createMany(['a', 'b', 'one', 'c'].map(link));
    const made = await many;
    expect(batches).toEqual([['one', 'a', 'b', 'one', 'c']]);
    expect(((await single) as Link).shortCode).toBe('one');
    // The batch's second `one` lost to the first.
    expect(made.map((l) => (l as Link | undefined)?.shortCode)).toEqual(['a', 'b', undefined, 'c']);
    await expect(
      writer.createMany(Array.from({ length: 11 }, (_, i) => link(`m${i}`))),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    // Nothing of the refused call was added: the next batch holds only what came after.
    expect(((await writer.create(link('after'))) as Link).shortCode).toBe('after');
    expect(batches).toEqual([['one', 'a', 'b', 'one', 'c'], ['after']]);
  });

  test('through the API, 50 concurrent creates are all committed and listed', async () => {
    const app = await TestApp.init('open');
    const client = app.anonymous();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.shorten({ url: `https://x.example/${i}` })),
    );
    expect(replies.every((r) => r.status === 201)).toBe(true);
    expect(new Set(replies.map((r) => r.json.id)).size).toBe(50);
    expect((await client.links()).json).toHaveLength(50);
  });

  test('a failed batch answers every create with 503 and stores none of them', async () => {
    const base = await TestApp.init('open');
    const store = withFaults(base.store, {
      createLinks: () => Promise.reject(new Error('disk on fire')),
    });
    const app = await TestApp.init('open', { store });
    const replies = await Promise.all(
      [1, 2, 3].map((i) => app.anonymous().shorten({ url: `https://x.example/${i}` })),
    );
    for (const reply of replies) {
      expect(reply.status).toBe(503);
      expect(reply.json).toEqual({ error: 'Database unavailable' });
    }
    expect((await base.anonymous().links()).json).toEqual([]);
    expect(
      app.log.lines.some(
        (line) => line.includes('link batch failed') && line.includes('disk on fire'),
      ),
    ).toBe(true);
  });
});

describe('GroupCommit with several batches in flight', () => {
  /** Commits that end only when told, and the most that were under way at once. */
  function slowCommits() {
    const open: (() => void)[] = [];
    const batches: number[][] = [];
    let inFlight = 0;
    let most = 0;
    const commit = (items: readonly number[]) =>
      new Promise<void>((resolve) => {
        batches.push([...items]);
        most = Math.max(most, ++inFlight);
        open.push(() => {
          inFlight--;
          resolve();
        });
      });
    const endOne = () => open.shift()?.();
    return { commit, batches, endOne, most: () => most, waiting: () => open.length };
  }

  test('a new batch starts while earlier ones commit, up to maxInFlight, and none answers early', async () => {
    const slow = slowCommits();
    const group = new GroupCommit(slow.commit, { maxPending: 100, maxInFlight: 2 });
    const answered: number[] = [];
    const add = (n: number) => group.push(n).then(() => answered.push(n));
    void add(1);
    await Bun.sleep(5);
    void add(2);
    await Bun.sleep(5);
    void add(3);
    void add(4);
    await Bun.sleep(5);
    // Two batches under way ([1], [2]); 3 and 4 wait for a place.
    expect(slow.batches).toEqual([[1], [2]]);
    expect(answered).toEqual([]);
    slow.endOne();
    await Bun.sleep(5);
    expect(answered).toEqual([1]);
    expect(slow.batches).toEqual([[1], [2], [3, 4]]);
    const drained = group.drain();
    slow.endOne();
    slow.endOne();
    await drained;
    expect(answered.sort()).toEqual([1, 2, 3, 4]);
    expect(slow.most()).toBe(2);
  });

  test('with the default of one, a batch waits for the one before it', async () => {
    const slow = slowCommits();
    const group = new GroupCommit(slow.commit, { maxPending: 100 });
    void group.push(1);
    await Bun.sleep(5);
    void group.push(2);
    await Bun.sleep(5);
    expect(slow.batches).toEqual([[1]]);
    slow.endOne();
    await Bun.sleep(5);
    expect(slow.batches).toEqual([[1], [2]]);
    slow.endOne();
    await group.drain();
    expect(slow.most()).toBe(1);
  });
});
