// The container image (Containerfile, built by scripts/image.sh) and the compose files
// of docs/deploy. The files are read and checked against what kurz reads; then podman
// builds the image from dist/kurz and runs it as an operator would: serving from a
// named volume as the user 10001, its health check, a stop that commits every click,
// and a new container on the same volume. podman keeps everything (images, containers,
// volumes, its runtime state) in a folder of this test, removed at the end; where
// podman cannot run containers at all (not installed, not root), the test says why and
// skips those checks.

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { parseCommandLine } from '../../src/config/cli.ts';
import { SERVER_FLAG_ENVS } from '../../src/config/flags.ts';
import { parseDatabase } from '../../src/config/values.ts';
import { BINARY, call, eventually, run, tempDir } from '../support/binary.ts';
import { makeCa, makeLeaf, peerFingerprint, type TestPair } from '../support/certificates.ts';
import { podmanInFolder } from '../support/podman.ts';
import { freePort } from '../support/proxies.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const DEPLOY = join(ROOT, 'docs', 'deploy');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const CONTAINERFILE = read('Containerfile');
/** How `bun run image` tags the image, and the compose files name it. */
const TAG = `kurz:${pkg.version}`;
/** The same, as podman names it locally (a short name would be resolved in the machine's alias cache). */
const IMAGE = `localhost/${TAG}`;
/** Every variable kurz serve reads, one per flag. */
const KURZ_VARIABLES = new Set(Object.values(SERVER_FLAG_ENVS));

// biome-ignore lint/suspicious/noExplicitAny: compose files are arbitrary YAML
type Yaml = any;
const compose = (name: string): Yaml => Bun.YAML.parse(read(`docs/deploy/${name}`));

/** The Containerfile's ENV settings (one NAME=value a line of the instruction). */
function imageEnv(): Record<string, string> {
  const instruction = /^ENV ((?:.*\\\n)*.*)$/m.exec(CONTAINERFILE)?.[1] ?? '';
  return Object.fromEntries(
    instruction.split(/\s*\\\n\s*|\s+/).map((pair) => pair.split('=') as [string, string]),
  );
}

/** A compose duration (`20s`, `1m30s`) in seconds. */
function seconds(duration: string): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!match || duration === '') throw new Error(`not a duration: ${duration}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}

/** The `podman run` of docs/container.md's HTTPS section, its continued lines joined. */
function docsHttpsRun(): string {
  const section = read('docs/container.md').split('## HTTPS without a proxy')[1] ?? '';
  const block = /```sh\n(podman run [\s\S]*?)\n```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => !line.startsWith('podman logs') && !line.startsWith('podman kill'))
    .join(' ')
    .replace(/\s*\\\s*/g, ' ');
}

describe('docs/container.md', () => {
  const section = read('docs/container.md');

  test('shows the compose files as they are in docs/deploy, and links them', () => {
    for (const name of ['compose.yaml', 'compose.postgres.yaml']) {
      expect(section).toContain(`\`\`\`yaml\n${read(`docs/deploy/${name}`)}\`\`\`\n`);
      expect(section).toContain(`](deploy/${name})`);
    }
  });

  test('runs the image by the tag bun run image gives it', () => {
    expect(section).toContain(`-v kurz-data:/data ${TAG}`);
  });
});

