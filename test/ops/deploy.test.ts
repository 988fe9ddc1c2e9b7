// The examples of docs/production.md, read from docs/deploy/ and run with only their
// ports and paths changed, so that the documented files are the tested ones (and the
// page shows kurz.service and the Caddyfile as they are): the systemd units,
// checked by systemd-analyze where it is installed, their commands run (kurz starts as
// kurz.service says, with kurz.env; kurz-backup.service's commands make and prune
// copies), kurz traced by strace to check the unit's system call filter, the system
// user, and nginx and Caddy in front of kurz, through which kurz sees each client's own
// address (--trusted-proxies). A tool that is missing is said, and its check skipped.

import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BINARY,
  call,
  eventually,
  type Running,
  run,
  startKurz,
  tempDir,
} from '../support/binary.ts';
import { makeCa, makeLeaf } from '../support/certificates.ts';
import {
  CADDY,
  freePort,
  type RunningProxy,
  selfSignedCertificate,
  startCaddy,
  startNginx,
  statusFrom,
} from '../support/proxies.ts';

const DEPLOY = resolve(import.meta.dir, '..', '..', 'docs', 'deploy');
const read = (name: string) => readFileSync(join(DEPLOY, name), 'utf8');
const SYSTEMD_ANALYZE = Bun.which('systemd-analyze');
const SYSTEMD_SYSUSERS = Bun.which('systemd-sysusers');
/** strace, when it is installed and may trace here (a container may forbid ptrace). */
const STRACE = (() => {
  const strace = Bun.which('strace');
  if (strace === null) return null;
  const probe = Bun.spawnSync([strace, '-f', '-qq', '-o', '/dev/null', 'true']);
  if (probe.exitCode === 0) return strace;
  console.log(`deploy: strace cannot trace here (${probe.stderr.toString().trim()})`);
  return null;
})();
const PASSWORD = 'correct horse battery staple';

/**
 * Whether this test may run kurz as nobody with setpriv and bind port 443 (as root, with
 * 443 free and below the first unprivileged port).
 */
const SETPRIV = Bun.which('setpriv');
const CAN_DROP_TO_NOBODY = (() => {
  if (SETPRIV === null || process.getuid?.() !== 0) return false;
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
    if (start <= 443) return false;
    Bun.listen({ hostname: '127.0.0.1', port: 443, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
})();

for (const [tool, found] of [
  ['systemd-analyze', SYSTEMD_ANALYZE],
  ['systemd-sysusers', SYSTEMD_SYSUSERS],
  ['strace', STRACE],
  ['caddy', CADDY],
] as const) {
  if (found === null) console.log(`deploy: ${tool} is not available here: its checks are skipped`);
}

/** A unit file's settings: section → key → every value given, in order. */
function unitFile(name: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let section: Map<string, string[]> | undefined;
  for (const line of read(name).split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = new Map();
      sections.set(header[1] as string, section);
      continue;
    }
    const eq = line.indexOf('=');
    if (section === undefined || eq === -1) throw new Error(`${name}: cannot read "${line}"`);
    const key = line.slice(0, eq);
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1)]);
  }
  return sections;
}

/** The one value of a setting. */
function setting(unit: Map<string, Map<string, string[]>>, section: string, key: string) {
  const values = unit.get(section)?.get(key);
  if (values?.length !== 1) throw new Error(`[${section}] ${key}: ${values?.length ?? 0} values`);
  return values[0] as string;
}

/** A command line of a unit, as systemd passes it on: `$$` is `$` and `%%` is `%`. */
function commandLine(value: string): string {
  return value.replaceAll('$$', '$').replaceAll('%%', '%');
}

/**
 * `text` with each `from` replaced; a `from` that is not there fails the test (unless
 * `optional`), so an edit of an example cannot slip past its test unchanged.
 */
