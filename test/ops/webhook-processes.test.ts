// Webhooks against the compiled binary: a kill -9 between changes and their delivery
// loses no event (the outbox is in the database, written with the changes), on SQLite
// and on PostgreSQL; and two instances on one PostgreSQL database send each message
// once, a webhook registered on one counting on the other at once.

import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BINARY, call, eventually, type Running, startKurz, tempDir } from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';
import { closedPort, Receiver, verifyStandardWebhook } from '../support/webhook-receiver.ts';

const PASSWORD = 'correct horse 42';
const ARGS = ['--mode', 'accounts', '--rate-limits', 'off', '--webhook-allow-private', 'on'];

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

/** Instances a test started and leaves running: stopped after it, expected to exit 0. */
let running: Running[] = [];
afterEach(async () => {
  const nodes = running;
  running = [];
  expect(await Promise.all(nodes.map((node) => node.stop('SIGTERM')))).toEqual(nodes.map(() => 0));
});

async function start(db: string): Promise<Running> {
  const node = await startKurz(['--db', db, ...ARGS]);
  running.push(node);
  return node;
}

async function register(node: Running, email: string): Promise<string> {
  const reply = await call(node.url, 'POST', '/api/auth/register', {
    json: { email, password: PASSWORD },
  });
  expect(reply.status).toBe(200);
  return reply.json.token;
}

async function shorten(node: Running, token: string, code: string) {
  const reply = await call(node.url, 'POST', '/api/shorten', {
    json: { url: `https://example.com/${code}`, custom_code: code },
    token,
  });
  expect(reply.status).toBe(201);
}

/** What the receiver was told: each message once, as [type, code] pairs, and every click's referrer. */
function heard(receiver: Receiver) {
  const events: string[] = [];
  const referrers: string[] = [];
  for (const message of receiver.messages()) {
    if (message.type === 'clicks') {
      for (const click of message.data.clicks) referrers.push(click.referrer);
    } else events.push(`${message.type} ${message.data.short_code}`);
  }
  return { events: events.sort(), referrers: referrers.sort() };
}

describe.each(['sqlite', 'postgres'] as const)('on %s', (backend) => {
  test('kill -9 with the receiver down: every event made before it arrives once kurz runs again', async () => {
    const db = backend === 'sqlite' ? join(tempDir(), 'kurz.db') : await freshDatabase();
    // Nothing listens there yet: every attempt before the kill fails.
    const port = await closedPort();
    const first = await startKurz(['--db', db, ...ARGS]);
    const token = await register(first, 'crash@example.com');
    const hook = await call(first.url, 'POST', '/api/webhooks', {
      json: { url: `http://127.0.0.1:${port}/hook` },
      token,
    });
    expect(hook.status).toBe(201);
    await shorten(first, token, 'kept');
    await shorten(first, token, 'gone');
    const changed = await call(first.url, 'PATCH', '/api/links/kept', {
      json: { url: 'https://example.com/kept-2' },
      token,
    });
    expect(changed.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const click = await call(first.url, 'GET', '/kept', {
        headers: { referer: `https://ref.example/${i}` },
      });
      expect(click.status).toBe(307);
    }
    expect((await call(first.url, 'DELETE', '/api/links/gone', { token })).status).toBe(204);
    first.proc.kill('SIGKILL');
    expect(await first.proc.exited).not.toBe(0);

    const receiver = Receiver.start(port);
    await start(db);
    const expected = {
      events: ['link.created gone', 'link.created kept', 'link.deleted gone', 'link.updated kept'],
      referrers: ['https://ref.example/0', 'https://ref.example/1', 'https://ref.example/2'],
    };
    await eventually(
      () => Bun.deepEquals(heard(receiver), expected),
      () => `every event, got ${JSON.stringify(heard(receiver))}`,
      // On PostgreSQL a message the killed kurz was sending waits for its lease (30 s).
      backend === 'sqlite' ? 15_000 : 50_000,
    );
    for (const received of receiver.calls) {
      expect(verifyStandardWebhook(hook.json.secret, received)).toBe(true);
    }
  }, 90_000);
});

describe('two instances on one PostgreSQL database', () => {
  test('each message is sent once, whichever instance made the change', async () => {
    const db = await freshDatabase();
    const receiver = Receiver.start();
    const [a, b] = [await start(db), await start(db)] as [Running, Running];
    const token = await register(a, 'pair@example.com');
    // Registered on a; b's changes from now on are reported too.
    const hook = await call(a.url, 'POST', '/api/webhooks', { json: { url: receiver.url }, token });
    expect(hook.status).toBe(201);
    const codes = Array.from({ length: 10 }, (_, i) => `pair${i}`);
    for (const [i, code] of codes.entries()) await shorten(i % 2 ? a : b, token, code);
    for (const [i, code] of codes.entries()) {
      const node = i % 2 ? b : a;
      const changed = await call(node.url, 'PATCH', `/api/links/${code}`, {
        json: { max_clicks: 100 },
        token,
      });
      expect(changed.status).toBe(200);
      for (const [j, clicker] of [a, b].entries()) {
        const click = await call(clicker.url, 'GET', `/${code}`, {
          headers: { referer: `https://ref.example/${code}/${j}` },
        });
        expect(click.status).toBe(307);
      }
    }
    for (const code of codes.slice(0, 5)) {
      expect((await call(b.url, 'DELETE', `/api/links/${code}`, { token })).status).toBe(204);
    }

    const expected = {
      events: [
        ...codes.map((code) => `link.created ${code}`),
        ...codes.slice(0, 5).map((code) => `link.deleted ${code}`),
        ...codes.map((code) => `link.updated ${code}`),
      ].sort(),
      referrers: codes
        .flatMap((code) => [0, 1].map((j) => `https://ref.example/${code}/${j}`))
        .sort(),
    };
    await eventually(
      () => Bun.deepEquals(heard(receiver), expected),
      () => `every event, got ${JSON.stringify(heard(receiver))}`,
      30_000,
    );
    const ids = receiver.calls.map((received) => received.headers.get('webhook-id'));
    expect(ids.length).toBe(new Set(ids).size);
  }, 60_000);
});
