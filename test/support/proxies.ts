// Reverse proxies for the tests of the deployment examples in docs/: nginx and Caddy run
// in the foreground on free ports, each from an example file with only its ports and
// paths changed, and are stopped when the test (or the run) ends. Also a request made
// from another loopback address, to show which client address kurz sees through them.

import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { run } from './binary.ts';
import { tempDir, track } from './cleanup.ts';

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => Bun.file(path).size > 0);
export const CADDY = Bun.which('caddy');

export function freePort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

export interface RunningProxy {
  stop(): Promise<void>;
}

/** Fetches `probe` until it answers 200 (a self-signed certificate is accepted). */
async function waitFor(
  probe: string,
  proc: { exitCode: number | null; stderr: ReadableStream<Uint8Array> },
  what: string,
) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const response = await fetch(probe, { tls: { rejectUnauthorized: false } });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`${what} did not start: ${await new Response(proc.stderr).text()}`);
    }
    await Bun.sleep(20);
  }
}

/**
 * Runs nginx in the foreground with `site` (the text of a site file, as in nginx's `http`
 * block) as its only site; resolves once `probe` answers 200.
 */
export async function startNginx(site: string, probe: string): Promise<RunningProxy> {
  if (NGINX === undefined) throw new Error('nginx is not installed: run scripts/ensure-nginx.sh');
  const dir = tempDir('kurz-nginx-');
  writeFileSync(join(dir, 'site.conf'), site);
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
http { access_log off; ${temp} include ${dir}/site.conf; }
`,
  );
  const proc = track(
    Bun.spawn([NGINX, '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
    }),
  );
  await waitFor(probe, proc, 'nginx');
  return {
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/**
 * Runs Caddy in the foreground with `caddyfile`: adapted to Caddy's JSON, with its admin
 * API moved to a free port (two Caddys, or the machine's own, cannot share the default
 * one) and its data and config folders in a folder of the test's own.
 */
export async function startCaddy(caddyfile: string, probe: string): Promise<RunningProxy> {
  if (CADDY === null) throw new Error('caddy is not installed: run scripts/ensure-caddy.sh');
  const dir = tempDir('kurz-caddy-');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir };
  writeFileSync(join(dir, 'Caddyfile'), caddyfile);
  const adapted = await run(
    [CADDY, 'adapt', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'],
    { env },
  );
  if (adapted.code !== 0) throw new Error(`caddy adapt failed: ${adapted.stderr}`);
  const config = JSON.parse(adapted.stdout);
  config.admin = { listen: `127.0.0.1:${freePort()}` };
  writeFileSync(join(dir, 'caddy.json'), JSON.stringify(config));
  const proc = track(
    Bun.spawn([CADDY, 'run', '--config', join(dir, 'caddy.json')], {
      cwd: dir,
      env,
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
    }),
  );
  await waitFor(probe, proc, 'caddy');
  return {
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/**
 * A self-signed certificate for `name` (fullchain.pem and privkey.pem), as certbot lays
 * them out; the name is its subject and its subjectAltName, which TLS clients check, with
 * `address` (an IP address) in the subjectAltName too when given.
 */
export async function selfSignedCertificate(name: string, address?: string): Promise<string> {
  const dir = tempDir('kurz-cert-');
  const made = await run([
    'openssl',
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-addext',
    `subjectAltName=DNS:${name}${address === undefined ? '' : `,IP:${address}`}`,
    '-keyout',
    join(dir, 'privkey.pem'),
    '-out',
    join(dir, 'fullchain.pem'),
  ]);
  if (made.code !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
  return dir;
}

/**
 * The status of `GET path` sent to `url` from the local address `from` (127.0.0.2 is
 * loopback too on Linux): a client the proxy sees at another address than this test's.
 */
export function statusFrom(from: string, url: string, path: string): Promise<number> {
  const { protocol, hostname, port } = new URL(url);
  const https = protocol === 'https:';
  const options = { host: hostname, port: Number(port), localAddress: from };
  return new Promise((resolve, reject) => {
    const socket = https
      ? tls.connect({ ...options, rejectUnauthorized: false })
      : net.connect(options);
    let answer = '';
    socket.on(https ? 'secureConnect' : 'connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1];
      if (status === undefined) reject(new Error(`no HTTP answer: ${answer.slice(0, 200)}`));
      else resolve(Number(status));
    });
  });
}