function substitute(text: string, replacements: [string, string][], optional = false): string {
  let result = text;
  for (const [from, to] of replacements) {
    if (!optional && !result.includes(from)) throw new Error(`the example lacks "${from}"`);
    result = result.replaceAll(from, to);
  }
  return result;
}

/** kurz.env as systemd reads an EnvironmentFile: VARIABLE=value lines, # comments. */
function environmentFile(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of read('kurz.env').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) env[match[1] as string] = match[2] as string;
  }
  return env;
}

describe('docs/production.md', () => {
  const section = readFileSync(
    resolve(import.meta.dir, '..', '..', 'docs', 'production.md'),
    'utf8',
  );

  test('shows kurz.service and the Caddyfile as they are in docs/deploy', () => {
    expect(section).toContain(`\`\`\`ini\n${read('kurz.service')}\`\`\`\n`);
    expect(section).toContain(`\`\`\`\n${read('Caddyfile')}\`\`\`\n`);
  });

  test('links every file of docs/deploy it speaks of', () => {
    // The compose files belong to docs/container.md (test/ops/container.test.ts), the nginx
    // example of two instances to docs/postgres.md (test/ops/reverse-proxy.test.ts).
    const elsewhere = ['nginx-kurz.conf', 'compose.yaml', 'compose.postgres.yaml'];
    for (const name of readdirSync(DEPLOY).filter((name) => !elsewhere.includes(name))) {
      expect(section).toContain(`](deploy/${name})`);
    }
  });
});

