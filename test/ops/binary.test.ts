// The compiled executable, started as a person would: alone in a folder, on port 0.

import { beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeCheckout, VERSION } from '../../src/version.ts';
import { BINARY, call, runKurz, startKurz, tempDir } from '../support/binary.ts';

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

describe('dist/kurz', () => {
  test('copied alone into an empty folder, it creates its database, migrates and serves', async () => {
    const dir = tempDir();
    const binary = join(dir, 'kurz');
    copyFileSync(BINARY, binary);
    const kurz = await startKurz([], { cwd: dir, binary });
    try {
      expect(kurz.output()).toContain(
        `kurz listening on http://127.0.0.1:${kurz.port} (mode: accounts, db: ./data/kurz.db)`,
      );
      expect(existsSync(join(dir, 'data', 'kurz.db'))).toBe(true);
      const health = await call(kurz.url, 'GET', '/health');
      expect(health.status).toBe(200);
      expect(health.text).toBe('"Healthy"');
    } finally {
      expect(await kurz.stop()).toBe(0);
    }
  });

  test('links, clicks and a token survive a restart; the generated secret is kept', async () => {
    const dir = tempDir();
    const first = await startKurz([], { cwd: dir });
    const reg = await call(first.url, 'POST', '/api/auth/register', {
      json: { email: 'ann@example.com', password: 'correct horse 42' },
    });
    expect(reg.status).toBe(200);
    const token = reg.json.token;
    const link = await call(first.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/p', custom_code: 'keep' },
      token,
    });
    expect(link.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await call(first.url, 'GET', '/keep')).status).toBe(307);
    expect(await first.stop()).toBe(0);

    const second = await startKurz([], { cwd: dir });
    try {
      const list = await call(second.url, 'GET', '/api/links', { token });
      expect(list.status).toBe(200);
      expect(list.json).toEqual([{ ...link.json, clicks: 3 }]);
      const again = await call(second.url, 'POST', '/api/auth/login', {
        json: { email: 'ann@example.com', password: 'correct horse 42' },
      });
      expect(again.json.user).toEqual(reg.json.user);
    } finally {
      await second.stop();
    }
  });

  test('a configured --jwt-secret signs tokens; another secret refuses them', async () => {
    const dir = tempDir();
    const secretA = 'a'.repeat(40);
    const first = await startKurz(['--jwt-secret', secretA], { cwd: dir });
    const reg = await call(first.url, 'POST', '/api/auth/register', {
      json: { email: 'ann@example.com', password: 'correct horse 42' },
    });
    await first.stop();
    const second = await startKurz([], { cwd: dir, env: { KURZ_JWT_SECRET: 'b'.repeat(40) } });
    try {
      expect((await call(second.url, 'GET', '/api/links', { token: reg.json.token })).status).toBe(
        401,
      );
    } finally {
      await second.stop();
    }
  });

  test('--port 0 prints the port bound, and the environment configures it too', async () => {
    const kurz = await startKurz([], {
      env: { KURZ_MODE: 'open', DATABASE_URL: join(tempDir(), 'x', 'k.db') },
    });
    try {
      expect(kurz.port).toBeGreaterThan(0);
      expect(kurz.output()).toContain('(mode: open, db: ');
      const created = await call(kurz.url, 'POST', '/api/shorten', {
        json: { url: 'https://example.com' },
      });
      expect(created.status).toBe(201);
      expect(created.json.user_id).toBeUndefined();
    } finally {
      await kurz.stop();
    }
  });

  test('kurz migrate creates and migrates the database, idempotently, and exits 0', async () => {
    const dir = tempDir();
    for (let i = 0; i < 2; i++) {
      const run = await runKurz(['migrate', '--db', 'sub/dir/k.db'], { cwd: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('up to date');
    }
    expect(existsSync(join(dir, 'sub', 'dir', 'k.db'))).toBe(true);
  });

  test('names no file of the checkout it was built from', async () => {
    // Such a path (once the maintenance thread's, from import.meta.url) is missing wherever
    // the executable is copied, and makes builds of one commit differ between checkouts.
    const checkout = resolve(import.meta.dir, '..', '..');
    const bytes = Buffer.from(await Bun.file(BINARY).arrayBuffer());
    expect(bytes.indexOf(`${checkout}/`)).toBe(-1);
  });

  test('--help and --version answer and exit 0', async () => {
    const help = await runKurz(['--help']);
    expect(help.code).toBe(0);
    for (const flag of [
      '--mode',
      '--host',
      '--port',
      '--db',
      '--base-url',
      '--jwt-secret',
      '--token-ttl',
      '--durability',
      '--cache-size',
      '--webhook-allow-private',
    ]) {
      expect(help.stdout).toContain(flag);
    }
    const version = await runKurz(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^kurz \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?\)\n$/);
  });

  test('--version names the version and the commit it was built from', async () => {
    // Built from this checkout as it is now (npm test builds right before the tests); a
    // stale dist/kurz names an older commit.
    const checkout = resolve(import.meta.dir, '..', '..');
    const version = await runKurz(['--version']);
    expect(version.stdout.trim()).toBe(`kurz ${VERSION} (commit ${describeCheckout(checkout)})`);
  });

  test.each([
    [['--bogus'], '--bogus'],
    [['--port', 'abc'], '--port'],
    [['--port', '70000'], '--port'],
    [['--mode', 'closed'], '--mode'],
    [['--durability', 'maybe'], '--durability'],
    [['--token-ttl', '0'], '--token-ttl'],
    [['--base-url', 'ftp://x'], '--base-url'],
    [['--jwt-secret', 'short'], '--jwt-secret'],
    [['--db', 'postgres://localhost'], '--db'],
    [['--db', 'mysql://localhost/kurz'], '--db'],
    [['--db-pool', '0'], '--db-pool'],
    [['--port'], '--port'],
    [['launch'], 'launch'],
  ])('%p exits non-zero with one line naming %s, and starts nothing', async (args, name) => {
    const dir = tempDir();
    const run = await runKurz(['serve', ...args], { cwd: dir });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(name);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  test('a bad environment value is named with its variable', async () => {
    const run = await runKurz(['serve'], { env: { PORT: 'x' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toBe(
      'kurz: --port (from PORT) must be a port from 0 to 65535 (got "x")',
    );
  });
});
