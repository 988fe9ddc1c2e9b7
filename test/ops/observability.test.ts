// Logs and metrics of the compiled executable: --log-format json writes one JSON object a
// line, the access log covers the redirect Bun serves natively, GET /api/metrics counts
// it; and no secret (password, token, key, database password) ever reaches a log line,
// on SQLite and on PostgreSQL, in both modes, a fault included.

import { Database } from 'bun:sqlite';
import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { BINARY, call, eventually, type Running, startKurz, tempDir } from '../support/binary.ts';
import { track } from '../support/cleanup.ts';
import { freshDatabase } from '../support/postgres.ts';

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every secret a run uses, by what it is: none may appear in any line kurz writes. */
type Secrets = Record<string, string>;

interface LogLine {
  time: string;
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** Every line of the output, each of which must be a JSON object with time, level and msg. */
function jsonLines(output: string): LogLine[] {
  const lines = output.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    let parsed: LogLine;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`not a JSON line: ${line}`);
    }
    expect([line, typeof parsed.msg, ['info', 'error'].includes(parsed.level)]).toEqual([
      line,
      'string',
      true,
    ]);
    expect(parsed.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    return parsed;
  });
}

/** The value of one sample of a Prometheus text exposition, 0 when absent. */
function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function expectNoSecret(output: string, secrets: Secrets): void {
  for (const [what, secret] of Object.entries(secrets)) {
    expect(secret.length).toBeGreaterThanOrEqual(8);
    expect([what, output.includes(secret)]).toEqual([what, false]);
  }
}

/**
 * An API key made with the user's `token`, used, refused outside its scope and once
 * revoked: the checks below cover it as every other secret.
 */
async function useApiKeys(kurz: Running, token: string): Promise<Secrets> {
  const made = await call(kurz.url, 'POST', '/api/keys', {
    json: { name: 'observed', scope: 'write' },
    token,
  });
  expect(made.status).toBe(201);
  const key = made.json.key as string;
  expect((await call(kurz.url, 'GET', '/api/links', { token: key })).status).toBe(200);
  const created = await call(kurz.url, 'POST', '/api/shorten', {
    json: { url: 'https://example.com/by-key' },
    token: key,
  });
  expect(created.status).toBe(201);
  // Refused uses are logged too (403 outside a scope, 401 once revoked).
  expect((await call(kurz.url, 'GET', '/api/keys', { token: key })).status).toBe(403);
  expect((await call(kurz.url, 'DELETE', `/api/keys/${made.json.id}`, { token })).status).toBe(204);
  expect((await call(kurz.url, 'GET', '/api/links', { token: key })).status).toBe(401);
  return { apiKey: key };
}

/** Breaks the database under a running kurz: a table renamed, so the next query of it fails. */
async function renameTable(db: string, table: string): Promise<void> {
  if (db.startsWith('postgres://')) {
    const sql = new SQL(db, { max: 1 });
    await sql.unsafe(`ALTER TABLE ${table} RENAME TO ${table}_gone`);
    await sql.close();
    return;
  }
  const sqlite = new Database(db);
  sqlite.run('PRAGMA busy_timeout = 5000');
  sqlite.run(`ALTER TABLE ${table} RENAME TO ${table}_gone`);
  sqlite.close();
}

/** A database for one run: a SQLite file, or a fresh PostgreSQL database whose URL holds a password. */
async function databaseFor(kind: 'sqlite' | 'postgres', secrets: Secrets): Promise<string> {
  if (kind === 'sqlite') return join(tempDir(), 'kurz.db');
  // The test server trusts local connections, so any password in the URL is accepted.
  const url = new URL(await freshDatabase());
  url.username = url.username || 'postgres';
  url.password = secrets.databasePassword as string;
  return url.toString();
}

/** The access lines of a request, by method and path. */
function accessLinesOf(lines: LogLine[], method: string, path: string): LogLine[] {
  return lines.filter((l) => l.method === method && l.path === path && 'duration_ms' in l);
}