describe('kurz.service and kurz-backup.service', () => {
  const service = unitFile('kurz.service');
  const backup = unitFile('kurz-backup.service');

  test('kurz serves as the user kurz from its state folder, with kurz.env, restarted on failure, given time to stop', () => {
    expect(setting(service, 'Service', 'User')).toBe('kurz');
    expect(setting(service, 'Service', 'StateDirectory')).toBe('kurz');
    expect(setting(service, 'Service', 'StateDirectoryMode')).toBe('0700');
    expect(setting(service, 'Service', 'EnvironmentFile')).toBe('-/etc/kurz/kurz.env');
    expect(setting(service, 'Service', 'Restart')).toBe('on-failure');
    expect(setting(service, 'Install', 'WantedBy')).toBe('multi-user.target');
    const start = setting(service, 'Service', 'ExecStart');
    expect(start).toStartWith('/usr/local/bin/kurz serve --db /var/lib/kurz/kurz.db ');
    // systemd sends SIGKILL after TimeoutStopSec: it must outlast kurz's own shutdown
    // deadline and the final commit after it.
    const shutdown = Number(/--shutdown-timeout (\d+)/.exec(start)?.[1]);
    expect(Number(setting(service, 'Service', 'TimeoutStopSec'))).toBeGreaterThan(shutdown + 5);
    expect(setting(backup, 'Service', 'User')).toBe('kurz');
    expect(setting(backup, 'Service', 'StateDirectory')).toBe('kurz kurz-backups');
    expect(setting(backup, 'Service', 'Type')).toBe('oneshot');
  });

  test('both are hardened, and neither forbids writable executable memory (Bun needs it for its JIT)', () => {
    const hardening: Record<string, string> = {
      UMask: '0077',
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      RestrictNamespaces: 'yes',
      LockPersonality: 'yes',
      SystemCallFilter: '@system-service',
    };
    for (const unit of [service, backup]) {
      for (const [key, value] of Object.entries(hardening)) {
        expect([key, setting(unit, 'Service', key)]).toEqual([key, value]);
      }
      expect(unit.get('Service')?.has('MemoryDenyWriteExecute')).toBe(false);
    }
    expect(setting(service, 'Service', 'RestrictAddressFamilies')).toBe('AF_INET AF_INET6 AF_UNIX');
    // kurz may bind 80 and 443 as the user kurz (serving HTTPS itself), and nothing more;
    // the backup needs no capability at all.
    expect(setting(service, 'Service', 'AmbientCapabilities')).toBe('CAP_NET_BIND_SERVICE');
    expect(setting(service, 'Service', 'CapabilityBoundingSet')).toBe('CAP_NET_BIND_SERVICE');
    expect(setting(backup, 'Service', 'CapabilityBoundingSet')).toBe('');
    expect(backup.get('Service')?.has('AmbientCapabilities')).toBe(false);
  });

  test.skipIf(!CAN_DROP_TO_NOBODY)(
    "kurz.service's capability lets kurz as an ordinary user serve HTTPS on port 443, and only with it",
    async () => {
      // The unit's capabilities, given by setpriv to a process running as nobody.
      const capability = setting(service, 'Service', 'AmbientCapabilities')
        .replace(/^CAP_/, '')
        .toLowerCase();
      const dir = tempDir();
      chmodSync(dir, 0o755);
      const ca = makeCa();
      const pair = makeLeaf(ca);
      const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
      copyFileSync(pair.certFile, cert);
      copyFileSync(pair.keyFile, key);
      chmodSync(key, 0o644);
      const data = join(dir, 'data');
      mkdirSync(data);
      chmodSync(data, 0o777);
      const asNobody = [SETPRIV as string, '--reuid=65534', '--regid=65534', '--clear-groups'];
      const flags = [
        '--tls-cert',
        cert,
        '--tls-key',
        key,
        '--https-port',
        '443',
        '--http-port',
        'off',
        // A folder nobody may write its database in.
        '--db',
        join(data, 'kurz.db'),
      ];
      const without = await run(
        [...asNobody, '--', BINARY, 'serve', '--host', '127.0.0.1', ...flags],
        { cwd: dir },
      );
      expect(without.code).toBe(1);
      expect(without.stderr).toContain('HTTPS port 443 on 127.0.0.1 cannot be bound (EACCES)');
      const withCapability = [
        ...asNobody,
        `--inh-caps=+${capability}`,
        `--ambient-caps=+${capability}`,
        `--bounding-set=-all,+${capability}`,
        '--',
      ];
      const kurz = await startKurz(flags, { runner: withCapability, cwd: dir });
      try {
        expect(kurz.port).toBe(443);
        const answer = await fetch('https://localhost/health', { tls: { ca: ca.pem } });
        expect(answer.status).toBe(200);
      } finally {
        expect(await kurz.stop()).toBe(0);
      }
    },
  );

  test.skipIf(SYSTEMD_ANALYZE === null)(
    'systemd-analyze verify accepts the units and the timer, without a warning',
    async () => {
      const dir = tempDir();
      // The binary is where this test has it (verify checks that ExecStart can run).
      for (const name of ['kurz.service', 'kurz-backup.service', 'kurz-backup.timer']) {
        writeFileSync(join(dir, name), read(name).replaceAll('/usr/local/bin/kurz', BINARY));
      }
      const verified = await run(
        [
          SYSTEMD_ANALYZE as string,
          'verify',
          '--man=no',
          './kurz.service',
          './kurz-backup.service',
          './kurz-backup.timer',
        ],
        { cwd: dir },
      );
      expect(verified.stderr + verified.stdout).toBe('');
      expect(verified.code).toBe(0);
    },
  );

  test.skipIf(SYSTEMD_ANALYZE === null)(
    "systemd-analyze security rates each unit's exposure OK (below 2 of 10)",
    async () => {
      for (const name of ['kurz.service', 'kurz-backup.service']) {
        const rated = await run(
          [
            SYSTEMD_ANALYZE as string,
            'security',
            '--offline=yes',
            '--no-pager',
            join(DEPLOY, name),
          ],
          { env: { PATH: process.env.PATH ?? '', SYSTEMD_COLORS: '0' } },
        );
        const exposure = /Overall exposure level for [\w.-]+: ([\d.]+) (\w+)/.exec(rated.stdout);
        expect([name, exposure?.[2]]).toEqual([name, 'OK']);
        expect(Number(exposure?.[1])).toBeLessThan(2);
      }
    },
  );

  test.skipIf(SYSTEMD_SYSUSERS === null)(
    'kurz.sysusers makes a system user kurz without a login, at home in /var/lib/kurz',
    async () => {
      const root = tempDir();
      mkdirSync(join(root, 'etc'));
      const made = await run([
        SYSTEMD_SYSUSERS as string,
        `--root=${root}`,
        join(DEPLOY, 'kurz.sysusers'),
      ]);
      expect(made.code).toBe(0);
      const entry = readFileSync(join(root, 'etc', 'passwd'), 'utf8')
        .split('\n')
        .find((line) => line.startsWith('kurz:'));
      const [, , uid, , , home, shell] = (entry ?? '').split(':');
      expect(Number(uid)).toBeLessThan(1000);
      expect(home).toBe('/var/lib/kurz');
      expect(shell).toBe('/usr/sbin/nologin');
    },
  );

  test.skipIf(SYSTEMD_ANALYZE === null || STRACE === null)(
    "every system call kurz makes while it serves is in kurz.service's SystemCallFilter",
    async () => {
      const allowed = new Set<string>();
      for (const group of setting(service, 'Service', 'SystemCallFilter').split(' ')) {
        for (const call of await syscallsOf(group)) allowed.add(call);
      }
      const used = await tracedSyscalls();
      // What the trace shows kurz did: its threads, its database, its sockets.
      for (const call of ['clone3', 'pwrite64', 'fsync', 'accept4', 'epoll_pwait2']) {
        expect([...used]).toContain(call);
      }
      expect([...used].filter((call) => !allowed.has(call)).sort()).toEqual([]);
    },
    60_000,
  );

  describe('their commands, run with the paths changed', () => {
    const machine = tempDir('kurz-machine-');
    const state = join(machine, 'state');
    const copies = join(machine, 'backups');
    /** Where the units' paths are in this test, most specific first. */
    const PATHS: [string, string][] = [
      ['/usr/local/bin/kurz', BINARY],
      ['/var/lib/kurz-backups', copies],
      ['/var/lib/kurz', state],
    ];
    const localize = (text: string, more: [string, string][] = []) =>
      substitute(substitute(text, more), PATHS, true);
    let kurz: Running;

    beforeAll(async () => {
      // What systemd makes before it starts either unit.
      mkdirSync(state, { mode: 0o700 });
      mkdirSync(copies, { mode: 0o700 });
      const words = localize(commandLine(setting(service, 'Service', 'ExecStart')), [
        ['--port 3000', '--port 0'],
      ]).split(' ');
      expect(words.slice(0, 2)).toEqual([BINARY, 'serve']);
      const cwd = localize(setting(service, 'Service', 'WorkingDirectory'));
      kurz = await startKurz(words.slice(2), { cwd, env: environmentFile() });
    });

    afterAll(async () => {
      await kurz?.stop();
    });

    test('kurz starts from ExecStart with kurz.env, serves, and keeps its database owner-only in the state folder', async () => {
      expect(kurz.output()).toContain(`(mode: accounts, db: ${join(state, 'kurz.db')})`);
      const health = await call(kurz.url, 'GET', '/health');
      expect(health.status).toBe(200);
      // KURZ_BASE_URL from kurz.env is https: every answer carries HSTS.
      expect(health.headers.get('strict-transport-security')).toBe('max-age=31536000');
      const registered = await call(kurz.url, 'POST', '/api/auth/register', {
        json: { email: 'ops@example.com', password: PASSWORD },
      });
      const made = await call(kurz.url, 'POST', '/api/shorten', {
        token: registered.json.token,
        json: { url: 'https://example.com/served', custom_code: 'served' },
      });
      expect(made.status).toBe(201);
      expect(statSync(join(state, 'kurz.db')).mode & 0o777).toBe(0o600);
    });

    test("kurz-backup.service's ExecStart writes a dated, owner-only copy while kurz serves; ExecStartPost removes copies older than 14 days", async () => {
      const start = localize(commandLine(setting(backup, 'Service', 'ExecStart')));
      const script = /^\/bin\/sh -c '(.*)'$/.exec(start)?.[1];
      expect(script).toBeDefined();
      const old = join(copies, 'kurz-20000101-000000.db');
      const other = join(copies, 'notes.txt');
      for (const path of [old, other]) {
        writeFileSync(path, 'old');
        const longAgo = new Date(Date.now() - 20 * 24 * 3_600_000);
        utimesSync(path, longAgo, longAgo);
      }

      const backedUp = await run(['/bin/sh', '-c', script as string], {
        env: { PATH: process.env.PATH ?? '' },
      });
      expect(backedUp.stderr).toBe('');
      expect(backedUp.code).toBe(0);
      const made = readdirSync(copies).filter((name) => /^kurz-\d{8}-\d{6}\.db$/.test(name));
      expect(made).toHaveLength(2);
      const copy = join(copies, made.find((name) => !old.endsWith(name)) as string);
      expect(backedUp.stdout).toContain(`kurz backup: wrote ${copy} `);
      expect(statSync(copy).mode & 0o777).toBe(0o600);

      const prune = localize(commandLine(setting(backup, 'Service', 'ExecStartPost')));
      const pruned = await run(prune.split(' '));
      expect(pruned.code).toBe(0);
      expect(existsSync(old)).toBe(false);
      expect(existsSync(copy)).toBe(true);
      expect(existsSync(other)).toBe(true);
    });

    test('kurz exits 0 on SIGTERM, as systemctl stop sends it', async () => {
      expect(await kurz.stop('SIGTERM')).toBe(0);
      expect(kurz.output()).toContain('SIGTERM received, shutting down');
    });
  });
});

