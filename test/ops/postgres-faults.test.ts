// PostgreSQL stopped and started again under the compiled binary, on a throwaway
// cluster of this file's own (never the machine's server): while the database is away
// every request is answered 503 in time (no hang, no 500, kurz stays up); once it is
// back kurz serves again by itself, and every click it acknowledged with a 307 is
// counted. And kurz started before its database waits for it.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { call, eventually, type Running, startKurz } from '../support/binary.ts';
import { type PgCluster, type StopMode, throwawayCluster } from '../support/pg-cluster.ts';

/** Every answer while the database is away must come within this. */
const ANSWER_WITHIN_MS = 2000;

let cluster: PgCluster;
const running: Running[] = [];
let schemas = 0;

beforeAll(async () => {
  cluster = await throwawayCluster();
}, 60_000);

// A test that failed with the server stopped must not take the next ones with it.
beforeEach(async () => {
  if (!cluster.running) await cluster.start();
});

afterAll(async () => {
  for (const kurz of running) if (kurz.proc.exitCode === null) await kurz.stop('SIGKILL');
});

/** A --db URL of a schema of its own on the cluster. */
function freshDb(): string {
  const url = new URL(cluster.url);
  url.searchParams.set('schema', `outage_${++schemas}`);
  return url.toString();
}

async function serve(mode: 'open' | 'accounts', db: string): Promise<Running> {
  const kurz = await startKurz(['--mode', mode, '--db', db, '--rate-limits', 'off']);
  running.push(kurz);
  return kurz;
}

/** One request, with how long it took; status 0 when nothing came back in 5 s. */
async function timed(
  base: string,
  method: string,
  path: string,
  options: { json?: unknown; token?: string } = {},
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(base + path, {
      method,
      headers: {
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      redirect: 'manual',
      signal: AbortSignal.timeout(5000),
    });
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  } catch {
    return { status: 0, text: '', ms: performance.now() - started };
  }
}

/** Asserts a 503 answered in time, with the body the API promises. */
function expectUnavailable(reply: { status: number; text: string; ms: number }, body: string) {
  expect({ status: reply.status, text: reply.text }).toEqual({ status: 503, text: body });
  expect(reply.ms).toBeLessThan(ANSWER_WITHIN_MS);
}

const UNAVAILABLE_JSON = JSON.stringify({ error: 'Database unavailable' });

/**
 * Follows the links over and over from a few clients at once until stopped, counting
 * every answer by status and the 307s by code: what kurz acknowledged as clicked.
 */
function followContinuously(base: string, codes: string[]) {
  let going = true;
  const statuses = new Map<number, number>();
  const acknowledged = new Map<string, number>(codes.map((code) => [code, 0]));
  let slowest = 0;
  const client = async (offset: number) => {
    for (let i = offset; going; i++) {
      const code = codes[i % codes.length] as string;
      const reply = await timed(base, 'GET', `/${code}`);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      if (reply.status === 307) acknowledged.set(code, (acknowledged.get(code) ?? 0) + 1);
      slowest = Math.max(slowest, reply.ms);
      // Answers while the database is away are quick: no need to spin on them.
      if (reply.status !== 307) await Bun.sleep(10);
    }
  };
  const clients = [0, 1, 2, 3].map(client);
  return {
    statuses,
    async stop() {
      going = false;
      await Promise.all(clients);
      return { statuses, acknowledged, slowest };
    },
  };
}

/** Each link's click count as the API lists it (open mode lists every link). */
async function clicksByCode(base: string): Promise<Map<string, number>> {
  const reply = await call(base, 'GET', '/api/links');
  expect(reply.status).toBe(200);
  return new Map(
    (reply.json as { short_code: string; clicks: number }[]).map((l) => [l.short_code, l.clicks]),
  );
}

