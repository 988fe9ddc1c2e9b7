// A client that hangs up is not a server fault: a password form whose body is cut off
// (headers and part of the body sent, then the connection closed) is counted as
// kurz_redirects_total{outcome="aborted"}, never as "failed", and logs nothing. Raw
// sockets against the compiled dist/kurz (run `bun run build` first).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { join } from 'node:path';
import { call, eventually, type Running, startKurz } from '../support/binary.ts';
import { tempDir } from '../support/cleanup.ts';

const METRICS_TOKEN = 'm'.repeat(32);
const CUT_OFF = 30;

let kurz: Running;
beforeAll(async () => {
  kurz = await startKurz([
    '--mode',
    'open',
    '--db',
    join(tempDir(), 'kurz.db'),
    '--metrics-token',
    METRICS_TOKEN,
    '--rate-limits',
    'off',
  ]);
});
afterAll(async () => {
  await kurz?.stop();
});

/** Sends a POST's headers and the start of its declared body, then closes the connection. */
function hangUp(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(kurz.port, '127.0.0.1');
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\npassword=open`,
        () => {
          // Once the server has the start of the body, the client is gone.
          setTimeout(() => socket.destroy(), 50);
        },
      );
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

async function outcomes(): Promise<Record<string, number>> {
  const reply = await call(kurz.url, 'GET', '/api/metrics', { token: METRICS_TOKEN });
  const found: Record<string, number> = {};
  for (const match of reply.text.matchAll(/^kurz_redirects_total\{outcome="(\w+)"\} (\d+)$/gm)) {
    found[match[1] as string] = Number(match[2]);
  }
  return found;
}

describe('a password form cut off by its client', () => {
  test('is counted as aborted, not failed, and logs no failure', async () => {
    const made = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/locked', custom_code: 'locked', password: 'open sesame' },
    });
    expect(made.status).toBe(201);
    for (let i = 0; i < CUT_OFF; i++) await hangUp('/locked');
    let seen: Record<string, number> = {};
    await eventually(
      async () => {
        seen = await outcomes();
        return seen.aborted === CUT_OFF;
      },
      () => `${CUT_OFF} aborted, got ${JSON.stringify(seen)}`,
    );
    const counted = await outcomes();
    expect(counted.failed).toBe(0);
    expect(counted.unlocked).toBe(0);
    expect(kurz.output()).not.toContain('failed:');
    // The form works as before for a client that stays.
    const unlocked = await call(kurz.url, 'POST', '/locked', {
      raw: 'password=open+sesame',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unlocked.status).toBe(303);
  });
});