describe.each(['sqlite', 'postgres'] as const)('--log-format json --access-log on (%s)', (kind) => {
  test('accounts mode: JSON lines, the native redirect logged and counted, no secret in any line', async () => {
    const dir = tempDir();
    const secrets: Secrets = {
      password: 'correct horse battery 42',
      wrongPassword: 'incorrect mule 9000',
      laterPassword: 'another horse entirely 7',
      linkPassword: 'open sesame 31',
      wrongLinkPassword: 'close sesame 13',
      jwtSecret: 'jwt-secret-of-the-test-0123456789abcdef',
      metricsToken: 'metrics-token-of-the-test-0123456789abcd',
      databasePassword: 's3cret-pass-of-the-db',
    };
    const keyFile = join(dir, 'jwt-key');
    writeFileSync(keyFile, `${secrets.jwtSecret}\n`);
    const metricsFile = join(dir, 'metrics-token');
    writeFileSync(metricsFile, `${secrets.metricsToken}\n`);
    const db = await databaseFor(kind, secrets);
    const kurz = await startKurz(
      [
        '--db',
        db,
        '--log-format',
        'json',
        '--access-log',
        'on',
        '--jwt-secret-file',
        keyFile,
        '--metrics-token-file',
        metricsFile,
      ],
      { cwd: dir },
    );
    const ann = { email: 'ann@example.com', password: secrets.password as string };
    const registered = await call(kurz.url, 'POST', '/api/auth/register', { json: ann });
    expect(registered.status).toBe(200);
    secrets.registerToken = registered.json.token;
    const login = await call(kurz.url, 'POST', '/api/auth/login', { json: ann });
    expect(login.status).toBe(200);
    const token = login.json.token as string;
    secrets.loginToken = token;
    // The signature alone would let no one in, but it has no business in a log either.
    secrets.tokenSignature = token.split('.')[2] as string;
    const refused = await call(kurz.url, 'POST', '/api/auth/login', {
      json: { ...ann, password: secrets.wrongPassword },
    });
    expect(refused.status).toBe(401);

    for (const json of [
      { url: 'https://example.com/plain', custom_code: 'plain' },
      { url: 'https://example.com/locked', custom_code: 'locked', password: secrets.linkPassword },
    ]) {
      expect((await call(kurz.url, 'POST', '/api/shorten', { json, token })).status).toBe(201);
    }
    expect((await call(kurz.url, 'GET', '/plain?source=qr-code')).status).toBe(307);
    expect((await call(kurz.url, 'HEAD', '/plain')).status).toBe(307);
    expect((await call(kurz.url, 'GET', '/locked')).status).toBe(200);
    for (const [password, status] of [
      [secrets.wrongLinkPassword, 401],
      [secrets.linkPassword, 303],
    ] as const) {
      const reply = await call(kurz.url, 'POST', '/locked', {
        raw: new URLSearchParams({ password: password as string }).toString(),
        headers: FORM,
      });
      expect(reply.status).toBe(status);
    }
    expect((await call(kurz.url, 'GET', '/api/links', { token })).status).toBe(200);
    expect((await call(kurz.url, 'GET', '/api/links/plain', { token })).status).toBe(200);
    Object.assign(secrets, await useApiKeys(kurz, token));

    expect((await call(kurz.url, 'GET', '/api/metrics')).status).toBe(401);
    expect((await call(kurz.url, 'GET', '/api/metrics', { token })).status).toBe(401);
    const scraped = await call(kurz.url, 'GET', '/api/metrics', { token: secrets.metricsToken });
    expect(scraped.status).toBe(200);
    // The redirects Bun served natively are counted as Elysia's routes are.
    expect(sample(scraped.text, 'kurz_redirects_total', '{outcome="redirected"}')).toBe(2);
    expect(sample(scraped.text, 'kurz_redirects_total', '{outcome="password_page"}')).toBe(1);
    expect(sample(scraped.text, 'kurz_redirects_total', '{outcome="password_wrong"}')).toBe(1);
    expect(sample(scraped.text, 'kurz_redirects_total', '{outcome="unlocked"}')).toBe(1);
    expect(sample(scraped.text, 'kurz_click_batch_size_sum')).toBe(2);
    expect(
      sample(
        scraped.text,
        'kurz_http_requests_total',
        '{route="/api/auth/login",method="POST",status="401"}',
      ),
    ).toBe(1);
    expect(sample(scraped.text, 'kurz_users')).toBe(1);
    // Two links made with the token, one with the API key.
    expect(sample(scraped.text, 'kurz_links')).toBe(3);
    expect(sample(scraped.text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // A fault: registering while the users table is gone (the query carries a password hash).
    await renameTable(db, 'users');
    const fault = await call(kurz.url, 'POST', '/api/auth/register', {
      json: { email: 'bob@example.com', password: secrets.laterPassword },
    });
    expect(fault.status).toBe(500);
    const id = fault.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    // Its error line and its access line.
    await eventually(
      () => kurz.output().split(`"request_id":"${id}"`).length === 3,
      () => `the fault's lines in:\n${kurz.output()}`,
    );
    expect(await kurz.stop()).toBe(0);

    const output = kurz.output();
    const lines = jsonLines(output);
    expect(lines[0]?.msg).toStartWith('kurz listening on http://127.0.0.1:');
    const redirects = accessLinesOf(lines, 'GET', '/plain');
    expect(redirects).toHaveLength(1);
    expect(redirects[0]).toMatchObject({ level: 'info', status: 307, client: '127.0.0.1' });
    expect(redirects[0]?.request_id).toMatch(UUID);
    expect(redirects[0]?.duration_ms).toBeNumber();
    expect(accessLinesOf(lines, 'HEAD', '/plain')[0]?.status).toBe(307);
    expect(accessLinesOf(lines, 'POST', '/locked').map((l) => l.status)).toEqual([401, 303]);
    expect(accessLinesOf(lines, 'POST', '/api/auth/login').map((l) => l.status)).toEqual([
      200, 401,
    ]);
    // The fault (on stderr) and its access line (on stdout) under the id of the 500.
    const faultLines = lines.filter((l) => l.request_id === id);
    expect(faultLines.map((l) => [l.level, l.status ?? null]).sort()).toEqual([
      ['error', null],
      ['info', 500],
    ]);
    expect(faultLines.find((l) => l.level === 'error')?.msg).toContain(
      `request ${id} POST /api/auth/register failed`,
    );
    expect(output).not.toContain('$argon2id$');
    expectNoSecret(output, secrets);
  });

  test('open mode: the admin and metrics tokens (from the environment) are never logged', async () => {
    const dir = tempDir();
    const secrets: Secrets = {
      adminToken: 'admin-token-of-the-test-0123456789abcdefg',
      wrongAdminToken: 'not-the-admin-token-0123456789abcdefghij',
      metricsToken: 'metrics-token-from-env-0123456789abcdefgh',
      linkPassword: 'open sesame 31',
      newLinkPassword: 'a new sesame 77',
      databasePassword: 's3cret-pass-of-the-db',
    };
    const db = await databaseFor(kind, secrets);
    const kurz = await startKurz(['--mode', 'open', '--access-log', 'on'], {
      cwd: dir,
      env: {
        DATABASE_URL: db,
        KURZ_LOG_FORMAT: 'json',
        KURZ_ADMIN_TOKEN: secrets.adminToken as string,
        KURZ_METRICS_TOKEN: secrets.metricsToken as string,
      },
    });
    const made = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/', custom_code: 'shut', password: secrets.linkPassword },
    });
    expect(made.status).toBe(201);
    const change = { password: secrets.newLinkPassword };
    for (const [token, status] of [
      [secrets.wrongAdminToken, 401],
      [secrets.adminToken, 200],
    ] as const) {
      const reply = await call(kurz.url, 'PATCH', '/api/links/shut', { json: change, token });
      expect(reply.status).toBe(status);
    }
    const unlocked = await call(kurz.url, 'POST', '/shut', {
      raw: new URLSearchParams({ password: secrets.newLinkPassword as string }).toString(),
      headers: FORM,
    });
    expect(unlocked.status).toBe(303);
    const scraped = await call(kurz.url, 'GET', '/api/metrics', { token: secrets.metricsToken });
    expect(scraped.status).toBe(200);
    expect(sample(scraped.text, 'kurz_redirects_total', '{outcome="unlocked"}')).toBe(1);
    expect(sample(scraped.text, 'kurz_users')).toBe(0);

    await renameTable(db, 'links');
    const fault = await call(kurz.url, 'DELETE', '/api/links/shut', { token: secrets.adminToken });
    expect(fault.status).toBe(500);
    const id = fault.headers.get('x-request-id');
    await eventually(
      () => kurz.output().includes(`"request_id":"${id}"`),
      () => `the fault's lines in:\n${kurz.output()}`,
    );
    expect(await kurz.stop()).toBe(0);
    const output = kurz.output();
    const lines = jsonLines(output);
    expect(accessLinesOf(lines, 'PATCH', '/api/links/shut').map((l) => l.status)).toEqual([
      401, 200,
    ]);
    expect(lines.some((l) => l.level === 'error' && l.request_id === id)).toBe(true);
    expectNoSecret(output, secrets);
  });
});