/** The system calls of a systemd group such as `@system-service`, its nested groups included. */
async function syscallsOf(group: string): Promise<string[]> {
  const listed = await run([SYSTEMD_ANALYZE as string, 'syscall-filter', '--no-pager', group]);
  expect(listed.code).toBe(0);
  const calls: string[] = [];
  for (const line of listed.stdout.split('\n').slice(1)) {
    const name = line.trim();
    if (name === '' || name.startsWith('#')) continue;
    if (name.startsWith('@')) calls.push(...(await syscallsOf(name)));
    else calls.push(name);
  }
  return calls;
}

/**
 * The system calls dist/kurz makes, all its threads traced by strace, while it starts,
 * takes accounts, links, redirects, lists, stats, CSV, QR codes and a SIGHUP, rolls its
 * clicks up, and stops on SIGTERM.
 */
async function tracedSyscalls(): Promise<Set<string>> {
  const dir = tempDir();
  const trace = join(dir, 'trace');
  const wrapper = join(dir, 'kurz');
  writeFileSync(wrapper, `#!/bin/sh\nexec ${STRACE} -f -qq -o ${trace} ${BINARY} "$@"\n`, {
    mode: 0o700,
  });
  const kurz = await startKurz(['--db', join(dir, 'kurz.db'), '--rate-limits', 'off'], {
    binary: wrapper,
  });
  // The traced kurz is strace's child: signals go to it, not to strace. If the test fails
  // halfway, it is killed here: killing strace alone would leave it running, untraced.
  const children = readFileSync(`/proc/${kurz.proc.pid}/task/${kurz.proc.pid}/children`, 'utf8');
  const pid = Number(children.trim().split(' ')[0]);
  try {
    await exerciseTraced(kurz, pid, join(dir, 'kurz.db'));
  } finally {
    if (kurz.proc.exitCode === null) process.kill(pid, 'SIGKILL');
  }
  const used = new Set<string>();
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    const name = /^\d+ +([a-z0-9_]+)\(/.exec(line)?.[1];
    if (name !== undefined) used.add(name);
  }
  return used;
}

