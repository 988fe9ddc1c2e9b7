// kill -9 under redirect load: every 307 a client received must still be counted after
// a restart (WAL with synchronous=NORMAL survives a crash of the process).

import { expect, test } from 'bun:test';
import { call, type Running, startKurz, tempDir } from './support/binary.ts';

/** Redirect load from 32 concurrent clients until the server dies; counts what happened. */
async function loadUntilKilled(kurz: Running, killAfter: number) {
  let sent = 0;
  let received = 0;
  let running = true;
  const client = async () => {
    while (running) {
      sent++;
      try {
        const response = await fetch(`${kurz.url}/crash`, { redirect: 'manual' });
        await response.arrayBuffer();
        if (response.status === 307) received++;
      } catch {
        return; // the server is gone
      }
    }
  };
  const clients = Array.from({ length: 32 }, client);
  while (received < killAfter) await Bun.sleep(1);
  kurz.proc.kill('SIGKILL');
  running = false;
  await Promise.all(clients);
  expect(await kurz.proc.exited).not.toBe(0);
  return { sent, received };
}

test('after kill -9 under concurrent redirects, clicks ≥ 307s received (and ≤ requests sent)', async () => {
  const dir = tempDir();
  let kurz = await startKurz(['--mode', 'open'], { cwd: dir });
  await call(kurz.url, 'POST', '/api/shorten', {
    json: { url: 'https://example.com/', custom_code: 'crash' },
  });
  let sent = 0;
  let received = 0;
  // Three crashes at different moments; the counts add up across restarts.
  for (const killAfter of [1500, 2750, 4000]) {
    const run = await loadUntilKilled(kurz, killAfter);
    sent += run.sent;
    received += run.received;
    kurz = await startKurz(['--mode', 'open'], { cwd: dir });
    const clicks = (await call(kurz.url, 'GET', '/api/links')).json[0].clicks as number;
    expect(clicks).toBeGreaterThanOrEqual(received);
    expect(clicks).toBeLessThanOrEqual(sent);
  }
  await kurz.stop();
}, 60_000);
