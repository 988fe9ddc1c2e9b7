// Faults against the compiled binary. kill -9 under mixed load: nothing a client was
// told (a 201, a 307) may be lost, and the database stays sound (WAL with
// synchronous=NORMAL survives a crash of the process). SIGTERM under load: every
// request that reached kurz before the signal gets its answer, and kurz exits 0.

import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { call, type Running, startKurz, tempDir } from '../support/binary.ts';

// All the load comes from one address (this test), which the per-address rate limits
// would soon refuse; the limits are not what is tested here, so they are off.
const ARGS = ['--mode', 'open', '--rate-limits', 'off'];
const CLIENTS = 16;

/** What the clients were told across all rounds. */
interface Ledger {
  /** Codes whose create got a 201. */
  created: string[];
  /** 307s received, per code. */
  redirected: Map<string, number>;
  /** Redirects sent, per code (an upper bound on its clicks). */
  sent: Map<string, number>;
  /** Any answer other than 201 or 307 while kurz was alive. */
  unexpected: string[];
}

const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * One round: CLIENTS concurrent clients create links with custom codes and follow
 * codes already created, until kurz is killed with SIGKILL at a random moment.
 */
async function crashRound(kurz: Running, round: number, ledger: Ledger) {
  let alive = true;
  let answers = 0;
  const client = async (id: number) => {
    for (let n = 0; alive; n++) {
      const create = ledger.created.length === 0 || Math.random() < 0.3;
      const code = create
        ? `r${round}-${id}-${n}`
        : (ledger.created[Math.floor(Math.random() * ledger.created.length)] as string);
      if (!create) add(ledger.sent, code);
      try {
        const response = create
          ? await fetch(`${kurz.url}/api/shorten`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ url: `https://example.com/${code}`, custom_code: code }),
            })
          : await fetch(`${kurz.url}/${code}`, { redirect: 'manual' });
        const body = await response.text();
        answers++;
        if (create && response.status === 201) ledger.created.push(code);
        else if (!create && response.status === 307) add(ledger.redirected, code);
        else
          ledger.unexpected.push(
            `${create ? 'create' : 'redirect'} ${code}: ${response.status} ${body}`,
          );
      } catch {
        return; // kurz is gone
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, id) => client(id));
  // Let the load get going, then kill at a random moment within the next 300 ms.
  while (answers < 100) await Bun.sleep(1);
  await Bun.sleep(Math.random() * 300);
  kurz.proc.kill('SIGKILL');
  expect(await kurz.proc.exited).not.toBe(0);
  alive = false;
  await Promise.all(clients);
}

test('ten rounds of mixed load, each killed with kill -9: every 201 and every 307 survives, integrity ok', async () => {
  const dir = tempDir();
  const ledger: Ledger = { created: [], redirected: new Map(), sent: new Map(), unexpected: [] };
  for (let round = 0; round < 10; round++) {
    const kurz = await startKurz(ARGS, { cwd: dir });
    await crashRound(kurz, round, ledger);
  }
  expect(ledger.unexpected).toEqual([]);
  expect(ledger.created.length).toBeGreaterThan(0);
  expect(ledger.redirected.size).toBeGreaterThan(0);

  const kurz = await startKurz(ARGS, { cwd: dir });
  const list = await call(kurz.url, 'GET', '/api/links');
  expect(await kurz.stop()).toBe(0);
  const clicks = new Map<string, number>(
    list.json.map((l: { short_code: string; clicks: number }) => [l.short_code, l.clicks]),
  );
  const lost = ledger.created.filter((code) => !clicks.has(code));
  expect(lost).toEqual([]);
  const undercounted = [...ledger.redirected].filter(
    ([code, received]) => (clicks.get(code) ?? 0) < received,
  );
  expect(undercounted).toEqual([]);
  const overcounted = [...clicks].filter(([code, n]) => n > (ledger.sent.get(code) ?? 0));
  expect(overcounted).toEqual([]);

  for (const file of ['kurz.db', 'kurz.db-counts']) {
    const db = new Database(join(dir, 'data', file), { readonly: true });
    try {
      expect(db.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      db.close();
    }
  }
}, 60_000);

test('SIGTERM under redirect load: every request that reached kurz gets its 307, exit 0', async () => {
  const dir = tempDir();
  const kurz = await startKurz(ARGS, { cwd: dir });
  await call(kurz.url, 'POST', '/api/shorten', {
    json: { url: 'https://example.com/', custom_code: 'bye' },
  });
  let signalled = false;
  let redirected = 0;
  let sent = 0;
  /** Requests that reached kurz and did not get their 307. */
  const failures: string[] = [];
  let ended = 0;
  const client = async () => {
    while (true) {
      const before = !signalled;
      sent++;
      try {
        const response = await fetch(`${kurz.url}/bye`, { redirect: 'manual' });
        await response.arrayBuffer();
        if (response.status === 307) redirected++;
        else failures.push(`${before ? 'before' : 'after'} the signal: ${response.status}`);
      } catch (error) {
        // A refused connection never reached kurz: the client opened it (a new
        // connection, or one replacing a keep-alive connection kurz closed as idle)
        // after kurz had stopped listening, even if fetch was called just before the
        // signal. Any other failure of a request sent before the signal (a reset, a
        // closed socket) may have hit a request kurz had received, and is a failure.
        const refused = (error as { code?: string }).code === 'ECONNREFUSED';
        if (before && !refused) failures.push(`before the signal: ${error}`);
        ended++;
        return; // kurz has stopped listening: every further request is refused
      }
    }
  };
  const clients = Array.from({ length: 32 }, client);
  while (redirected < 2000) await Bun.sleep(1);
  await Bun.sleep(Math.random() * 200);
  signalled = true;
  kurz.proc.kill('SIGTERM');
  const exit = await kurz.proc.exited;
  await Promise.all(clients);

  expect(failures).toEqual([]);
  expect(exit).toBe(0);
  expect(kurz.output()).toContain('SIGTERM received');
  expect(ended).toBe(32);

  const again = await startKurz(ARGS, { cwd: dir });
  try {
    const clicks = (await call(again.url, 'GET', '/api/links')).json[0].clicks as number;
    expect(clicks).toBeGreaterThanOrEqual(redirected);
    expect(clicks).toBeLessThanOrEqual(sent);
  } finally {
    await again.stop();
  }
}, 30_000);