/** What the traced kurz is made to do; `pid` is kurz's own (strace's child). */
async function exerciseTraced(kurz: Running, pid: number, db: string) {
  const registered = await call(kurz.url, 'POST', '/api/auth/register', {
    json: { email: 'traced@example.com', password: PASSWORD },
  });
  const token = registered.json.token as string;
  expect(
    (
      await call(kurz.url, 'POST', '/api/auth/login', {
        json: { email: 'traced@example.com', password: PASSWORD },
      })
    ).status,
  ).toBe(200);
  const made = await call(kurz.url, 'POST', '/api/shorten', {
    token,
    json: { url: 'https://example.com/traced', custom_code: 'traced' },
  });
  expect(made.status).toBe(201);
  for (let i = 0; i < 20; i++) {
    const followed = await fetch(`${kurz.url}/traced`, {
      redirect: 'manual',
      headers: {
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
      },
    });
    expect(followed.status).toBe(307);
  }
  for (const path of [
    '/api/links',
    '/api/links/traced',
    '/api/links/traced/qr.png',
    '/',
    '/health',
  ]) {
    expect([path, (await call(kurz.url, 'GET', path, { token })).status]).toEqual([path, 200]);
  }
  // Stats and CSV after the analytics rollup has moved the clicks into records and day
  // counts (parsing their user agents).
  const moved = () => {
    const reader = new Database(db, { readonly: true });
    const row = reader.query<{ t: number }, []>('SELECT max(through) AS t FROM click_rollup').get();
    reader.close();
    return row?.t ?? 0;
  };
  await eventually(() => moved() >= 20, 'the clicks moved by the analytics rollup');
  const stats = await call(kurz.url, 'GET', '/api/links/traced/stats', { token });
  expect(stats.json.top.browsers).toEqual([{ value: 'Firefox', clicks: 20 }]);
  expect((await call(kurz.url, 'GET', '/api/links/traced/clicks.csv', { token })).status).toBe(200);
  process.kill(pid, 'SIGHUP');
  await eventually(() => kurz.output().includes('SIGHUP received'), 'SIGHUP handled');
  process.kill(pid, 'SIGTERM');
  expect(await kurz.proc.exited).toBe(0);
}

