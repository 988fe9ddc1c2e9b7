import { describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { parseCommandLine } from '../../src/config/cli.ts';
import { ConfigError } from '../../src/config/config.ts';
import { SERVER_FLAG_ENVS, SERVER_FLAGS } from '../../src/config/flags.ts';
import { USAGE } from '../../src/config/help.ts';
import { parseRate, parseSize } from '../../src/config/values.ts';
import { describeCheckout, versionLine } from '../../src/version.ts';
import { tempDir } from '../support/cleanup.ts';

function config(argv: string[], env: Record<string, string> = {}) {
  const command = parseCommandLine(argv, env);
  if (!('config' in command)) throw new Error(command.kind);
  return command.config;
}

describe('command line', () => {
  test('defaults are the documented ones', () => {
    expect(config([])).toEqual({
      mode: 'accounts',
      host: '0.0.0.0',
      port: 3000,
      db: './data/kurz.db',
      dbPool: 10,
      baseUrl: undefined,
      jwtSecret: undefined,
      tokenTtlSeconds: 86_400,
      durability: 'normal',
      cacheSize: 50_000,
      rateLimitsEnabled: true,
      rateLimits: {
        login: { count: 30, windowMs: 600_000 },
        loginEmail: { count: 10, windowMs: 900_000 },
        register: { count: 30, windowMs: 3_600_000 },
        create: { count: 1000, windowMs: 3_600_000 },
        unknownCode: { count: 300, windowMs: 60_000 },
        linkPassword: { count: 10, windowMs: 900_000 },
        report: { count: 10, windowMs: 3_600_000 },
      },
      trustedProxies: [],
      blocklist: undefined,
      corsOrigins: [],
      allowedHosts: [],
      shutdownTimeoutMs: 10_000,
      maxLinksPerUser: 100_000,
      minFreeDiskBytes: 64 * 1024 * 1024,
      adminToken: undefined,
      clickRetentionDays: 0,
      registration: 'open',
      webhookAllowPrivate: false,
      metricsToken: undefined,
      logFormat: 'text',
      accessLog: false,
      tls: {
        mode: 'off',
        acmeEmail: undefined,
        acmeDirectory: 'https://acme-v02.api.letsencrypt.org/directory',
        acmeCaFile: undefined,
        certFile: undefined,
        keyFile: undefined,
        httpsPort: 443,
        httpPort: 80,
        hstsMaxAgeSeconds: 31_536_000,
      },
      passwordLogin: true,
      oidc: {
        issuer: undefined,
        clientId: undefined,
        clientSecret: undefined,
        name: 'Single sign-on',
        scopes: ['openid', 'email', 'profile'],
        allowedDomains: [],
        adminClaim: undefined,
      },
      newAccountInterstitialDays: 0,
    });
  });

  test('every flag has its environment variable; flags win', () => {
    const blocklist = join(tempDir(), 'blocklist');
    writeFileSync(blocklist, '# spam\nspam.example\n');
    const env = {
      KURZ_MODE: 'open',
      KURZ_HOST: '127.0.0.1',
      PORT: '8080',
      DATABASE_URL: '/var/lib/kurz/k.db',
      KURZ_BASE_URL: 'https://s.example/',
      KURZ_JWT_SECRET: 's'.repeat(32),
      KURZ_TOKEN_TTL: '60',
      KURZ_DURABILITY: 'full',
      KURZ_CACHE_SIZE: '500',
      KURZ_RATE_LIMITS: 'off',
      KURZ_RATE_LOGIN: '5/min',
      KURZ_RATE_LOGIN_EMAIL: '3/2h',
      KURZ_RATE_REGISTER: '1/d',
      KURZ_RATE_CREATE: '7/30s',
      KURZ_RATE_UNKNOWN_CODE: '9/min',
      KURZ_TRUSTED_PROXIES: '10.0.0.0/8, ::1',
      KURZ_BLOCKLIST: blocklist,
      KURZ_CORS_ORIGINS: 'https://app.example,http://localhost:5173',
      KURZ_ALLOWED_HOSTS: 'Kurz.LAN, bücher.example.,192.168.1.5',
      KURZ_SHUTDOWN_TIMEOUT: '3',
      KURZ_MAX_LINKS_PER_USER: '0',
      KURZ_MIN_FREE_DISK: '1GB',
      KURZ_DB_POOL: '4',
      KURZ_RATE_LINK_PASSWORD: '2/h',
      KURZ_ADMIN_TOKEN: 'a'.repeat(32),
      KURZ_CLICK_RETENTION_DAYS: '90',
      KURZ_REGISTRATION: 'closed',
      KURZ_WEBHOOK_ALLOW_PRIVATE: 'on',
      KURZ_METRICS_TOKEN: 'm'.repeat(32),
      KURZ_LOG_FORMAT: 'json',
      KURZ_ACCESS_LOG: 'on',
      KURZ_RATE_REPORT: '4/h',
      KURZ_NEW_ACCOUNT_INTERSTITIAL: '7',
    };
    expect(config([], env)).toEqual({
      mode: 'open',
      host: '127.0.0.1',
      port: 8080,
      db: '/var/lib/kurz/k.db',
      dbPool: 4,
      baseUrl: 'https://s.example',
      jwtSecret: 's'.repeat(32),
      tokenTtlSeconds: 60,
      durability: 'full',
      cacheSize: 500,
      rateLimitsEnabled: false,
      rateLimits: {
        login: { count: 5, windowMs: 60_000 },
        loginEmail: { count: 3, windowMs: 7_200_000 },
        register: { count: 1, windowMs: 86_400_000 },
        create: { count: 7, windowMs: 30_000 },
        unknownCode: { count: 9, windowMs: 60_000 },
        linkPassword: { count: 2, windowMs: 3_600_000 },
        report: { count: 4, windowMs: 3_600_000 },
      },
      trustedProxies: ['10.0.0.0/8', '::1'],
      // The file is read and checked with the other flags, so a bad one stops the start.
      blocklist: {
        path: blocklist,
        list: expect.objectContaining({ domains: new Set(['spam.example']) }),
      },
      corsOrigins: ['https://app.example', 'http://localhost:5173'],
      // Canonical, as the Host of a request is before it is compared.
      allowedHosts: ['kurz.lan', 'xn--bcher-kva.example', '192.168.1.5'],
      shutdownTimeoutMs: 3000,
      maxLinksPerUser: 0,
      minFreeDiskBytes: 1e9,
      adminToken: 'a'.repeat(32),
      clickRetentionDays: 90,
      registration: 'closed',
      webhookAllowPrivate: true,
      metricsToken: 'm'.repeat(32),
      logFormat: 'json',
      accessLog: true,
      // Open mode has no sign-in: test/cli/oidc-flags.test.ts reads those variables.
      passwordLogin: true,
      // HTTPS flags: test/cli/tls-flags.test.ts.
      tls: expect.objectContaining({ mode: 'off' }),
      oidc: expect.objectContaining({ issuer: undefined }),
      newAccountInterstitialDays: 7,
    });
    expect(config(['--mode', 'accounts', '--port=9000'], env)).toMatchObject({
      mode: 'accounts',
      port: 9000,
    });
  });

  test('serve is the default command; migrate is recognised', () => {
    expect(parseCommandLine([], {}).kind).toBe('serve');
    expect(parseCommandLine(['serve', '--port', '1'], {}).kind).toBe('serve');
    expect(parseCommandLine(['migrate'], {}).kind).toBe('migrate');
    expect(parseCommandLine(['rotate-secret'], {}).kind).toBe('rotate-secret');
    expect(parseCommandLine(['--help'], {}).kind).toBe('help');
    expect(parseCommandLine(['serve', '--version'], {}).kind).toBe('version');
  });

  test('tools take their own flags and arguments, the server flags for the database, and nothing else', () => {
    const command = parseCommandLine(
      ['user', 'remove', 'a@example.com', '--with-links', '--db', '/tmp/k.db'],
      { KURZ_MODE: 'open' },
    );
    expect(command).toMatchObject({
      kind: 'user',
      args: ['remove', 'a@example.com'],
      options: new Map([['--with-links', true]]),
      config: { db: '/tmp/k.db', mode: 'open' },
    });
    const exported = parseCommandLine(['export', '-', '--format=csv', '--owner', 'a@b.c'], {});
    expect(exported).toMatchObject({
      kind: 'export',
      args: ['-'],
      options: new Map([
        ['--format', 'csv'],
        ['--owner', 'a@b.c'],
      ]),
    });
    expect(() => parseCommandLine(['user'], {})).toThrow(
      new ConfigError(
        'user needs an action: add EMAIL, list, passwd EMAIL, promote EMAIL, demote EMAIL, disable EMAIL, enable EMAIL or remove EMAIL (see kurz user --help)',
      ),
    );
    expect(() => parseCommandLine(['backup', 'a', 'b'], {})).toThrow(
      new ConfigError('backup needs the FILE to write (see kurz backup --help)'),
    );
    expect(() => parseCommandLine(['backup', 'a', '--nope'], {})).toThrow(
      new ConfigError('unknown flag --nope for backup (see kurz backup --help)'),
    );
    expect(() => parseCommandLine(['import', 'f', '--dry-run=yes'], {})).toThrow(
      new ConfigError('--dry-run takes no value'),
    );
    expect(() => parseCommandLine(['import', 'f', '--owner'], {})).toThrow(
      new ConfigError('--owner needs a value'),
    );
    expect(() => parseCommandLine(['import', 'f', '--port', 'x'], {})).toThrow(
      new ConfigError('--port must be a port from 0 to 65535 (got "x")'),
    );
  });

  test('every command answers --help with its own usage', () => {
    const help = (argv: string[]) => {
      const command = parseCommandLine(argv, {});
      if (command.kind !== 'help') throw new Error(command.kind);
      return command.usage;
    };
    const general = help(['--help']);
    for (const name of [
      'serve',
      'migrate',
      'rotate-secret',
      'copy',
      'healthcheck',
      'user',
      'domain',
      'backup',
      'export',
      'import',
    ]) {
      expect(general).toContain(`kurz ${name}`);
    }
    expect(general).toContain('--webhook-allow-private on|off');
    expect(general).toContain('KURZ_WEBHOOK_ALLOW_PRIVATE');
    expect(help(['serve', '--help'])).toBe(general);
    expect(help(['copy', '--help'])).toContain('kurz copy --from SOURCE --to TARGET');
    expect(help(['healthcheck', '--help'])).toContain('--timeout SECS');
    expect(help(['user', 'add', '--help'])).toContain('kurz user passwd EMAIL');
    expect(help(['backup', '-h'])).toContain('pg_dump');
    expect(help(['domain', 'add', '--help'])).toContain('kurz domain remove URL [--with-links]');
    expect(help(['export', '--help'])).toContain('--clicks');
    expect(help(['import', '--help'])).toContain('--dry-run');
    expect(help(['import', '--help'])).toContain('a record\nover 1 MiB');
  });

  test('healthcheck reads where the server listens from its flags and variables, and nothing else', () => {
    expect(parseCommandLine(['healthcheck'], {})).toEqual({
      kind: 'healthcheck',
      host: '0.0.0.0',
      port: 3000,
      timeoutMs: 3000,
    });
    const env = { KURZ_HOST: '::', PORT: '8080', KURZ_HEALTHCHECK_TIMEOUT: '10' };
    expect(parseCommandLine(['healthcheck'], env)).toEqual({
      kind: 'healthcheck',
      host: '::',
      port: 8080,
      timeoutMs: 10_000,
    });
    expect(
      parseCommandLine(
        ['healthcheck', '--host', '127.0.0.1', '--port=9000', '--timeout', '1'],
        env,
      ),
    ).toEqual({ kind: 'healthcheck', host: '127.0.0.1', port: 9000, timeoutMs: 1000 });
    // A variable of the server that cannot be read (a secret file, the blocklist, the
    // database) is nothing to it.
    expect(
      parseCommandLine(['healthcheck'], {
        KURZ_JWT_SECRET_FILE: '/nonexistent/key',
        KURZ_BLOCKLIST: '/nonexistent/list',
        DATABASE_URL: 'mysql://nowhere',
      }).kind,
    ).toBe('healthcheck');
  });

  test.each([
    [
      ['healthcheck', '--port', '0'],
      '--port must be the port kurz listens on, not 0 (which picks a free one)',
    ],
    [['healthcheck', '--port', 'x'], '--port must be a port from 0 to 65535 (got "x")'],
    [
      ['healthcheck', '--timeout', '0'],
      '--timeout must be a number of seconds from 1 to 60 (got "0")',
    ],
    [['healthcheck', '--timeout'], '--timeout needs a value'],
    [['healthcheck', '--mode', 'open'], 'unknown flag --mode for healthcheck (see --help)'],
  ])('%p → %p', (argv, message) => {
    expect(() => parseCommandLine(argv, {})).toThrow(new ConfigError(message));
  });

  test('a sqlite:// URL is read as a path', () => {
    expect(config(['--db', 'sqlite:///tmp/k.db']).db).toBe('/tmp/k.db');
  });

  test('a postgres:// or postgresql:// URL selects PostgreSQL; other schemes and bad URLs are refused without echoing them', () => {
    for (const url of ['postgres://u:p@db:5432/kurz', 'postgresql://db/kurz?sslmode=require']) {
      expect(config(['--db', url]).db).toBe(url);
      expect(config([], { DATABASE_URL: url }).db).toBe(url);
    }
    for (const bad of [
      'postgres://u:hunter2@/kurz',
      'postgres://u:hunter2@db',
      'mysql://db/kurz',
    ]) {
      expect(() => config(['--db', bad])).toThrow('--db must be');
      try {
        config(['--db', bad]);
      } catch (error) {
        expect(String(error)).not.toContain('hunter2');
      }
    }
    expect(config(['--db-pool', '25']).dbPool).toBe(25);
    expect(() => config(['--db-pool', '0'])).toThrow('--db-pool must be');
  });

  test('--jwt-secret-file reads the key from a file, without its final newline', () => {
    const file = join(tempDir(), 'key');
    writeFileSync(file, `${'k'.repeat(40)}\n`);
    expect(config(['--jwt-secret-file', file]).jwtSecret).toBe('k'.repeat(40));
    expect(config([], { KURZ_JWT_SECRET_FILE: file }).jwtSecret).toBe('k'.repeat(40));
    // A flag wins over the environment, also across the two ways of giving a key.
    expect(config(['--jwt-secret-file', file], { KURZ_JWT_SECRET: 'e'.repeat(32) }).jwtSecret).toBe(
      'k'.repeat(40),
    );
  });

  test('--metrics-token-file reads the token from a file, without its final newline', () => {
    const file = join(tempDir(), 'metrics-token');
    writeFileSync(file, `${'t'.repeat(40)}\n`);
    expect(config(['--metrics-token-file', file]).metricsToken).toBe('t'.repeat(40));
    expect(config([], { KURZ_METRICS_TOKEN_FILE: file }).metricsToken).toBe('t'.repeat(40));
    // A flag wins over the environment, across the two ways of giving the token too.
    expect(
      config(['--metrics-token-file', file], { KURZ_METRICS_TOKEN: 'e'.repeat(32) }).metricsToken,
    ).toBe('t'.repeat(40));
    expect(
      config(['--metrics-token', 'f'.repeat(32)], { KURZ_METRICS_TOKEN_FILE: file }).metricsToken,
    ).toBe('f'.repeat(32));
  });

  test('kurz --help names every server flag with its environment variable', () => {
    for (const [flag, env] of Object.entries(SERVER_FLAG_ENVS)) {
      expect([flag, new RegExp(`\\n  ${flag} .*${env}`).test(USAGE)]).toEqual([flag, true]);
    }
  });

  test('kurz --help gives every server flag its meaning and its default from DEFAULTS', () => {
    for (const spec of SERVER_FLAGS) {
      const lines = USAGE.split('\n');
      const at = lines.findIndex((line) => line.startsWith(`  ${spec.flag} ${spec.value} `));
      const under = lines.slice(at + 1);
      const end = under.findIndex((line) => !line.startsWith('      '));
      const text = under
        .slice(0, end)
        .map((line) => line.trim())
        .join(' ');
      expect([spec.flag, text]).toEqual([
        spec.flag,
        spec.default === undefined ? spec.meaning : `${spec.meaning} (default ${spec.default})`,
      ]);
    }
    expect(USAGE).toContain('(default 3000)');
    expect(USAGE).toContain('(default 30/10min)');
    expect(USAGE).toContain('(default 64MiB)');
  });

  test('a flag given twice keeps its last value; a value may start with a dash', () => {
    expect(config(['--port', '1', '--port=2', '--port', '3']).port).toBe(3);
    expect(
      config(['--base-url', 'https://a.example', '--base-url=https://b.example']),
    ).toMatchObject({ baseUrl: 'https://b.example' });
    const exported = parseCommandLine(['export', '--owner', '-x', '--format', '--clicks'], {});
    expect(exported).toMatchObject({
      options: new Map([
        ['--owner', '-x'],
        ['--format', '--clicks'],
      ]),
    });
    // A flag that may be repeated keeps every value, in order.
    const imported = parseCommandLine(
      ['import', 'f.csv', '--domain-map', 'bit.ly=default', '--domain-map=s.test=go.example.com'],
      {},
    );
    expect(imported).toMatchObject({
      options: new Map(),
      lists: new Map([['--domain-map', ['bit.ly=default', 's.test=go.example.com']]]),
    });
  });

  test.each([
    [['-abc'], 'unknown flag -abc (see --help)'],
    [['-p=3'], 'unknown flag -p (see --help)'],
    [['--port', '1', '--'], 'unknown flag -- (see --help)'],
    [['--port', '1', 'extra'], 'unknown flag extra (see --help)'],
    [['serve', ''], 'unknown flag  (see --help)'],
    [['export', '-xy'], 'unknown flag -xy for export (see kurz export --help)'],
    [['export', '--', 'f'], 'unknown flag -- for export (see kurz export --help)'],
    [['import', 'f', '--port'], '--port needs a value'],
    [['copy', '--from', '/a', 'x'], 'unknown flag x for copy (see --help)'],
    // Names an object has by inheritance are no commands or flags.
    [
      ['constructor'],
      'unknown command "constructor" (expected serve, migrate, rotate-secret, copy, healthcheck, user, domain, backup, export, import; see --help)',
    ],
    [['--port', '1', 'toString', 'x'], 'unknown flag toString (see --help)'],
  ])('words are refused as written: %p → %p', (argv, message) => {
    expect(() => parseCommandLine(argv, {})).toThrow(new ConfigError(message));
  });

  test('kurz toString --help is the general help', () => {
    expect(parseCommandLine(['toString', '--help'], {})).toEqual({ kind: 'help', usage: USAGE });
  });

  test('--log-format and --access-log take their words', () => {
    expect(config(['--log-format', 'json', '--access-log', 'on'])).toMatchObject({
      logFormat: 'json',
      accessLog: true,
    });
    expect(config(['--log-format=text', '--access-log=off'])).toMatchObject({
      logFormat: 'text',
      accessLog: false,
    });
  });

  test('sizes and rates read their units', () => {
    expect(parseSize('0')).toBe(0);
    expect(parseSize('64MiB')).toBe(64 * 1024 * 1024);
    expect(parseSize('500mb')).toBe(500e6);
    expect(parseRate('30/10min')).toEqual({ count: 30, windowMs: 600_000 });
    expect(parseRate('1/s')).toEqual({ count: 1, windowMs: 1000 });
  });

  test('--port 0 is allowed (pick a free port)', () => {
    expect(config(['--port', '0']).port).toBe(0);
  });

  test.each([
    [['--port', '-1'], '--port must be a port from 0 to 65535 (got "-1")'],
    [['--mode', 'x'], '--mode must be accounts or open (got "x")'],
    [['--registration', 'invite'], '--registration must be open or closed (got "invite")'],
    [['--host', ''], '--host must be a host name or address (got "")'],
    [['--nope'], 'unknown flag --nope (see --help)'],
    [['--cache-size', '0'], '--cache-size must be a number of links from 1 to 10000000 (got "0")'],
    [['--db'], '--db needs a value'],
    [
      ['--rate-login', '10'],
      '--rate-login must be N/WINDOW, e.g. 10/min, 30/10min or 100/h (got "10")',
    ],
    [
      ['--rate-create', '0/min'],
      '--rate-create must be N/WINDOW, e.g. 10/min, 30/10min or 100/h (got "0/min")',
    ],
    [['--rate-limits', 'maybe'], '--rate-limits must be on or off (got "maybe")'],
    [['--webhook-allow-private', 'yes'], '--webhook-allow-private must be on or off (got "yes")'],
    [
      ['--trusted-proxies', '10.0.0.0/33'],
      '--trusted-proxies must be addresses or CIDR blocks separated by commas (got "10.0.0.0/33")',
    ],
    [
      ['--trusted-proxies', 'proxy.local'],
      '--trusted-proxies must be addresses or CIDR blocks separated by commas (got "proxy.local")',
    ],
    [
      ['--cors-origins', 'https://app.example/path'],
      '--cors-origins must be origins such as https://app.example separated by commas (got "https://app.example/path")',
    ],
    [
      ['--allowed-hosts', 'kurz.lan,*.lan'],
      '--allowed-hosts must be host names such as kurz.lan separated by commas (got "*.lan")',
    ],
    [
      ['--allowed-hosts', 'kurz.lan:3000'],
      '--allowed-hosts must be host names such as kurz.lan separated by commas (got "kurz.lan:3000")',
    ],
    [
      ['--allowed-hosts', 'https://kurz.lan'],
      '--allowed-hosts must be host names such as kurz.lan separated by commas (got "https://kurz.lan")',
    ],
    [
      ['--min-free-disk', '5 parsecs'],
      '--min-free-disk must be a size such as 64MiB or 1GB (got "5 parsecs")',
    ],
    [
      ['--shutdown-timeout', '-1'],
      '--shutdown-timeout must be a number of seconds from 0 to 3600 (got "-1")',
    ],
    [['--jwt-secret', 'short'], '--jwt-secret must be at least 32 characters long'],
    [['--metrics-token', 'short'], '--metrics-token must be at least 32 characters long'],
    [
      ['--metrics-token', 'm'.repeat(32), '--metrics-token-file', '/x'],
      '--metrics-token and --metrics-token-file cannot both be given',
    ],
    [
      ['--metrics-token-file', '/nonexistent/kurz-metrics'],
      '--metrics-token-file cannot be read (ENOENT: /nonexistent/kurz-metrics)',
    ],
    [['--log-format', 'xml'], '--log-format must be text or json (got "xml")'],
    [['--access-log', 'yes'], '--access-log must be on or off (got "yes")'],
    [['--access-log'], '--access-log needs a value'],
    [
      ['--jwt-secret', 's'.repeat(32), '--jwt-secret-file', '/x'],
      '--jwt-secret and --jwt-secret-file cannot both be given',
    ],
    [
      ['--jwt-secret-file', '/nonexistent/kurz-key'],
      '--jwt-secret-file cannot be read (ENOENT: /nonexistent/kurz-key)',
    ],
    [
      ['--blocklist', '/nonexistent/kurz-list'],
      '--blocklist cannot be read (ENOENT: /nonexistent/kurz-list)',
    ],
    [
      ['frobnicate'],
      'unknown command "frobnicate" (expected serve, migrate, rotate-secret, copy, healthcheck, user, domain, backup, export, import; see --help)',
    ],
  ])('%p → %p', (argv, message) => {
    expect(() => parseCommandLine(argv, {})).toThrow(new ConfigError(message));
  });
});

describe('kurz --version', () => {
  const git = (dir: string, ...args: string[]) => {
    const run = Bun.spawnSync(
      ['git', '-c', 'user.name=kurz', '-c', 'user.email=kurz@example.com', ...args],
      { cwd: dir, stdout: 'pipe', stderr: 'pipe' },
    );
    if (!run.success) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
    return run.stdout.toString().trim();
  };

  test('names the commit: 12 hex digits, -dirty with changes not committed, unknown outside git', () => {
    const dir = tempDir();
    expect(describeCheckout(dir)).toBe('unknown');
    git(dir, 'init', '-q');
    expect(describeCheckout(dir)).toBe('unknown');
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    git(dir, 'add', 'a.txt');
    git(dir, 'commit', '-q', '-m', 'one');
    const head = git(dir, 'rev-parse', 'HEAD').slice(0, 12);
    expect(describeCheckout(dir)).toBe(head);
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    expect(describeCheckout(dir)).toBe(`${head}-dirty`);
    git(dir, 'checkout', '-q', 'a.txt');
    writeFileSync(join(dir, 'new.ts'), 'export {};\n');
    expect(describeCheckout(dir)).toBe(`${head}-dirty`);
  });

  test('run from source, it reads the commit of its checkout', () => {
    const checkout = join(import.meta.dir, '..', '..');
    expect(versionLine()).toBe(`kurz ${pkg.version} (commit ${describeCheckout(checkout)})`);
    expect(versionLine()).toMatch(/^kurz \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?\)$/);
  });
});

describe('docs/configuration.md', () => {
  /** The rows of the page's flag tables: `--flag VALUE`, variable, default (undefined for —). */
  const documented = () => {
    const page = readFileSync(join(import.meta.dir, '../../docs/configuration.md'), 'utf8');
    return page
      .split('\n')
      .filter((line) => line.startsWith('| `-'))
      .map((line) => {
        const cells = line
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((cell) => cell.trim().replaceAll('\\|', '|'));
        const [flag, env, shown] = cells.map((cell) => cell.replace(/^`(.*)`$/, '$1'));
        return [flag, env, shown === '—' ? undefined : shown];
      });
  };

  test('its flag tables hold every server flag, variable and default of the code, and nothing else', () => {
    const inCode = SERVER_FLAGS.map((spec) => [
      `${spec.flag} ${spec.value}`,
      spec.env,
      spec.default,
    ]);
    const byFlag = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(documented().sort(byFlag)).toEqual(inCode.sort(byFlag));
  });
});
