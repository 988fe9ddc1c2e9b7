// Faults of the disk against the compiled binary: a full file system, a database file
// made read-only, and one removed while kurz runs. Needs root to mount a tmpfs; where
// mounting is impossible the full-disk test says why and is skipped.

import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, eventually, type Running, run, startKurz, tempDir } from '../support/binary.ts';

const mounts: string[] = [];
const running: Running[] = [];

async function mountTmpfs(): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'kurz-tmpfs-'));
  const mounted = await run(['mount', '-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
  if (mounted.code !== 0) {
    rmSync(dir, { recursive: true, force: true });
    console.log(`faults: cannot mount a tmpfs (${mounted.stderr.trim()}): full-disk test skipped`);
    return undefined;
  }
  mounts.push(dir);
  return dir;
}

const CAN_MOUNT = await (async () => {
  const dir = await mountTmpfs();
  return dir !== undefined;
})();

afterAll(async () => {
  for (const kurz of running) if (kurz.proc.exitCode === null) await kurz.stop('SIGKILL');
  for (const dir of mounts) {
    await run(['chattr', '-R', '-i', dir]);
    await run(['umount', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

async function start(db: string, extra: string[] = []): Promise<Running> {
  const kurz = await startKurz(['--mode', 'open', '--db', db, ...extra], { cwd: tempDir() });
  running.push(kurz);
  return kurz;
}

const shorten = (kurz: Running, url: string) =>
  call(kurz.url, 'POST', '/api/shorten', { json: { url } });

/** Fills the file system of `dir` to the last byte. */
async function fill(dir: string): Promise<string> {
  const filler = join(dir, 'filler');
  await run(['dd', 'if=/dev/zero', `of=${filler}`, 'bs=64k']);
  return filler;
}

function integrity(db: string): string {
  const sqlite = new Database(db, { readonly: true });
  try {
    return (sqlite.query('PRAGMA integrity_check').get() as { integrity_check: string })
      .integrity_check;
  } finally {
    sqlite.close();
  }
}

describe('a full disk', () => {
  test.skipIf(!CAN_MOUNT)(
    'writes answer 503 "Database unavailable", never 500 or a crash; kurz recovers once space is freed',
    async () => {
      const dir = (await mountTmpfs()) as string;
      const db = join(dir, 'kurz.db');
      // No floor: the real SQLITE_FULL path is what is tested here.
      const kurz = await start(db, ['--min-free-disk', '0']);
      const made = await call(kurz.url, 'POST', '/api/shorten', {
        json: { url: 'https://example.com/', custom_code: 'full' },
      });
      expect(made.status).toBe(201);
      const filler = await fill(dir);

      // Long URLs need new pages: creates fail soon; clicks may still fit in WAL pages
      // already allocated, which is fine, as long as nothing is a 500.
      const statuses = new Set<number>();
      let refused = 0;
      for (let i = 0; i < 200 && refused < 20; i++) {
        const reply = await shorten(kurz, `https://example.com/${'x'.repeat(2000)}/${i}`);
        statuses.add(reply.status);
        if (reply.status === 503) {
          refused++;
          expect(reply.json).toEqual({ error: 'Database unavailable' });
        }
        statuses.add((await call(kurz.url, 'GET', '/full')).status);
      }
      expect(refused).toBeGreaterThan(0);
      expect([...statuses].every((s) => s === 201 || s === 307 || s === 503)).toBe(true);
      const health = await call(kurz.url, 'GET', '/health');
      expect(health.status).toBe(503);
      expect(health.json).toBe('Database unavailable');
      expect(kurz.proc.exitCode).toBeNull();
      expect(kurz.output()).toContain('failed (SQLITE_FULL)');
      // Not a line per failed request.
      expect(kurz.output().split('\n').length).toBeLessThan(40);

      unlinkSync(filler);
      await eventually(
        async () => (await call(kurz.url, 'GET', '/health')).status === 200,
        'health recovers',
      );
      expect((await shorten(kurz, 'https://example.com/after')).status).toBe(201);
      expect((await call(kurz.url, 'GET', '/full')).status).toBe(307);
      expect(await kurz.stop()).toBe(0);
      expect(integrity(db)).toBe('ok');
      expect(kurz.output()).not.toContain('    at ');
    },
  );

  test.skipIf(!CAN_MOUNT)(
    'shutting down on a full disk exits 0 without a stack trace, and keeps what was committed',
    async () => {
      const dir = (await mountTmpfs()) as string;
      const db = join(dir, 'kurz.db');
      const kurz = await start(db, ['--min-free-disk', '0']);
      for (let i = 0; i < 20; i++) {
        expect((await shorten(kurz, `https://example.com/${'y'.repeat(1000)}/${i}`)).status).toBe(
          201,
        );
      }
      const filler = await fill(dir);
      for (let i = 0; i < 20; i++) await shorten(kurz, `https://example.com/${'z'.repeat(2000)}`);
      expect(await kurz.stop()).toBe(0);
      expect(kurz.output()).toContain('SIGTERM received, shutting down');
      expect(kurz.output()).not.toContain('    at ');
      unlinkSync(filler);
      expect(integrity(db)).toBe('ok');
      const sqlite = new Database(db);
      const kept = sqlite.query("SELECT count(*) AS n FROM links WHERE original_url LIKE '%yyy%'");
      expect(kept.get()).toEqual({ n: 20 });
      sqlite.close();
    },
  );

  test.skipIf(!CAN_MOUNT)(
    'the free-space floor refuses writes before the disk is full, and says so once',
    async () => {
      const dir = (await mountTmpfs()) as string;
      const db = join(dir, 'kurz.db');
      const kurz = await start(db, ['--min-free-disk', '2MiB']);
      expect((await shorten(kurz, 'https://example.com/before')).status).toBe(201);
      // Leave about 1 MiB free: below the floor, far from full.
      const filler = join(dir, 'filler');
      const fs = statfsSync(dir);
      writeFileSync(filler, Buffer.alloc(fs.bavail * fs.bsize - 1024 * 1024));
      await eventually(
        async () => (await call(kurz.url, 'GET', '/health')).status === 503,
        'health reports the floor',
      );
      for (let i = 0; i < 20; i++) {
        const reply = await shorten(kurz, 'https://example.com/below');
        expect(reply.status).toBe(503);
        expect(reply.json).toEqual({ error: 'Database unavailable' });
      }
      expect(kurz.output().match(/--min-free-disk 2\.0 MiB\): writes answer 503/g)).toHaveLength(1);
      unlinkSync(filler);
      await eventually(
        async () => (await shorten(kurz, 'https://example.com/again')).status === 201,
        'writes resume',
      );
      expect(kurz.output()).toContain('free again on the disk');
      expect(await kurz.stop()).toBe(0);
    },
  );
});

describe('the database file made read-only or removed while running', () => {
  test.skipIf(!CAN_MOUNT)(
    'an immutable file: 503s and one clear line, then writes resume when it is writable again',
    async () => {
      const dir = (await mountTmpfs()) as string;
      const db = join(dir, 'kurz.db');
      const kurz = await start(db, ['--min-free-disk', '0']);
      expect(
        (
          await call(kurz.url, 'POST', '/api/shorten', {
            json: { url: 'https://example.com/', custom_code: 'ro' },
          })
        ).status,
      ).toBe(201);
      // Root ignores file modes; the immutable flag binds root too.
      expect((await run(['chattr', '+i', db])).code).toBe(0);
      await eventually(
        async () => (await call(kurz.url, 'GET', '/health')).status === 503,
        'health reports the read-only file',
      );
      expect((await call(kurz.url, 'GET', '/ro')).status).toBe(503);
      expect((await shorten(kurz, 'https://example.com/x')).status).toBe(503);
      expect(kurz.output()).toContain('cannot be written (read-only file or file system)');
      expect((await run(['chattr', '-i', db])).code).toBe(0);
      await eventually(
        async () => (await call(kurz.url, 'GET', '/ro')).status === 307,
        'writes resume',
      );
      expect((await call(kurz.url, 'GET', '/health')).status).toBe(200);
      expect(await kurz.stop()).toBe(0);
      expect(integrity(db)).toBe('ok');
    },
  );

  test('a removed file: nothing more is acknowledged, 503s, one clear line, a clean exit', async () => {
    const dir = tempDir();
    const db = join(dir, 'kurz.db');
    const kurz = await start(db, ['--min-free-disk', '0']);
    expect(
      (
        await call(kurz.url, 'POST', '/api/shorten', {
          json: { url: 'https://example.com/', custom_code: 'gone' },
        })
      ).status,
    ).toBe(201);
    unlinkSync(db);
    for (let i = 0; i < 10; i++) {
      const click = await call(kurz.url, 'GET', '/gone');
      expect(click.status).toBe(503);
      expect(click.json).toEqual({ error: 'Database unavailable' });
      expect((await shorten(kurz, 'https://example.com/lost')).status).toBe(503);
    }
    const health = await call(kurz.url, 'GET', '/health');
    expect(health.status).toBe(503);
    expect(health.json).toBe('Database unavailable');
    expect(kurz.output().match(/was removed while kurz ran/g)).toHaveLength(1);
    const stopped = kurz.stop();
    expect(await stopped).toBe(0);
    expect(kurz.output()).not.toContain('    at ');
  });
});
