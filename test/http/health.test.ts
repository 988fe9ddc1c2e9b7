import { describe, expect, test } from 'bun:test';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { HEALTH_PROBE_KEY, HealthCheck } from '../../src/health/health-check.ts';
import { openSqlite } from '../../src/store/sqlite/sqlite-store.ts';
import { withFaults } from '../support/faulty-store.ts';
import { TestApp } from '../support/test-app.ts';

describe.each(['accounts', 'open'] as const)('GET /health (%s mode)', (mode) => {
  test('answers the JSON string "Healthy" while the database works', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/health');
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('"Healthy"');
    expect(reply.headers.get('content-type')).toStartWith('application/json');
  });

  test('answers 503 with the JSON string "Database unavailable" once the database is gone', async () => {
    const app = await TestApp.init(mode);
    await app.store.close();
    const reply = await app.get('/health');
    expect(reply.status).toBe(503);
    expect(reply.text).toBe('"Database unavailable"');
    expect(reply.headers.get('content-type')).toStartWith('application/json');
  });

  test('needs no token, and ignores a bad one', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.get('/health', { headers: { authorization: 'Bearer junk' } });
    expect(reply.status).toBe(200);
  });

  test('other methods on /health are 404', async () => {
    const app = await TestApp.init(mode);
    const reply = await app.request('POST', '/health');
    expect(reply.status).toBe(404);
    expect(reply.json).toEqual({ error: 'Not found' });
  });
});

describe('HealthCheck (the same on every store)', () => {
  function probed(failWrites: () => boolean) {
    const real = openSqlite({ path: ':memory:', durability: 'normal' });
    const writes: string[] = [];
    const store = withFaults(real, {
      replaceSetting: async (key, value) => {
        writes.push(key);
        if (failWrites()) throw new StoreUnavailableError();
        return real.replaceSetting(key, value);
      },
    });
    let now = 10_000;
    const health = new HealthCheck(store, () => now);
    return { health, writes, real, tick: (ms: number) => (now += ms) };
  }

  test('proves writes with the probe row at most once a second', async () => {
    const { health, writes, real, tick } = probed(() => false);
    await health.check();
    await health.check();
    tick(999);
    await health.check();
    expect(writes).toEqual([HEALTH_PROBE_KEY]);
    tick(1);
    await health.check();
    expect(writes).toEqual([HEALTH_PROBE_KEY, HEALTH_PROBE_KEY]);
    expect(await real.setting(HEALTH_PROBE_KEY, () => 'absent')).toBe(
      new Date(11_000).toISOString(),
    );
  });

  test('a failed probe answers unavailable until a later probe works', async () => {
    let failing = true;
    const { health, writes, tick } = probed(() => failing);
    await expect(health.check()).rejects.toThrow('Database unavailable');
    failing = false;
    tick(500);
    // Within the second: the last probe's outcome stands, and nothing is written.
    await expect(health.check()).rejects.toThrow('Database unavailable');
    expect(writes).toHaveLength(1);
    tick(500);
    await health.check();
    expect(writes).toHaveLength(2);
  });
});