describe('the executable, other ways', () => {
  test('the text format stays as it was, with the access log a plain line; no token, no metrics', async () => {
    const kurz = await startKurz(['--mode', 'open', '--access-log', 'on']);
    const made = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/', custom_code: 'text' },
    });
    expect(made.status).toBe(201);
    expect((await call(kurz.url, 'GET', '/text?utm=1')).status).toBe(307);
    const metrics = await call(kurz.url, 'GET', '/api/metrics', { token: 'x'.repeat(32) });
    expect(metrics.status).toBe(404);
    expect(metrics.json).toEqual({ error: 'Not found' });
    await eventually(
      () => kurz.output().includes('GET /api/metrics 404 '),
      () => `the access line of the last request in:\n${kurz.output()}`,
    );
    expect(await kurz.stop()).toBe(0);
    const lines = kurz.output().split('\n');
    expect(lines[0]).toStartWith(
      `kurz listening on http://127.0.0.1:${kurz.port} (mode: open, db: `,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^GET \/text 307 \d+(\.\d+)? ms from 127\.0\.0\.1 \(request [0-9a-f-]{36}\)$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^GET \/api\/metrics 404 [\d.]+ ms from 127\.0\.0\.1 \(request /),
    );
    expect(lines.some((line) => line.startsWith('{'))).toBe(false);
  });

  test('a PostgreSQL server that cannot be reached is told without the password of its URL', async () => {
    const password = 'unreachable-db-s3cret';
    const proc = track(
      Bun.spawn(
        [
          BINARY,
          'serve',
          '--port',
          '0',
          '--log-format',
          'json',
          '--db',
          `postgres://kurz:${password}@127.0.0.1:1/kurz`,
        ],
        { cwd: tempDir(), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
      ),
    );
    let output = '';
    const decoder = new TextDecoder();
    void (async () => {
      for await (const chunk of proc.stderr) output += decoder.decode(chunk);
    })();
    await eventually(() => output.includes('cannot be reached'), 'the unreachable database told');
    proc.kill('SIGTERM');
    await proc.exited;
    const [line] = jsonLines(output);
    expect(line?.level).toBe('error');
    expect(line?.msg).toContain('postgres://kurz:***@127.0.0.1:1/kurz cannot be reached');
    expect(output).not.toContain(password);
  });
});