describe.each(['fast', 'immediate'] as const)('PostgreSQL stopped -m %s under kurz', (mode) => {
  test('503 in time while it is away; serving again by itself once back; no acknowledged click lost', async () => {
    const db = freshDb();
    const kurz = await serve('open', db);
    // A second instance on the same database, to see that notices flow again after.
    const other = await serve('open', db);
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await call(kurz.url, 'POST', '/api/shorten', {
        json: { url: `https://example.com/${i}` },
      });
      expect(made.status).toBe(201);
      codes.push(made.json.short_code);
      expect((await call(kurz.url, 'GET', `/${made.json.short_code}`)).status).toBe(307);
    }
    const load = followContinuously(kurz.url, codes);
    await eventually(() => (load.statuses.get(307) ?? 0) >= 50, 'clicks before the stop');

    await cluster.stop(mode as StopMode);
    expectUnavailable(await timed(kurz.url, 'GET', '/health'), '"Database unavailable"');
    expectUnavailable(
      await timed(kurz.url, 'POST', '/api/shorten', { json: { url: 'https://example.com/x' } }),
      UNAVAILABLE_JSON,
    );
    expectUnavailable(await timed(kurz.url, 'GET', `/${codes[0]}`), UNAVAILABLE_JSON);
    const unavailableBefore = load.statuses.get(503) ?? 0;
    await eventually(
      () => (load.statuses.get(503) ?? 0) >= unavailableBefore + 20,
      'redirects answered while the database is away',
    );
    expect(kurz.proc.exitCode).toBeNull();

    await cluster.start();
    await eventually(
      async () => (await timed(kurz.url, 'GET', '/health')).status === 200,
      'health back to 200',
      10_000,
    );
    const clicksBack = load.statuses.get(307) ?? 0;
    await eventually(() => (load.statuses.get(307) ?? 0) >= clicksBack + 50, 'clicks again');
    const made = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/after' },
    });
    expect(made.status).toBe(201);
    expect((await call(kurz.url, 'GET', `/${made.json.short_code}`)).status).toBe(307);

    const { statuses, acknowledged, slowest } = await load.stop();
    // Only redirects and unavailability: no 500, no request left without an answer.
    expect([...statuses.keys()].sort()).toEqual([307, 503]);
    expect(slowest).toBeLessThan(ANSWER_WITHIN_MS);
    const counted = await clicksByCode(kurz.url);
    // The first follow of each link was made before the load. Every acknowledged click
    // is counted; a click whose COMMIT reached the disk as the server was killed, before
    // its answer did, is counted too though its visitor got a 503 (kurz cannot know the
    // outcome of a commit whose connection died): at most one more per 503 answered.
    const unanswered = statuses.get(503) ?? 0;
    for (const code of codes) {
      const expected = (acknowledged.get(code) ?? 0) + 1;
      const clicks = counted.get(code) ?? 0;
      expect({ code, clicks: Math.min(clicks, expected) }).toEqual({ code, clicks: expected });
      expect(clicks - expected).toBeLessThanOrEqual(unanswered);
    }
    expect(counted.get(made.json.short_code)).toBe(1);

    // Listening was lost with the server and taken up again: a code the other instance
    // creates now redirects here at once, though this instance had just found it unknown.
    await eventually(
      async () => (await timed(kurz.url, 'GET', `/late-${mode}`)).status === 404,
      'unknown codes answered 404 again',
      10_000,
    );
    const late = await call(other.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/late', custom_code: `late-${mode}` },
    });
    expect(late.status).toBe(201);
    expect((await timed(kurz.url, 'GET', `/late-${mode}`)).status).toBe(307);
    expect(await other.stop()).toBe(0);
    expect(await kurz.stop()).toBe(0);
  }, 60_000);
});

test('accounts mode: register, login and create answer 503 in time while it is away, and work once back', async () => {
  const kurz = await serve('accounts', freshDb());
  const ann = { email: 'ann@example.com', password: 'correct horse 42' };
  const registered = await call(kurz.url, 'POST', '/api/auth/register', { json: ann });
  expect(registered.status).toBe(200);
  const token = registered.json.token as string;

  await cluster.stop('fast');
  expectUnavailable(
    await timed(kurz.url, 'POST', '/api/auth/login', { json: ann }),
    UNAVAILABLE_JSON,
  );
  expectUnavailable(
    await timed(kurz.url, 'POST', '/api/auth/register', {
      json: { email: 'bob@example.com', password: 'correct horse 42' },
    }),
    UNAVAILABLE_JSON,
  );
  expectUnavailable(
    await timed(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/' },
      token,
    }),
    UNAVAILABLE_JSON,
  );

  await cluster.start();
  await eventually(
    async () => (await timed(kurz.url, 'GET', '/health')).status === 200,
    'health back to 200',
    10_000,
  );
  const login = await call(kurz.url, 'POST', '/api/auth/login', { json: ann });
  expect(login.status).toBe(200);
  const made = await call(kurz.url, 'POST', '/api/shorten', {
    json: { url: 'https://example.com/' },
    token: login.json.token,
  });
  expect(made.status).toBe(201);
  expect(await kurz.stop()).toBe(0);
}, 60_000);

test('kurz started while its database is down says so once, keeps trying, and serves once it is up', async () => {
  const db = freshDb();
  await cluster.stop('fast');
  const starting = serve('open', db);
  // kurz tries once a second: long enough for a few attempts (startKurz allows 10 s in all).
  await Bun.sleep(3000);
  await cluster.start();
  const kurz = await starting;
  const said = kurz.output().match(/cannot be reached/g) ?? [];
  expect(said).toHaveLength(1);
  expect(kurz.output()).toContain('kurz: the database is reachable');
  expect((await call(kurz.url, 'GET', '/health')).status).toBe(200);
  const made = await call(kurz.url, 'POST', '/api/shorten', {
    json: { url: 'https://example.com/' },
  });
  expect(made.status).toBe(201);
  expect((await call(kurz.url, 'GET', `/${made.json.short_code}`)).status).toBe(307);
  expect(await kurz.stop()).toBe(0);
}, 60_000);