describe('the Containerfile and the compose files', () => {
  test("the image's variables are kurz's own; its health check waits longer than kurz healthcheck does", () => {
    const env = imageEnv();
    expect(env).toEqual({
      PATH: '/usr/local/bin',
      KURZ_HOST: '0.0.0.0',
      PORT: '3000',
      DATABASE_URL: '/data/kurz.db',
      KURZ_SHUTDOWN_TIMEOUT: '5',
      SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
    });
    for (const name of Object.keys(env).filter((name) => name.startsWith('KURZ_'))) {
      expect([name, KURZ_VARIABLES.has(name)]).toEqual([name, true]);
    }
    expect(KURZ_VARIABLES.has('PORT') && KURZ_VARIABLES.has('DATABASE_URL')).toBe(true);
    expect(CONTAINERFILE).toContain(`EXPOSE ${env.PORT}\n`);
    expect(CONTAINERFILE).toContain('VOLUME /data\n');
    const check = parseCommandLine(['healthcheck'], env);
    expect(check).toEqual({ kind: 'healthcheck', host: '0.0.0.0', port: 3000, timeoutMs: 3000 });
    const timeout = /^HEALTHCHECK .*--timeout=(\d+)s/m.exec(CONTAINERFILE)?.[1];
    expect(Number(timeout) * 1000).toBeGreaterThan(
      check.kind === 'healthcheck' ? check.timeoutMs : 0,
    );
  });

  test('compose.yaml: the image bun run image tags, its port, /data on a named volume, variables kurz reads, time to stop', () => {
    const file = compose('compose.yaml');
    expect(Object.keys(file.services)).toEqual(['kurz']);
    const kurz = file.services.kurz;
    expect(kurz.image).toBe(TAG);
    expect(kurz.pull_policy).toBe('never');
    expect(kurz.restart).toBe('unless-stopped');
    expect(kurz.ports).toEqual([`3000:${imageEnv().PORT}`]);
    expect(kurz.volumes).toEqual(['kurz-data:/data']);
    expect(Object.keys(file.volumes)).toEqual(['kurz-data']);
    for (const name of Object.keys(kurz.environment)) {
      expect([name, KURZ_VARIABLES.has(name)]).toEqual([name, true]);
    }
    // The image's health check, not one of its own.
    expect(kurz.healthcheck).toBeUndefined();
    // SIGKILL comes after stop_grace_period: it must outlast kurz's shutdown deadline and
    // the final commit after it.
    const shutdown = Number(imageEnv().KURZ_SHUTDOWN_TIMEOUT);
    expect(seconds(kurz.stop_grace_period)).toBeGreaterThan(shutdown + 5);
  });

  test('compose.postgres.yaml: postgres:17, healthy before kurz starts, which reaches it by DATABASE_URL', () => {
    const file = compose('compose.postgres.yaml');
    expect(Object.keys(file.services)).toEqual(['postgres', 'kurz']);
    const { postgres, kurz } = file.services;
    expect(postgres.image).toBe('postgres:17');
    expect(postgres.restart).toBe('unless-stopped');
    expect(postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(postgres.healthcheck.test).toEqual([
      'CMD',
      'pg_isready',
      '--username',
      postgres.environment.POSTGRES_USER,
      '--dbname',
      postgres.environment.POSTGRES_DB,
    ]);
    // The password comes from the environment or .env; compose refuses to start without.
    expect(postgres.environment.POSTGRES_PASSWORD).toStartWith('${POSTGRES_PASSWORD:?');
    expect(Object.keys(file.volumes)).toEqual(['postgres-data']);

    expect(kurz.image).toBe(TAG);
    expect(kurz.pull_policy).toBe('never');
    expect(kurz.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(kurz.ports).toEqual(['3000:3000']);
    for (const name of Object.keys(kurz.environment)) {
      expect([name, KURZ_VARIABLES.has(name)]).toEqual([name, true]);
    }
    // compose puts the password in; the URL is then one kurz takes.
    const url = (kurz.environment.DATABASE_URL as string).replace(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own ${VARIABLE} syntax
      '${POSTGRES_PASSWORD}',
      'pw',
    );
    const { POSTGRES_USER: user, POSTGRES_DB: db } = postgres.environment;
    expect(url).toBe(`postgres://${user}:pw@postgres:5432/${db}`);
    expect(parseDatabase(url)).toBe(url);
    expect(seconds(kurz.stop_grace_period)).toBeGreaterThan(
      Number(imageEnv().KURZ_SHUTDOWN_TIMEOUT) + 5,
    );
  });
});

// ---------------------------------------------------------------------------------------
// podman, in a folder of this test

const PODMAN_COMPOSE = Bun.which('podman-compose');
/** The user-mode network the HTTPS container test maps its ports through. */
const SLIRP4NETNS = Bun.which('slirp4netns');
if (SLIRP4NETNS === null) {
  console.log('container: slirp4netns is not installed (scripts/ensure-podman.sh installs it)');
}
const pod = podmanInFolder();
const podmanEnv = pod.env;
const podman = pod.run;
const podmanOk = pod.ok;

const cannotRun = await pod.cannotRun();
if (cannotRun !== null) console.log(`container: ${cannotRun}; the image is not built or run`);

afterAll(() => pod.remove(), 60_000);

describe.skipIf(cannotRun !== null)('the image, built and run by podman', () => {
  let built: { stderr: string; ms: number };
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  /** The first container's clicks on the link `box`, each answered 307. */
  let clicks = 0;

  /** Starts a container of the image on the volume, in open mode, and waits for /health. */
  async function runServer(name: string, ...options: string[]) {
    await podmanOk(
      'run',
      '--detach',
      ...options,
      '--name',
      name,
      '--env',
      `PORT=${port}`,
      '--env',
      'KURZ_MODE=open',
      '--volume',
      'kurzdata:/data',
      IMAGE,
    );
    await eventually(
      async () => (await fetch(`${url}/health`).catch(() => null))?.status === 200,
      `${name} answering in its container`,
      10_000,
    );
  }

  beforeAll(async () => {
    if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
    const started = performance.now();
    // The image of this machine's platform alone; test/ops/container-arm64.test.ts builds both.
    const image = await run(
      ['sh', 'scripts/image.sh', '--platform', 'linux/amd64', '--tag', IMAGE],
      {
        cwd: ROOT,
        env: { ...podmanEnv, KURZ_SOURCE_URL: 'https://git.example/kurz' },
      },
    );
    built = { stderr: image.stderr, ms: performance.now() - started };
    if (image.code !== 0) throw new Error(`scripts/image.sh failed:\n${image.stderr}`);
    console.log(`container: scripts/image.sh built ${IMAGE} in ${(built.ms / 1000).toFixed(1)} s`);
  }, 180_000);

  test('holds exactly what the Containerfile says, about the size of the executable', async () => {
    const [inspected] = JSON.parse(await podmanOk('image', 'inspect', IMAGE));
    const revision = (await run(['git', 'rev-parse', 'HEAD'], { cwd: ROOT })).stdout.trim();
    expect(inspected.Config).toEqual({
      User: '10001:10001',
      ExposedPorts: { '3000/tcp': {} },
      Env: Object.entries(imageEnv()).map(([name, value]) => `${name}=${value}`),
      Entrypoint: ['/usr/local/bin/kurz'],
      Cmd: ['serve'],
      Volumes: { '/data': {} },
      WorkingDir: '/data',
      StopSignal: 'SIGTERM',
      Labels: {
        'io.buildah.version': expect.any(String),
        'org.opencontainers.image.title': 'kurz',
        'org.opencontainers.image.description': 'A self-hosted link shortener in one executable',
        'org.opencontainers.image.licenses': 'MIT',
        'org.opencontainers.image.version': pkg.version,
        'org.opencontainers.image.revision': revision,
        'org.opencontainers.image.source': 'https://git.example/kurz',
      },
    });
    expect(inspected.HealthCheck ?? inspected.Healthcheck).toEqual({
      Test: ['CMD', '/usr/local/bin/kurz', 'healthcheck'],
      Interval: 30e9,
      Timeout: 5e9,
      StartPeriod: 10e9,
      Retries: 3,
    });

    // Every file, with its mode and owner: the loader and libraries are those ldd names.
    const linked = (await run(['ldd', BINARY])).stdout
      .split('\n')
      .flatMap((line) => line.split(/\s+/).filter((word) => word.startsWith('/')));
    expect(linked).toContain('/lib64/ld-linux-x86-64.so.2');
    const root = await podmanOk('image', 'mount', IMAGE);
    try {
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const name of readdirSync(join(root, dir)).sort()) {
          const path = `${dir}/${name}`;
          const stat = lstatSync(join(root, path));
          const mode = (stat.mode & 0o7777).toString(8);
          files.push(`${path} ${mode} ${stat.uid}:${stat.gid}`);
          if (stat.isDirectory()) walk(path);
        }
      };
      walk('');
      const parents = new Set(
        ['/usr/local/bin/kurz', '/etc/ssl/certs/x', ...linked].flatMap((path) =>
          path
            .split('/')
            .slice(1, -1)
            .map((_, i, parts) => `/${parts.slice(0, i + 1).join('/')}`),
        ),
      );
      expect(files.sort()).toEqual(
        [
          '/data 700 10001:10001',
          '/tmp 1777 0:0',
          '/etc 755 0:0',
          '/etc/group 644 0:0',
          '/etc/nsswitch.conf 644 0:0',
          '/etc/passwd 644 0:0',
          '/etc/ssl/certs/ca-certificates.crt 644 0:0',
          '/usr/local/bin/kurz 755 0:0',
          ...linked.map((path) => `${path} 755 0:0`),
          ...[...parents].map((dir) => `${dir} 755 0:0`),
        ]
          .filter((line, i, all) => all.indexOf(line) === i)
          .sort(),
      );
      // The files are those of this machine, taken whole (not their symbolic links).
      for (const path of [...linked, '/etc/ssl/certs/ca-certificates.crt']) {
        expect([path, readFileSync(join(root, path)).equals(readFileSync(path))]).toEqual([
          path,
          true,
        ]);
      }
      expect(statSync(join(root, 'usr/local/bin/kurz')).size).toBe(statSync(BINARY).size);
      expect(readFileSync(join(root, 'etc/passwd'), 'utf8')).toContain(
        'kurz:x:10001:10001:kurz:/nonexistent:/sbin/nologin\n',
      );
      expect(readFileSync(join(root, 'etc/group'), 'utf8')).toContain('kurz:x:10001:\n');
      // Each file has the time of the last commit, not of the build.
      const committed = (await run(['git', 'log', '-1', '--format=%ct'], { cwd: ROOT })).stdout;
      expect(statSync(join(root, 'usr/local/bin/kurz')).mtimeMs).toBe(Number(committed) * 1000);
    } finally {
      await podmanOk('image', 'unmount', IMAGE);
    }

    const binary = statSync(BINARY).size;
    expect(inspected.Size).toBeGreaterThan(binary);
    expect(inspected.Size - binary).toBeLessThan(5 * 1024 * 1024);
    expect(built.stderr).toContain(`${inspected.Size} bytes; the executable is ${binary}`);
    console.log(
      `container: image ${inspected.Size} bytes, executable ${binary} (+${inspected.Size - binary})`,
    );
  }, 30_000);

  test('built again, its layer is the same, byte for byte', async () => {
    const again = await run(
      ['sh', 'scripts/image.sh', '--platform', 'linux/amd64', '--tag', 'localhost/kurz-again:test'],
      {
        cwd: ROOT,
        env: { ...podmanEnv, KURZ_SOURCE_URL: 'https://git.example/kurz' },
      },
    );
    expect(again.code).toBe(0);
    const layers = async (image: string) =>
      JSON.parse(await podmanOk('image', 'inspect', '--format', '{{json .RootFS.Layers}}', image));
    expect(await layers('localhost/kurz-again:test')).toEqual(await layers(IMAGE));
    await podmanOk('rmi', 'localhost/kurz-again:test');
  }, 60_000);

  test('serves from a named volume: /health, a link made in open mode, its 307; podman healthcheck run says healthy', async () => {
    await runServer('kurz-first');
    expect(await podmanOk('logs', 'kurz-first')).toContain(
      `kurz listening on http://0.0.0.0:${port} (mode: open, db: /data/kurz.db)`,
    );
    const made = await call(url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/in-a-box', custom_code: 'box' },
    });
    expect(made.status).toBe(201);
    const followed = await call(url, 'GET', '/box');
    expect(followed.status).toBe(307);
    expect(followed.headers.get('location')).toBe('https://example.com/in-a-box');
    clicks += 1;

    const checked = await podman('healthcheck', 'run', 'kurz-first');
    expect(checked.code).toBe(0);
    expect(await podmanOk('inspect', '--format', '{{.State.Health.Status}}', 'kurz-first')).toBe(
      'healthy',
    );
  }, 30_000);

  test('kurz runs as 10001 without capabilities, and its files in the volume are its own, owner-only', async () => {
    const pid = await podmanOk('inspect', '--format', '{{.State.Pid}}', 'kurz-first');
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(status).toContain('\nUid:\t10001\t10001\t10001\t10001\n');
    expect(status).toContain('\nGid:\t10001\t10001\t10001\t10001\n');
    expect(status).toContain('\nCapEff:\t0000000000000000\n');
    const volume = await podmanOk('volume', 'inspect', '--format', '{{.Mountpoint}}', 'kurzdata');
    const folder = statSync(volume);
    expect([folder.uid, folder.gid, folder.mode & 0o777]).toEqual([10001, 10001, 0o700]);
    const names = readdirSync(volume);
    expect(names).toContain('kurz.db');
    for (const name of names) {
      const file = statSync(join(volume, name));
      expect([name, file.uid, file.gid, file.mode & 0o777]).toEqual([name, 10001, 10001, 0o600]);
    }
  });

  test('podman stop: kurz exits 0 in time, every acknowledged click committed; a new container on the volume, read-only, keeps the link and its count', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => call(url, 'GET', '/box').then((reply) => reply.status)),
    );
    expect(answers).toEqual(Array(40).fill(307));
    clicks += 40;
    const started = performance.now();
    await podmanOk('stop', 'kurz-first');
    const took = performance.now() - started;
    expect(await podmanOk('inspect', '--format', '{{.State.ExitCode}}', 'kurz-first')).toBe('0');
    // podman's stop timeout is 10 s, after which it would have sent SIGKILL.
    expect(took).toBeLessThan(9000);
    expect(await podmanOk('logs', 'kurz-first')).toContain('kurz: SIGTERM received, shutting down');
    await podmanOk('rm', 'kurz-first');

    // As an upgrade would: another container of the image, on the same volume; read-only,
    // so that kurz shows it writes nowhere but /data (and the /tmp podman gives it).
    await runServer('kurz-second', '--read-only');
    const links = await call(url, 'GET', '/api/links');
    expect(links.json).toEqual([
      expect.objectContaining({
        short_code: 'box',
        original_url: 'https://example.com/in-a-box',
        clicks,
      }),
    ]);
    expect((await call(url, 'GET', '/box')).status).toBe(307);
    await podmanOk('stop', 'kurz-second');
    expect(await podmanOk('inspect', '--format', '{{.State.ExitCode}}', 'kurz-second')).toBe('0');
    await podmanOk('rm', 'kurz-second');
  }, 60_000);

  test("podman healthcheck run says unhealthy, with kurz healthcheck's reason, when the database refuses writes", async () => {
    // Its disk below the free-space floor: every write answers 503, /health too. The token
    // key is given, since storing it would be a write.
    await podmanOk(
      'run',
      '--detach',
      '--name',
      'kurz-full',
      '--env',
      `PORT=${port}`,
      '--env',
      'KURZ_MIN_FREE_DISK=999999GB',
      '--env',
      `KURZ_JWT_SECRET=${'k'.repeat(32)}`,
      '--volume',
      'kurzdata:/data',
      IMAGE,
    );
    await eventually(
      async () => (await fetch(`${url}/health`).catch(() => null))?.status === 503,
      'kurz answering 503 in its container',
      10_000,
    );
    const checked = await podman('healthcheck', 'run', 'kurz-full');
    expect(checked.code).toBe(1);
    expect(checked.stdout.trim()).toBe('unhealthy');
    const health = JSON.parse(
      await podmanOk('inspect', '--format', '{{json .State.Health}}', 'kurz-full'),
    );
    expect(health.Log.at(-1)).toMatchObject({
      ExitCode: 1,
      Output: `kurz healthcheck: http://127.0.0.1:${port}/health answered 503 "Database unavailable"`,
    });
    await podmanOk('rm', '--force', '--time', '0', 'kurz-full');
  }, 30_000);

  test.skipIf(SLIRP4NETNS === null)(
    "serves HTTPS as docs/container.md runs it: the host's ports mapped to 8443 and 8080, certificate files read-only, SIGHUP reading them again",
    async () => {
      // The container gets a network of its own from slirp4netns (a user-mode stack: no
      // bridge, no firewall rule, no forwarding on the machine), so that the -p maps and
      // --sysctl of docs/container.md are the ones exercised; free ports of this machine
      // stand in for 443 and 80.
      const ca = makeCa();
      const first = makeLeaf(ca);
      const tls = tempDir();
      chmodSync(tls, 0o755);
      const mount = (pair: TestPair) => {
        copyFileSync(pair.certFile, join(tls, 'cert.pem'));
        copyFileSync(pair.keyFile, join(tls, 'key.pem'));
        chmodSync(join(tls, 'key.pem'), 0o644);
      };
      mount(first);
      const [httpsPort, httpPort] = [freePort(), freePort()];
      const https = `https://localhost:${httpsPort}`;
      const command = docsHttpsRun();
      expect(command).toContain('-p 443:8443 -p 80:8080');
      expect(command).toContain('-e KURZ_HTTPS_PORT=8443 -e KURZ_HTTP_PORT=8080');
      await podmanOk(
        'run',
        '--detach',
        '--name',
        'kurz-https',
        '--network',
        'slirp4netns:port_handler=slirp4netns',
        ...['--publish', `127.0.0.1:${httpsPort}:8443`, '--publish', `127.0.0.1:${httpPort}:8080`],
        ...['--sysctl', 'net.ipv4.tcp_migrate_req=1', '--no-healthcheck'],
        '--volume',
        `${tls}:/tls:ro`,
        ...['--env', 'PORT=', '--env', 'KURZ_MODE=open', '--env', `KURZ_BASE_URL=${https}`],
        ...['--env', 'KURZ_TLS_CERT=/tls/cert.pem', '--env', 'KURZ_TLS_KEY=/tls/key.pem'],
        ...['--env', 'KURZ_HTTPS_PORT=8443', '--env', 'KURZ_HTTP_PORT=8080'],
        '--volume',
        'kurzhttps:/data',
        IMAGE,
      );
      await eventually(
        async () =>
          (await fetch(`${https}/health`, { tls: { ca: ca.pem } }).catch(() => null))?.status ===
          200,
        'kurz answering over HTTPS through the port map',
        20_000,
      );
      expect(await podmanOk('logs', 'kurz-https')).toContain(
        'kurz listening on https://0.0.0.0:8443 (mode: open, db: /data/kurz.db)',
      );
      // The sysctl holds in the container's own network namespace.
      const pid = await podmanOk('inspect', '--format', '{{.State.Pid}}', 'kurz-https');
      const migrate = await run([
        'nsenter',
        `--net=/proc/${pid}/ns/net`,
        'cat',
        '/proc/sys/net/ipv4/tcp_migrate_req',
      ]);
      expect(migrate.stdout.trim()).toBe('1');
      const made = await call(https, 'POST', '/api/shorten', {
        json: { url: 'https://example.com/tls-box', custom_code: 'tlsbox' },
        ca: ca.pem,
      });
      expect(made.status).toBe(201);
      expect(made.json.short_code).toBe('tlsbox');
      const followed = await call(https, 'GET', '/tlsbox', { ca: ca.pem });
      expect(followed.status).toBe(307);
      expect(followed.headers.get('strict-transport-security')).toBe('max-age=31536000');
      // Plain HTTP on the host's other port sends the visitor to the public HTTPS address.
      const moved = await call(`http://localhost:${httpPort}`, 'GET', '/tlsbox');
      expect(moved.status).toBe(301);
      expect(moved.headers.get('location')).toBe(`${https}/tlsbox`);
      expect(await peerFingerprint(httpsPort, ca.pem)).toBe(first.fingerprint);

      // The files replaced, then `podman kill --signal HUP`: the new pair is served.
      const second = makeLeaf(ca);
      mount(second);
      await podmanOk('kill', '--signal', 'HUP', 'kurz-https');
      await eventually(
        async () => (await peerFingerprint(httpsPort, ca.pem)) === second.fingerprint,
        'the new certificate served after SIGHUP',
        10_000,
      );
      expect((await call(https, 'GET', '/tlsbox', { ca: ca.pem })).status).toBe(307);
      await podmanOk('rm', '--force', '--time', '0', 'kurz-https');
    },
    60_000,
  );

  test.skipIf(PODMAN_COMPOSE === null)(
    'podman-compose reads both compose files into the podman commands they mean',
    async () => {
      // Only --dry-run: Debian 12's podman-compose (1.0.3) puts every service on a bridge
      // network of its own, even beside network_mode: host (which podman then refuses), and
      // a bridge network changes the machine's firewall rules and IP forwarding.
      const dryRun = async (file: string) => {
        const result = await run(
          [
            PODMAN_COMPOSE as string,
            '--dry-run',
            '--project-name',
            'kurztest',
            '--file',
            file,
            'up',
            '--detach',
          ],
          { cwd: DEPLOY, env: { ...podmanEnv, POSTGRES_PASSWORD: 'secret42' } },
        );
        expect(result.code).toBe(0);
        return result.stdout
          .split('\n')
          .filter((line) => line.startsWith('podman run '))
          .map((line) => line.split(' '));
      };
      const [kurz] = await dryRun('compose.yaml');
      expect(kurz?.at(-1)).toBe(TAG);
      expect(kurz?.join(' ')).toContain(
        '-e KURZ_BASE_URL=https://s.example -e KURZ_MODE=accounts -v kurztest_kurz-data:/data',
      );
      expect(kurz?.join(' ')).toContain('-p 3000:3000 --pull never --restart unless-stopped');

      const [postgres, withPostgres] = await dryRun('compose.postgres.yaml');
      expect(postgres?.join(' ')).toContain('-e POSTGRES_PASSWORD=secret42');
      expect(postgres?.join(' ')).toContain('pg_isready');
      expect(postgres?.at(-1)).toBe('postgres:17');
      expect(withPostgres?.join(' ')).toContain(
        '-e DATABASE_URL=postgres://kurz:secret42@postgres:5432/kurz',
      );
      expect(withPostgres?.at(-1)).toBe(TAG);
    },
    30_000,
  );
});
