// docs/postgres.md's example of several instances, run as written: docs/deploy/nginx-kurz.conf
// in front of two dist/kurz processes on one PostgreSQL database (only the ports are
// changed). Through the proxy every request is answered by either instance, and one
// instance stopping takes nothing down. nginx comes from scripts/ensure-nginx.sh.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { call, type Running, startKurz } from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';
import { freePort, type RunningProxy, startNginx } from '../support/proxies.ts';

const EXAMPLE = resolve(import.meta.dir, '..', '..', 'docs', 'deploy', 'nginx-kurz.conf');
/** The example with its ports changed: nginx's own, and the two instances'. */
function site(port: number, upstreams: number[]): string {
  let text = readFileSync(EXAMPLE, 'utf8').replace('listen 8080;', `listen 127.0.0.1:${port};`);
  for (const [i, upstream] of [3001, 3002].entries()) {
    text = text.replace(`127.0.0.1:${upstream} `, `127.0.0.1:${upstreams[i]} `);
  }
  return text;
}

describe('two instances on one PostgreSQL behind nginx (docs/deploy/nginx-kurz.conf)', () => {
  let a: Running;
  let b: Running;
  let proxy: RunningProxy & { url: string };

  beforeAll(async () => {
    const db = await freshDatabase();
    const flags = ['--mode', 'open', '--db', db, '--rate-limits', 'off'];
    flags.push('--trusted-proxies', '127.0.0.1');
    a = await startKurz(flags);
    b = await startKurz(flags);
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    proxy = { url, ...(await startNginx(site(port, [a.port, b.port]), `${url}/health`)) };
  }, 30_000);

  afterAll(async () => {
    await proxy?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('creates and redirects through the proxy; both instances list the same counts', async () => {
    const made = await call(proxy.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/behind-nginx' },
    });
    expect(made.status).toBe(201);
    const code = made.json.short_code as string;
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`${proxy.url}/${code}`, { redirect: 'manual' }).then((r) => r.status),
      ),
    );
    expect(answers.every((status) => status === 307)).toBe(true);
    for (const instance of [a, b]) {
      const list = await call(instance.url, 'GET', '/api/links');
      expect(list.json.find((l: { short_code: string }) => l.short_code === code)?.clicks).toBe(40);
    }
  });

  test('with one instance stopped, the proxy answers from the other; nothing acknowledged is lost', async () => {
    const made = await call(proxy.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/failover' },
    });
    const code = made.json.short_code as string;
    expect(await a.stop()).toBe(0);
    let redirects = 0;
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${proxy.url}/${code}`, { redirect: 'manual' });
      expect(response.status).toBe(307);
      redirects++;
    }
    const created = await call(proxy.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/after-failover' },
    });
    expect(created.status).toBe(201);
    const list = await call(proxy.url, 'GET', '/api/links');
    expect(list.json.find((l: { short_code: string }) => l.short_code === code)?.clicks).toBe(
      redirects,
    );
    expect(list.headers.get('x-total-count')).toBe('3');
  });
});