/** Registers, shortens and follows a link through a proxy at `url`. */
async function roundTrip(url: string, code: string) {
  const tls = { rejectUnauthorized: false };
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token ?? ''}` },
      body: JSON.stringify(body),
      tls,
    });
  const registered = await post('/api/auth/register', {
    email: `${code}@example.com`,
    password: PASSWORD,
  });
  expect(registered.status).toBe(200);
  const { token } = (await registered.json()) as { token: string };
  const made = await post(
    '/api/shorten',
    { url: `https://example.com/${code}`, custom_code: code },
    token,
  );
  expect(made.status).toBe(201);
  const followed = await fetch(`${url}/${code}`, { redirect: 'manual', tls });
  expect(followed.status).toBe(307);
  expect(followed.headers.get('location')).toBe(`https://example.com/${code}`);
}

/**
 * Through the proxy, kurz counts each client on its own address: a client at 127.0.0.2
 * spends its allowance of unknown codes (2 a minute here), and this test's own client,
 * at 127.0.0.1, still has its own. Without --trusted-proxies both would be the proxy.
 */
async function expectOwnAddresses(url: string) {
  expect(await statusFrom('127.0.0.2', url, '/nosuch1')).toBe(404);
  expect(await statusFrom('127.0.0.2', url, '/nosuch2')).toBe(404);
  expect(await statusFrom('127.0.0.2', url, '/nosuch3')).toBe(429);
  expect(await statusFrom('127.0.0.1', url, '/nosuch4')).toBe(404);
}

