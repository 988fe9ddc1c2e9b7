// `kurz healthcheck`, the container image's HEALTHCHECK: the compiled binary asked to
// check a running dist/kurz, nothing, a kurz whose database refuses writes, and servers
// that answer wrongly or not at all.

import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { healthUrl } from '../../src/health/command.ts';
import { BINARY, runKurz, startKurz, tempDir } from '../support/binary.ts';
import { freePort } from '../support/proxies.ts';

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

describe('the address it asks', () => {
  test('a server on every address is asked on loopback; any other host as it is', () => {
    expect(healthUrl('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000/health');
    expect(healthUrl('::', 3000)).toBe('http://[::1]:3000/health');
    expect(healthUrl('[::]', 8080)).toBe('http://[::1]:8080/health');
    expect(healthUrl('127.0.0.1', 1)).toBe('http://127.0.0.1:1/health');
    expect(healthUrl('::1', 3000)).toBe('http://[::1]:3000/health');
    expect(healthUrl('kurz.internal', 3000)).toBe('http://kurz.internal:3000/health');
  });
});

describe('dist/kurz healthcheck', () => {
  test('exits 0, saying nothing, when kurz answers "Healthy"; finds it by flags or by the server\'s variables', async () => {
    const kurz = await startKurz([]);
    try {
      const byFlags = await runKurz([
        'healthcheck',
        '--host',
        '127.0.0.1',
        '--port',
        `${kurz.port}`,
      ]);
      expect(byFlags).toEqual({ stdout: '', stderr: '', code: 0 });
      // The container's way: the environment that configured the server, which listens
      // on every address; the check goes to loopback.
      const listening = await startKurz(['--host', '0.0.0.0']);
      try {
        const byEnv = await runKurz(['healthcheck'], {
          env: { KURZ_HOST: '0.0.0.0', PORT: `${listening.port}`, KURZ_MODE: 'open' },
        });
        expect(byEnv).toEqual({ stdout: '', stderr: '', code: 0 });
      } finally {
        expect(await listening.stop()).toBe(0);
      }
    } finally {
      expect(await kurz.stop()).toBe(0);
    }
  });

  test('exits 1 when nothing listens, saying so in one line', async () => {
    const port = freePort();
    const result = await runKurz(['healthcheck', '--port', `${port}`]);
    expect(result).toEqual({
      stdout: '',
      stderr: `kurz healthcheck: http://127.0.0.1:${port}/health refused the connection (nothing listens there)\n`,
      code: 1,
    });
  });

  test('exits 1 when kurz answers 503 "Database unavailable" (its disk below the free-space floor)', async () => {
    // The floor refuses every write from the start: the database is migrated before, and
    // the token key given rather than stored.
    const dir = tempDir();
    expect((await runKurz(['migrate'], { cwd: dir })).code).toBe(0);
    const kurz = await startKurz(['--min-free-disk', '999999GB', '--jwt-secret', 'k'.repeat(32)], {
      cwd: dir,
    });
    try {
      const result = await runKurz([
        'healthcheck',
        '--host',
        '127.0.0.1',
        '--port',
        `${kurz.port}`,
      ]);
      expect(result).toEqual({
        stdout: '',
        stderr: `kurz healthcheck: http://127.0.0.1:${kurz.port}/health answered 503 "Database unavailable"\n`,
        code: 1,
      });
    } finally {
      expect(await kurz.stop()).toBe(0);
    }
  });

  test('exits 1 when another server answers 200 with something else, or a redirect', async () => {
    const paths: string[] = [];
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        paths.push(new URL(request.url).pathname);
        if (paths.length === 1) return new Response('<html>\n<p>It works!</p>\n</html>');
        return new Response(null, { status: 307, headers: { location: '/elsewhere' } });
      },
    });
    try {
      const url = `http://127.0.0.1:${server.port}/health`;
      const page = await runKurz(['healthcheck', '--port', `${server.port}`]);
      expect(page).toEqual({
        stdout: '',
        stderr: `kurz healthcheck: ${url} answered 200 with <html> <p>It works!</p> </html>, not "Healthy" (is it kurz?)\n`,
        code: 1,
      });
      const redirect = await runKurz(['healthcheck', '--port', `${server.port}`]);
      expect(redirect.stderr).toBe(`kurz healthcheck: ${url} answered 307 an empty body\n`);
      expect(redirect.code).toBe(1);
      // A redirect is not followed.
      expect(paths).toEqual(['/health', '/health']);
    } finally {
      await server.stop(true);
    }
  });

  test('exits 1 after --timeout when the connection is taken but never answered', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = performance.now();
      const result = await runKurz(['healthcheck', '--timeout', '1'], { env: { PORT: `${port}` } });
      const took = performance.now() - started;
      expect(result).toEqual({
        stdout: '',
        stderr: `kurz healthcheck: http://127.0.0.1:${port}/health did not answer within 1 s\n`,
        code: 1,
      });
      expect(took).toBeGreaterThan(900);
      expect(took).toBeLessThan(3000);
    } finally {
      silent.close();
    }
  });

  test('asks kurz directly, whatever HTTP_PROXY says', async () => {
    const proxy = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Response('"Healthy"'),
    });
    const port = freePort();
    try {
      const result = await runKurz(['healthcheck', '--port', `${port}`], {
        env: {
          HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
          http_proxy: `http://127.0.0.1:${proxy.port}`,
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('refused the connection');
    } finally {
      await proxy.stop(true);
    }
  });

  test("opens no database, and ignores the server's other variables", async () => {
    const port = freePort();
    const dir = tempDir();
    const result = await runKurz(['healthcheck', '--port', `${port}`], {
      cwd: dir,
      env: {
        DATABASE_URL: '/nonexistent/kurz.db',
        KURZ_JWT_SECRET_FILE: '/nonexistent/key',
        KURZ_BLOCKLIST: '/nonexistent/list',
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused the connection');
    // kurz serve would have made ./data/kurz.db here.
    expect(readdirSync(dir)).toEqual([]);
  });

  test('--help says what it does; a bad flag exits 2', async () => {
    const help = await runKurz(['healthcheck', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('kurz healthcheck [--host H] [--port N] [--timeout SECS]');
    const bad = await runKurz(['healthcheck', '--db', 'x.db']);
    expect(bad).toEqual({
      stdout: '',
      stderr: 'kurz: unknown flag --db for healthcheck (see --help)\n',
      code: 2,
    });
  });
});
