// Slow clients against the compiled executable: idle and stalled connections are closed
// by the server, a shutdown does not wait past its deadline, and a reader that stops
// reading a streamed list holds up no one else.

import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { ApiError } from '../../src/domain/errors.ts';
import { readJsonBody } from '../../src/http/body.ts';
import { BINARY, call, type Running, runKurz, startKurz, tempDir } from '../support/binary.ts';

const dirs: string[] = [];
const running: Running[] = [];

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

afterAll(() => {
  for (const kurz of running) kurz.proc.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A migrated database in a fresh folder holding n links (codes l0 … l{n-1}, l0 oldest). */
async function databaseWith(n: number): Promise<string> {
  const dir = tempDir();
  dirs.push(dir);
  const db = join(dir, 'kurz.db');
  const migrate = await runKurz(['migrate', '--db', db], { cwd: dir });
  if (migrate.code !== 0) throw new Error(migrate.stderr);
  const sqlite = new Database(db);
  const insert = sqlite.prepare(
    'INSERT INTO links (user_id, original_url, short_code, created_at) VALUES (NULL, ?, ?, ?)',
  );
  sqlite.transaction(() => {
    for (let i = 0; i < n; i++) {
      insert.run(
        `https://example.com/article/${i}?utm_source=test`,
        `l${i}`,
        1_700_000_000_000 + i,
      );
    }
  })();
  // Finalized and closed for certain: a statement left to the collector keeps the
  // connection, and its lock, alive, and kurz would find the database locked.
  insert.finalize();
  sqlite.close(true);
  return db;
}

async function serve(args: string[]): Promise<Running> {
  const dir = tempDir();
  dirs.push(dir);
  const kurz = await startKurz(['--mode', 'open', ...args], { cwd: dir });
  running.push(kurz);
  return kurz;
}

interface RawConnection {
  socket: Socket;
  /** Everything the server sent, once it has closed the connection. */
  closed: Promise<string>;
}

/** A raw TCP connection to kurz, sending `text` (maybe nothing) and then nothing more. */
function rawConnection(port: number, text: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => {
      if (text !== '') socket.write(text);
      resolve({ socket, closed });
    });
    const closed = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.on('data', (data) => {
      received += data.toString();
    });
    socket.on('error', reject);
  });
}

const STALLED_UPLOAD =
  'POST /api/shorten HTTP/1.1\r\nHost: kurz.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":';

describe('slow clients', () => {
  test('a stalled upload does not hold the exit past --shutdown-timeout; exit code 0', async () => {
    const kurz = await serve(['--shutdown-timeout', '1']);
    const upload = await rawConnection(kurz.port, STALLED_UPLOAD);
    // Wait until the request is in flight (its handler waits for the body).
    expect((await call(kurz.url, 'GET', '/health')).status).toBe(200);
    expect(await kurz.stop('SIGTERM')).toBe(0);
    // Closed by the shutdown deadline, not answered by the (later) body deadline.
    expect(await upload.closed).toBe('');
    expect(kurz.output()).toContain('closing the connections still open after 1 s');
  });

  test('SIGINT with nothing in flight exits at once, without waiting for the deadline', async () => {
    const kurz = await serve(['--shutdown-timeout', '3600']);
    expect((await call(kurz.url, 'GET', '/health')).status).toBe(200);
    expect(await kurz.stop('SIGINT')).toBe(0);
    expect(kurz.output()).not.toContain('closing the connections');
  });

  test('an idle connection is closed; a stalled body is answered 408 and closed', async () => {
    const kurz = await serve([]);
    const [idle, stalled] = await Promise.all([
      rawConnection(kurz.port, ''),
      rawConnection(kurz.port, STALLED_UPLOAD),
    ]);
    expect(await idle.closed).toBe('');
    const answer = await stalled.closed;
    expect(answer).toStartWith('HTTP/1.1 408 ');
    expect(answer).toContain('Connection: close');
    expect(answer).toEndWith('\r\n\r\n{"error":"Request timeout"}');
    expect(await kurz.stop()).toBe(0);
  }, 30_000);
});

describe('the body deadline', () => {
  /** A request whose body sends `first` and then nothing more. */
  const stalling = (first: string, headers: Record<string, string> = {}) =>
    new Request('http://localhost/api/shorten', {
      method: 'POST',
      headers,
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(first));
        },
      }),
    });

  test('a body that has not arrived whole in time is 408 Request timeout, closing the connection', async () => {
    const error = await readJsonBody(stalling('{"url":'), 50).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 408,
      message: 'Request timeout',
      headers: { connection: 'close' },
    });
  });

  test('a body that arrives in time is read as before', async () => {
    const request = new Request('http://localhost/', { method: 'POST', body: '{"url": "x"}' });
    expect(await readJsonBody(request, 50)).toEqual({ url: 'x' });
  });
});

describe('the streamed list over HTTP', () => {
  test('a list of a few thousand links equals its pages concatenated', async () => {
    const n = 3456;
    const kurz = await serve(['--db', await databaseWith(n)]);
    const whole = await call(kurz.url, 'GET', '/api/links');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('x-total-count')).toBe(String(n));
    const pages: unknown[] = [];
    for (let offset = 0; offset < n; offset += 1000) {
      pages.push(...(await call(kurz.url, 'GET', `/api/links?limit=1000&offset=${offset}`)).json);
    }
    expect(whole.json).toHaveLength(n);
    expect(whole.text).toBe(JSON.stringify(pages));
    expect(whole.json[0].short_code).toBe(`l${n - 1}`);
    expect(await kurz.stop()).toBe(0);
  });

  test('a client that stops reading the list holds up no other request', async () => {
    // ~10 MB of JSON: far more than the sockets' buffers take.
    const kurz = await serve(['--db', await databaseWith(60_000)]);
    const stopped = await rawConnection(
      kurz.port,
      'GET /api/links HTTP/1.1\r\nHost: kurz.test\r\n\r\n',
    );
    stopped.socket.pause();
    expect((await call(kurz.url, 'GET', '/health')).text).toBe('"Healthy"');
    const redirect = await call(kurz.url, 'GET', '/l7');
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe('https://example.com/article/7?utm_source=test');
    const page = await call(kurz.url, 'GET', '/api/links?limit=2');
    expect(page.json.map((l: { short_code: string }) => l.short_code)).toEqual([
      'l59999',
      'l59998',
    ]);
    stopped.socket.destroy();
    expect(await kurz.stop()).toBe(0);
  });
});