/** kurz as kurz.env configures it, with a small allowance of unknown codes to observe. */
function startConfiguredKurz(): Promise<Running> {
  return startKurz(['--db', join(tempDir(), 'kurz.db'), '--rate-unknown-code', '2/min'], {
    env: environmentFile(),
  });
}

describe('nginx.conf in front of kurz', () => {
  let kurz: Running;
  let nginx: RunningProxy;
  let http: string;
  let https: string;
  const webroot = tempDir('kurz-webroot-');

  beforeAll(async () => {
    kurz = await startConfiguredKurz();
    const certificate = await selfSignedCertificate('s.example');
    const [httpPort, httpsPort] = [freePort(), freePort()];
    http = `http://127.0.0.1:${httpPort}`;
    https = `https://127.0.0.1:${httpsPort}`;
    const site = substitute(read('nginx.conf'), [
      ['listen 80;', `listen 127.0.0.1:${httpPort};`],
      ['listen 443 ssl;', `listen 127.0.0.1:${httpsPort} ssl;`],
      ['127.0.0.1:3000', `127.0.0.1:${kurz.port}`],
      ['/var/www/html', webroot],
      ['/etc/letsencrypt/live/s.example', certificate],
    ]);
    nginx = await startNginx(site, `${https}/health`);
  }, 30_000);

  afterAll(async () => {
    await nginx?.stop();
    await kurz?.stop();
  });

  test('plain http answers certificate challenges and sends everything else to https', async () => {
    mkdirSync(join(webroot, '.well-known', 'acme-challenge'), { recursive: true });
    writeFileSync(join(webroot, '.well-known', 'acme-challenge', 'token1'), 'proof');
    const challenge = await fetch(`${http}/.well-known/acme-challenge/token1`);
    expect(await challenge.text()).toBe('proof');
    const moved = await fetch(`${http}/abc?x=1`, {
      redirect: 'manual',
      headers: { host: 's.example' },
    });
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe('https://s.example/abc?x=1');
  });

  test('over https: register, shorten and follow a link', async () => {
    await roundTrip(https, 'via-nginx');
  });

  test("kurz sees each client's own address through nginx", async () => {
    await expectOwnAddresses(https);
  });
});

describe.skipIf(CADDY === null)('Caddyfile in front of kurz', () => {
  let kurz: Running;
  let caddy: RunningProxy;
  let url: string;

  beforeAll(async () => {
    kurz = await startConfiguredKurz();
    const port = freePort();
    url = `http://127.0.0.1:${port}`;
    // Plain http on a free port: the certificate Caddy would get for s.example needs the
    // real name; the proxying is the same.
    const site = substitute(read('Caddyfile'), [
      ['s.example {', `${url} {`],
      ['127.0.0.1:3000', `127.0.0.1:${kurz.port}`],
    ]);
    caddy = await startCaddy(site, `${url}/health`);
  }, 30_000);

  afterAll(async () => {
    await caddy?.stop();
    await kurz?.stop();
  });

  test('caddy validate accepts the Caddyfile as written', async () => {
    const home = tempDir();
    const validated = await run(
      [
        CADDY as string,
        'validate',
        '--config',
        join(DEPLOY, 'Caddyfile'),
        '--adapter',
        'caddyfile',
      ],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          XDG_DATA_HOME: home,
          XDG_CONFIG_HOME: home,
        },
      },
    );
    expect(validated.stdout).toContain('Valid configuration');
    expect(validated.code).toBe(0);
    // Formatted as `caddy fmt` writes it, or caddy warns at every start.
    expect(validated.stderr).not.toContain('not formatted');
  });

  test('register, shorten and follow a link', async () => {
    await roundTrip(url, 'via-caddy');
  });

  test("kurz sees each client's own address through Caddy", async () => {
    await expectOwnAddresses(url);
  });
});
