// Disk use: the per-user link quota, the free-space floor, and logs that do not flood
// while every write fails.

import { describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createWriters } from '../../src/app.ts';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { throttled } from '../../src/logger.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import { tempDir } from '../support/binary.ts';
import { withFaults } from '../support/faulty-store.ts';
import { MemoryLogger, TestApp } from '../support/test-app.ts';

describe('per-user link quota (accounts mode)', () => {
  test('a user at the quota gets 403 "Link limit reached"; other users are not affected', async () => {
    const app = await TestApp.init('accounts', { maxLinksPerUser: 3 });
    const [ann, bob] = [await app.user(), await app.user()];
    for (let i = 0; i < 3; i++) await ann.link(`https://example.com/${i}`);
    const refused = await ann.shorten({ url: 'https://example.com/4', custom_code: 'fourth' });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'Link limit reached' });
    // Nothing was stored: the code is still free, and the list still has three.
    expect((await ann.links()).headers.get('x-total-count')).toBe('3');
    expect((await bob.shorten({ url: 'https://example.com/', custom_code: 'fourth' })).status).toBe(
      201,
    );
  });

  test('is exact under concurrency: 40 creates at once for a quota of 25 store exactly 25', async () => {
    const app = await TestApp.init('accounts', { maxLinksPerUser: 25 });
    const ann = await app.user();
    await ann.link('https://example.com/before');
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => ann.shorten({ url: `https://example.com/${i}` })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(24);
    expect(replies.filter((r) => r.status === 403)).toHaveLength(16);
    expect((await ann.links()).json).toHaveLength(25);
  });

  test('0 means no limit', async () => {
    const app = await TestApp.init('accounts', { maxLinksPerUser: 0 });
    const ann = await app.user();
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => ann.shorten({ url: `https://example.com/${i}` })),
    );
    expect(replies.every((r) => r.status === 201)).toBe(true);
  });

  test('open mode has no per-user quota', async () => {
    const app = await TestApp.init('open', { maxLinksPerUser: 1 });
    const client = app.anonymous();
    await client.link('https://example.com/1');
    expect((await client.shorten({ url: 'https://example.com/2' })).status).toBe(201);
  });
});

describe('free-space floor', () => {
  test('below the floor every write answers 503 and reads still work; said once in the log', async () => {
    const dir = tempDir();
    const log = new MemoryLogger();
    const path = join(dir, 'k.db');
    // Seed a link while no floor applies.
    const seed = openSqlite({ path, durability: 'normal', log });
    await seed.createLinks([
      {
        userId: null,
        originalUrl: 'https://a.example',
        shortCode: 'a',
        source: null,
        createdAt: 1,
      },
    ]);
    await seed.close();
    // A floor no disk can meet: writes are refused before SQLite is asked.
    const store = openSqlite({ path, durability: 'normal', log, minFreeDiskBytes: 2 ** 60 });
    try {
      const app = await TestApp.init('open', { store });
      const anon = app.anonymous();
      for (let i = 0; i < 5; i++) {
        const reply = await anon.shorten({ url: 'https://b.example' });
        expect(reply.status).toBe(503);
        expect(reply.json).toEqual({ error: 'Database unavailable' });
        const click = await app.get('/a');
        expect(click.status).toBe(503);
      }
      expect((await app.get('/health')).status).toBe(503);
      expect((await anon.links()).json).toHaveLength(1);
      await expect(store.createUser('x@y.zz', 'hash')).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(store.replaceSetting('k', 'v')).rejects.toBeInstanceOf(StoreUnavailableError);
      const said = log.lines.filter((l) => l.includes('--min-free-disk'));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain('writes answer 503 until space is freed');
      // One line per kind of fault (click batches, link batches, answers), not one per request.
      expect(app.log.lines.length).toBeLessThanOrEqual(3);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('with space above the floor, writes work and health is "Healthy"', async () => {
    const dir = tempDir();
    const store = openSqlite({
      path: join(dir, 'k.db'),
      durability: 'normal',
      log: new MemoryLogger(),
      minFreeDiskBytes: 1,
    });
    try {
      const app = await TestApp.init('open', { store });
      expect((await app.anonymous().shorten({ url: 'https://b.example' })).status).toBe(201);
      expect((await app.get('/health')).json).toBe('Healthy');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fault logging', () => {
  test('a throttled logger writes at most one line per interval and counts the ones held back', () => {
    const log = new MemoryLogger();
    const faults = throttled(log, 60_000);
    for (let i = 0; i < 1000; i++) faults.error('batch failed');
    expect(log.lines).toEqual(['batch failed']);
    const now = throttled(log, 0);
    now.error('x');
    now.error('y');
    expect(log.lines.slice(1)).toEqual(['x', 'y']);
  });

  test('1,000 failing click batches and requests write a handful of lines, not thousands', async () => {
    const base = await TestApp.init('open');
    const link = await base.anonymous().link('https://example.com/', { custom_code: 'down' });
    const log = new MemoryLogger();
    const failing = withFaults(base.store, {
      recordClicks: () => Promise.reject(new StoreUnavailableError({ cause: 'disk full' })),
      createLinks: () => Promise.reject(new StoreUnavailableError({ cause: 'disk full' })),
    });
    const app = await TestApp.init('open', {
      store: failing,
      writers: createWriters(failing, log),
    });
    for (let i = 0; i < 500; i++) {
      expect((await app.get(`/${link.short_code}`)).status).toBe(503);
      expect((await app.anonymous().shorten({ url: 'https://example.com/' })).status).toBe(503);
    }
    // One line per kind of fault and second at most; the run takes well under a minute.
    expect(log.lines.length + app.log.lines.length).toBeLessThan(200);
    expect(log.lines[0]).toContain('batch failed');
  });
});
