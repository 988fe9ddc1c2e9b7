// The README's example of several instances, run as written: docs/deploy/nginx-kurz.conf
// in front of two dist/kurz processes on one PostgreSQL database (only the ports are
// changed). Through the proxy every request is answered by either instance, and one
// instance stopping takes nothing down. nginx comes from scripts/ensure-nginx.sh.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { call, type Running, startKurz, tempDir } from './support/binary.ts';
import { track } from './support/cleanup.ts';
import { freshDatabase } from './support/postgres.ts';

const EXAMPLE = resolve(import.meta.dir, '..', 'docs', 'deploy', 'nginx-kurz.conf');
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => Bun.file(path).size > 0);

function freePort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** Runs nginx in the foreground with the example as its only site; resolves once it answers. */
async function startNginx(upstreams: number[]): Promise<{ url: string; stop(): Promise<void> }> {
  if (NGINX === undefined) throw new Error('nginx is not installed: run scripts/ensure-nginx.sh');
  const dir = tempDir('kurz-nginx-');
  const port = freePort();
  let site = readFileSync(EXAMPLE, 'utf8').replace('listen 8080;', `listen 127.0.0.1:${port};`);
  for (const [i, upstream] of [3001, 3002].entries()) {
    site = site.replace(`127.0.0.1:${upstream} `, `127.0.0.1:${upstreams[i]} `);
  }
  writeFileSync(join(dir, 'kurz.conf'), site);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((name) => `${name}_temp_path ${dir}/${name};`)
    .join(' ');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http { access_log off; ${temp} include ${dir}/kurz.conf; }
`,
  );
  const proc = track(
    Bun.spawn([NGINX, '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`nginx did not start: ${await new Response(proc.stderr).text()}`);
    }
    await Bun.sleep(20);
  }
  return {
    url,
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

describe('two instances on one PostgreSQL behind nginx (docs/deploy/nginx-kurz.conf)', () => {
  let a: Running;
  let b: Running;
  let proxy: { url: string; stop(): Promise<void> };

  beforeAll(async () => {
    const db = await freshDatabase();
    const flags = ['--mode', 'open', '--db', db, '--rate-limits', 'off'];
    flags.push('--trusted-proxies', '127.0.0.1');
    a = await startKurz(flags);
    b = await startKurz(flags);
    proxy = await startNginx([a.port, b.port]);
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
