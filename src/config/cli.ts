// The command line: `kurz [serve|migrate] [flags]`, each flag with its environment
// variable. Flags win over the environment; a bad one is reported by name.

import { readFileSync } from 'node:fs';
import { type Blocklist, BlocklistError, parseBlocklist } from '../domain/targets.ts';
import { parseTrustedProxies } from '../net/client-address.ts';
import { isPostgresUrl } from '../store/database-url.ts';
import {
  type Config,
  ConfigError,
  defaultConfig,
  type RateLimit,
  type RateLimits,
} from './config.ts';
import { TOOL_SPECS } from './tools.ts';

/** Commands that read the configuration; `serve` is the default. */
const COMMANDS = ['serve', 'migrate', 'rotate-secret'] as const;
type ConfiguredCommand = (typeof COMMANDS)[number];

/**
 * The operator's tools: each reads the server's flags (for --db and the rest, so one
 * environment file serves both) and flags and arguments of its own.
 */
export const TOOLS = ['user', 'backup', 'export', 'import'] as const;
export type ToolName = (typeof TOOLS)[number];

/** A tool's own flags: their environment variables and whether they take a value. */
export interface ToolSpec {
  /** The line `kurz --help` gives it, after its synopsis. */
  synopsis: string;
  /** What `kurz TOOL --help` prints. */
  usage: string;
  flags: Record<string, { env?: string; value: boolean }>;
  /** How many arguments (words that are not flags) it takes. */
  args: { min: number; max: number; what: string };
}

/** A tool's flags as given: a value, or true for a switch. */
export type ToolOptions = Map<string, string | true>;

/** A tool's command line, parsed: its arguments and own flags, and the server's configuration. */
export interface ToolCommand {
  kind: ToolName;
  config: Config;
  args: string[];
  options: ToolOptions;
}

export type Command =
  | { kind: ConfiguredCommand; config: Config }
  /** `config` holds the defaults both databases are opened with. */
  | { kind: 'copy'; config: Config; from: string; to: string }
  /** Where the server listens (the server's own flags), and how long to wait for it. */
  | { kind: 'healthcheck'; host: string; port: number; timeoutMs: number }
  | ToolCommand
  /** `usage`: the text to print (the whole program's, or one command's). */
  | { kind: 'help'; usage: string }
  | { kind: 'version' };

interface FlagSpec {
  env: string;
  /** Parses and checks a value; throws a message (without the flag's name) when bad. */
  parse(value: string, into: Config): void;
}

const JWT_SECRET_MIN_LENGTH = 32;

function oneOf<T extends string>(allowed: readonly T[], set: (v: T) => void) {
  return (value: string) => {
    if (!(allowed as readonly string[]).includes(value)) {
      throw `must be ${allowed.join(' or ')} (got "${value}")`;
    }
    set(value as T);
  };
}

function wholeNumber(value: string, min: number, max: number, what: string): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw `must be ${what} (got "${value}")`;
  }
  return Number(value);
}

const WINDOWS: Record<string, number> = { s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** `N/WINDOW`: N requests per window, e.g. `10/min`, `30/10min`, `100/h`. */
export function parseRate(value: string): RateLimit {
  const match = /^(\d{1,7})\/(\d{0,4})(s|min|h|d)$/.exec(value);
  const count = Number(match?.[1]);
  const times = match?.[2] ? Number(match[2]) : 1;
  if (!match || count < 1 || times < 1) {
    throw `must be N/WINDOW, e.g. 10/min, 30/10min or 100/h (got "${value}")`;
  }
  return { count, windowMs: times * (WINDOWS[match[3] as string] as number) };
}

const SIZES: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** A byte count: `0`, `500MB`, `64MiB`, `2GB`. */
export function parseSize(value: string): number {
  const match = /^(\d{1,6})\s*([a-z]*)$/i.exec(value);
  const unit = SIZES[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) throw `must be a size such as 64MiB or 1GB (got "${value}")`;
  return Number(match[1]) * unit;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function rateFlag(env: string, key: keyof RateLimits): FlagSpec {
  return {
    env,
    parse: (v, c) => {
      c.rateLimits[key] = parseRate(v);
    },
  };
}

/** A file a flag names, as text; throws the flag's message when it cannot be read. */
function readFlagFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}: ${path})`;
  }
}

/**
 * The --blocklist file, read and checked: at start-up, and again on every SIGHUP. Throws
 * a message (without the flag's name) naming the file and its first bad line.
 */
export function readBlocklist(path: string): Blocklist {
  const text = readFlagFile(path);
  try {
    return parseBlocklist(text);
  } catch (error) {
    if (error instanceof BlocklistError) throw `${path} ${error.message}`;
    throw error;
  }
}

/**
 * A SQLite file path (or `sqlite://PATH`), or a PostgreSQL URL. A URL that does not
 * parse is refused here, without echoing it: it may hold a password.
 */
export function parseDatabase(value: string): string {
  if (value === '') throw 'must be a SQLite file path or a postgres:// URL';
  if (isPostgresUrl(value)) {
    const url = URL.parse(value);
    if (url === null || url.hostname === '' || url.pathname.length <= 1) {
      throw 'must be a URL such as postgres://user:password@host:5432/database';
    }
    return value;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !value.startsWith('sqlite://')) {
    throw 'must be a SQLite file path, sqlite://PATH or a postgres:// URL';
  }
  return value.startsWith('sqlite://') ? value.slice('sqlite://'.length) : value;
}

function checkSecret(secret: string): string {
  if (secret.length < JWT_SECRET_MIN_LENGTH) {
    throw `must be at least ${JWT_SECRET_MIN_LENGTH} characters long`;
  }
  return secret;
}

const FLAGS: Record<string, FlagSpec> = {
  '--mode': {
    env: 'KURZ_MODE',
    parse: (v, c) => oneOf(['accounts', 'open'] as const, (m) => (c.mode = m))(v),
  },
  '--host': {
    env: 'KURZ_HOST',
    parse: (v, c) => {
      if (v === '' || /\s/.test(v)) throw `must be a host name or address (got "${v}")`;
      c.host = v;
    },
  },
  '--port': {
    env: 'PORT',
    parse: (v, c) => {
      c.port = wholeNumber(v, 0, 65_535, 'a port from 0 to 65535');
    },
  },
  '--db': {
    env: 'DATABASE_URL',
    parse: (v, c) => {
      c.db = parseDatabase(v);
    },
  },
  '--db-pool': {
    env: 'KURZ_DB_POOL',
    parse: (v, c) => {
      c.dbPool = wholeNumber(v, 1, 1000, 'a number of connections from 1 to 1000');
    },
  },
  '--base-url': {
    env: 'KURZ_BASE_URL',
    parse: (v, c) => {
      const url = URL.parse(v);
      if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) {
        throw `must be an http:// or https:// address without query (got "${v}")`;
      }
      c.baseUrl = v.replace(/\/+$/, '');
    },
  },
  '--jwt-secret': {
    env: 'KURZ_JWT_SECRET',
    parse: (v, c) => {
      c.jwtSecret = checkSecret(v);
    },
  },
  '--jwt-secret-file': {
    env: 'KURZ_JWT_SECRET_FILE',
    parse: (v, c) => {
      // A trailing newline is how editors and `echo` end a file, not part of the key.
      c.jwtSecret = checkSecret(readFlagFile(v).replace(/\r?\n$/, ''));
    },
  },
  '--token-ttl': {
    env: 'KURZ_TOKEN_TTL',
    parse: (v, c) => {
      c.tokenTtlSeconds = wholeNumber(v, 1, 31_622_400, 'a number of seconds from 1 to 31622400');
    },
  },
  '--cache-size': {
    env: 'KURZ_CACHE_SIZE',
    parse: (v, c) => {
      c.cacheSize = wholeNumber(v, 1, 10_000_000, 'a number of links from 1 to 10000000');
    },
  },
  '--durability': {
    env: 'KURZ_DURABILITY',
    parse: (v, c) => oneOf(['normal', 'full'] as const, (d) => (c.durability = d))(v),
  },
  '--rate-limits': {
    env: 'KURZ_RATE_LIMITS',
    parse: (v, c) => oneOf(['on', 'off'] as const, (o) => (c.rateLimitsEnabled = o === 'on'))(v),
  },
  '--rate-login': rateFlag('KURZ_RATE_LOGIN', 'login'),
  '--rate-login-email': rateFlag('KURZ_RATE_LOGIN_EMAIL', 'loginEmail'),
  '--rate-register': rateFlag('KURZ_RATE_REGISTER', 'register'),
  '--rate-create': rateFlag('KURZ_RATE_CREATE', 'create'),
  '--rate-unknown-code': rateFlag('KURZ_RATE_UNKNOWN_CODE', 'unknownCode'),
  '--rate-link-password': rateFlag('KURZ_RATE_LINK_PASSWORD', 'linkPassword'),
  '--admin-token': {
    env: 'KURZ_ADMIN_TOKEN',
    parse: (v, c) => {
      c.adminToken = checkSecret(v);
    },
  },
  '--admin-token-file': {
    env: 'KURZ_ADMIN_TOKEN_FILE',
    parse: (v, c) => {
      c.adminToken = checkSecret(readFlagFile(v).replace(/\r?\n$/, ''));
    },
  },
  '--registration': {
    env: 'KURZ_REGISTRATION',
    parse: (v, c) => oneOf(['open', 'closed'] as const, (r) => (c.registration = r))(v),
  },
  '--metrics-token': {
    env: 'KURZ_METRICS_TOKEN',
    parse: (v, c) => {
      c.metricsToken = checkSecret(v);
    },
  },
  '--metrics-token-file': {
    env: 'KURZ_METRICS_TOKEN_FILE',
    parse: (v, c) => {
      c.metricsToken = checkSecret(readFlagFile(v).replace(/\r?\n$/, ''));
    },
  },
  '--log-format': {
    env: 'KURZ_LOG_FORMAT',
    parse: (v, c) => oneOf(['text', 'json'] as const, (f) => (c.logFormat = f))(v),
  },
  '--access-log': {
    env: 'KURZ_ACCESS_LOG',
    parse: (v, c) => oneOf(['on', 'off'] as const, (o) => (c.accessLog = o === 'on'))(v),
  },
  '--click-retention-days': {
    env: 'KURZ_CLICK_RETENTION_DAYS',
    parse: (v, c) => {
      c.clickRetentionDays = wholeNumber(
        v,
        0,
        36_500,
        'a number of days (0 keeps records forever)',
      );
    },
  },
  '--trusted-proxies': {
    env: 'KURZ_TRUSTED_PROXIES',
    parse: (v, c) => {
      c.trustedProxies = list(v);
      parseTrustedProxies(c.trustedProxies);
    },
  },
  '--blocklist': {
    env: 'KURZ_BLOCKLIST',
    parse: (v, c) => {
      if (v === '') throw 'must be a file path';
      c.blocklist = { path: v, list: readBlocklist(v) };
    },
  },
  '--cors-origins': {
    env: 'KURZ_CORS_ORIGINS',
    parse: (v, c) => {
      c.corsOrigins = list(v).map((origin) => {
        const url = URL.parse(origin);
        if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
          throw `must be origins such as https://app.example separated by commas (got "${origin}")`;
        }
        return url.origin;
      });
    },
  },
  '--shutdown-timeout': {
    env: 'KURZ_SHUTDOWN_TIMEOUT',
    parse: (v, c) => {
      c.shutdownTimeoutMs = 1000 * wholeNumber(v, 0, 3600, 'a number of seconds from 0 to 3600');
    },
  },
  '--max-links-per-user': {
    env: 'KURZ_MAX_LINKS_PER_USER',
    parse: (v, c) => {
      c.maxLinksPerUser = wholeNumber(v, 0, 1e12, 'a number of links (0 for no limit)');
    },
  },
  '--min-free-disk': {
    env: 'KURZ_MIN_FREE_DISK',
    parse: (v, c) => {
      c.minFreeDiskBytes = parseSize(v);
    },
  },
  '--webhook-allow-private': {
    env: 'KURZ_WEBHOOK_ALLOW_PRIVATE',
    parse: (v, c) => oneOf(['on', 'off'] as const, (o) => (c.webhookAllowPrivate = o === 'on'))(v),
  },
};

export const USAGE = `kurz — a self-hosted link shortener

Usage:
  kurz serve [flags]      start the service (the default command: kurz [flags])
  kurz migrate [flags]    apply database migrations and exit
  kurz rotate-secret [--db PATH]
                          replace the token key kept in the database (every token becomes invalid)
  kurz copy --from SOURCE --to TARGET
                          copy everything from one database into an empty one, then verify
  kurz healthcheck [--host H] [--port N] [--timeout SECS]
                          exit 0 when the kurz listening there answers GET /health "Healthy"
${Object.entries(TOOL_SPECS)
  .map(([name, spec]) => `  kurz ${name.padEnd(18)} ${spec.synopsis}`)
  .join('\n')}
  kurz --help | --version
  kurz COMMAND --help     what a command takes

Flags (each also read from the environment variable shown):
  --mode accounts|open      KURZ_MODE        accounts (with users and tokens) or open (default accounts)
  --host H                  KURZ_HOST        listen address (default 0.0.0.0)
  --port N                  PORT             listen port; 0 picks a free one (default 3000)
  --db PATH|URL             DATABASE_URL     SQLite file, created with its folder (default ./data/kurz.db),
                                             or postgres://user:password@host:5432/database for PostgreSQL
  --db-pool N               KURZ_DB_POOL     PostgreSQL connections per instance (default 10)
  --base-url URL            KURZ_BASE_URL    public address of short links (default http://localhost:PORT)
  --jwt-secret S            KURZ_JWT_SECRET  token signing key, 32+ characters (default: generated once, kept in the database)
  --jwt-secret-file PATH    KURZ_JWT_SECRET_FILE  read the token signing key from a file (keeps it out of ps)
  --token-ttl SECONDS       KURZ_TOKEN_TTL   token lifetime (default 86400)
  --durability normal|full  KURZ_DURABILITY  survive process crashes, or power loss too (default normal)
  --cache-size N            KURZ_CACHE_SIZE  links the redirect keeps in memory (default 50000, ~800 bytes each)
  --admin-token T           KURZ_ADMIN_TOKEN link management token of open mode, 32+ characters (default none:
                                             editing and deleting links is refused in open mode)
  --admin-token-file PATH   KURZ_ADMIN_TOKEN_FILE  read the admin token from a file (keeps it out of ps)
  --click-retention-days N  KURZ_CLICK_RETENTION_DAYS  days raw click records are kept; daily stats stay
                                             (default 0: forever)
  --registration open|closed  KURZ_REGISTRATION  whether anyone may register, or only accounts made with
                                             kurz user add exist (default open)

Abuse limits (N/WINDOW, WINDOW one of s, min, h, d, optionally with a number: 30/10min):
  --rate-limits on|off      KURZ_RATE_LIMITS        every rate limit below on or off (default on)
  --rate-login R            KURZ_RATE_LOGIN         failed logins per client address (default 30/10min)
  --rate-login-email R      KURZ_RATE_LOGIN_EMAIL   failed logins per e-mail, from any address (default 10/15min)
  --rate-register R         KURZ_RATE_REGISTER      registrations per client address (default 30/h)
  --rate-create R           KURZ_RATE_CREATE        links created per user, or per address in open mode (default 1000/h)
  --rate-unknown-code R     KURZ_RATE_UNKNOWN_CODE  requests for unknown codes per client address (default 300/min)
  --rate-link-password R    KURZ_RATE_LINK_PASSWORD wrong passwords per protected link and client address (default 10/15min)
  --max-links-per-user N    KURZ_MAX_LINKS_PER_USER links one account may own; 0 = no limit (default 100000)
  --min-free-disk SIZE      KURZ_MIN_FREE_DISK      free space the database's disk keeps; below it writes answer 503 (default 64MiB)

Network and browsers:
  --trusted-proxies LIST    KURZ_TRUSTED_PROXIES    addresses/CIDRs of reverse proxies whose X-Forwarded-For/Forwarded is believed (default none)
  --cors-origins LIST       KURZ_CORS_ORIGINS       origins whose pages may call the API, e.g. https://app.example (default none)
  --blocklist FILE          KURZ_BLOCKLIST          target domains refused (one a line, with subdomains); reloaded on SIGHUP
  --shutdown-timeout SECS   KURZ_SHUTDOWN_TIMEOUT   how long shutdown waits for open requests (default 10)

Webhooks:
  --webhook-allow-private on|off  KURZ_WEBHOOK_ALLOW_PRIVATE  let webhooks call http:// URLs and private,
                                             loopback and link-local addresses, e.g. a receiver at home (default off)

Metrics and logs:
  --metrics-token T         KURZ_METRICS_TOKEN      bearer token of GET /api/metrics (Prometheus), 32+ characters
                                                    (default none: no metrics, the path is 404)
  --metrics-token-file PATH KURZ_METRICS_TOKEN_FILE read the metrics token from a file (keeps it out of ps)
  --log-format text|json    KURZ_LOG_FORMAT         plain lines, or one JSON object a line (default text)
  --access-log on|off       KURZ_ACCESS_LOG         a line per request: method, path, status, duration (default off)
`;

/** Reads argv (without the executable) and the environment; throws ConfigError on bad input. */
export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Command {
  const args = [...argv];
  const word = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
  if (args.includes('--help') || args.includes('-h')) {
    return { kind: 'help', usage: helpFor(word) };
  }
  if (args.includes('--version') || args.includes('-v')) return { kind: 'version' };

  if (word === 'copy') return parseCopy(args.slice(1), env);
  if (word === 'healthcheck') return parseHealthcheck(args.slice(1), env);
  if (word !== undefined && word in TOOL_SPECS) {
    return parseTool(word as ToolName, args.slice(1), env);
  }

  let kind: ConfiguredCommand = 'serve';
  if (word !== undefined) {
    args.shift();
    if (!(COMMANDS as readonly string[]).includes(word)) {
      const known = [...COMMANDS, 'copy', 'healthcheck', ...TOOLS].join(', ');
      throw new ConfigError(`unknown command "${word}" (expected ${known}; see --help)`);
    }
    kind = word as ConfiguredCommand;
  }
  return { kind, config: serverConfig(gather(args, env, SERVER_FLAG_ENVS)) };
}

export const SERVER_FLAG_ENVS = Object.fromEntries(
  Object.entries(FLAGS).map(([flag, spec]) => [flag, spec.env]),
);

/** The configuration the server's flags make, `given` by gather(). */
function serverConfig(given: Given): Config {
  oneWayOrTheOther(given, '--jwt-secret', '--jwt-secret-file');
  oneWayOrTheOther(given, '--metrics-token', '--metrics-token-file');
  const config = defaultConfig();
  for (const [flag, { label, value }] of given) {
    if (flag in FLAGS) apply(flag, label, value, config);
  }
  return config;
}

/** Two ways to give one secret: a flag beats the environment; two of a kind conflict. */
function oneWayOrTheOther(given: Given, flag: string, fileFlag: string): void {
  const key = given.get(flag);
  const keyFile = given.get(fileFlag);
  if (key === undefined || keyFile === undefined) return;
  const fromEnv = (g: { label: string }) => g.label.includes('(from ');
  if (fromEnv(key) && !fromEnv(keyFile)) given.delete(flag);
  else if (fromEnv(keyFile) && !fromEnv(key)) given.delete(fileFlag);
  else throw new ConfigError(`${flag} and ${fileFlag} cannot both be given`);
}

/** The usage text of `kurz [WORD] --help`: one tool's, or the whole program's. */
function helpFor(word: string | undefined): string {
  const spec = word === undefined ? undefined : TOOL_SPECS[word as ToolName];
  if (spec !== undefined) return spec.usage;
  if (word === 'copy') return COPY_USAGE;
  if (word === 'healthcheck') return HEALTHCHECK_USAGE;
  return USAGE;
}

/**
 * `kurz TOOL [ARGS] [FLAGS]`: the tool's own flags (a switch takes no value) and
 * arguments, and the server's flags for the database it works on.
 */
function parseTool(
  name: ToolName,
  args: string[],
  env: Record<string, string | undefined>,
): Command {
  const spec = TOOL_SPECS[name];
  const positional: string[] = [];
  const rest: string[] = [];
  const options: ToolOptions = new Map();
  for (const [flag, { env: variable, value }] of Object.entries(spec.flags)) {
    const fromEnv = variable === undefined ? undefined : env[variable];
    if (fromEnv !== undefined && fromEnv !== '') options.set(flag, value ? fromEnv : true);
  }
  while (args.length > 0) {
    const arg = args.shift() as string;
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const own = spec.flags[flag];
    if (own === undefined) {
      if (!(flag in FLAGS))
        throw new ConfigError(`unknown flag ${flag} for ${name} (see kurz ${name} --help)`);
      rest.push(arg);
      if (eq === -1 && args.length > 0) rest.push(args.shift() as string);
      continue;
    }
    if (!own.value) {
      if (eq !== -1) throw new ConfigError(`${flag} takes no value`);
      options.set(flag, true);
      continue;
    }
    const value = eq === -1 ? args.shift() : arg.slice(eq + 1);
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    options.set(flag, value);
  }
  const { min, max, what } = spec.args;
  if (positional.length < min || positional.length > max) {
    throw new ConfigError(`${name} needs ${what} (see kurz ${name} --help)`);
  }
  const config = serverConfig(gather(rest, env, SERVER_FLAG_ENVS, name));
  return { kind: name, config, args: positional, options };
}

type Given = Map<string, { label: string; value: string }>;

/**
 * The values given for `flags` (each flag with its environment variable): the
 * environment first, then flags over it; the last value given for a flag wins. Each
 * value keeps the label that names where it came from in a message.
 */
function gather(
  args: string[],
  env: Record<string, string | undefined>,
  flags: Record<string, string>,
  command?: string,
): Given {
  const given: Given = new Map();
  for (const [flag, name] of Object.entries(flags)) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      given.set(flag, { label: `${flag} (from ${name})`, value });
    }
  }
  while (args.length > 0) {
    const arg = args.shift() as string;
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (!(flag in flags)) {
      throw new ConfigError(`unknown flag ${flag}${command ? ` for ${command}` : ''} (see --help)`);
    }
    const value = eq === -1 ? args.shift() : arg.slice(eq + 1);
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    given.set(flag, { label: flag, value });
  }
  return given;
}

function apply(flag: string, label: string, value: string, config: Config): void {
  try {
    FLAGS[flag]?.parse(value, config);
  } catch (problem) {
    if (typeof problem !== 'string') throw problem;
    throw new ConfigError(`${label} ${problem}`);
  }
}

const COPY_USAGE = `Usage:
  kurz copy --from SOURCE --to TARGET

Copies every user, link, click record and setting (the token key too, so tokens stay
valid) from one database into an empty one, then verifies the copy. SOURCE and TARGET
are SQLite paths or postgres:// URLs. Copying from a kurz that is running copies its
state when the copy starts; stop it first for a copy that misses nothing.

Flags:
  --from SOURCE   KURZ_COPY_FROM   the database to copy (the variable keeps a password out of ps)
  --to TARGET     KURZ_COPY_TO     the empty database to copy into
`;

/** Flags of `kurz copy` and their environment variables; no other flag applies to it. */
const COPY_FLAGS = { '--from': 'KURZ_COPY_FROM', '--to': 'KURZ_COPY_TO' } as const;

function parseCopy(args: string[], env: Record<string, string | undefined>): Command {
  const given = gather(args, env, COPY_FLAGS, 'copy');
  const database = (flag: keyof typeof COPY_FLAGS) => {
    const entry = given.get(flag);
    if (entry === undefined) {
      throw new ConfigError(
        `copy needs ${flag} (or ${COPY_FLAGS[flag]}): a SQLite path or a postgres:// URL`,
      );
    }
    try {
      return parseDatabase(entry.value);
    } catch (problem) {
      if (typeof problem !== 'string') throw problem;
      throw new ConfigError(`${entry.label} ${problem}`);
    }
  };
  return { kind: 'copy', config: defaultConfig(), from: database('--from'), to: database('--to') };
}

const HEALTHCHECK_USAGE = `Usage:
  kurz healthcheck [--host H] [--port N] [--timeout SECS]

Asks the kurz listening at H:N for GET /health: exits 0 when it answers 200 "Healthy",
else 1 with one line on stderr saying why (the connection refused, no answer in time,
503 "Database unavailable", …). It reads --host and --port, and their variables, as kurz
serve does, so that with the server's environment (a container's) it finds the server;
one listening on every address (0.0.0.0 or ::) is asked on loopback (127.0.0.1 or ::1).
It opens no database and reads no other setting: it is the container image's
HEALTHCHECK, cheap enough to run every few seconds.

Flags:
  --host H          KURZ_HOST                 the address kurz listens on (default 0.0.0.0)
  --port N          PORT                      the port it listens on (default 3000)
  --timeout SECS    KURZ_HEALTHCHECK_TIMEOUT  how long to wait for the answer (default 3)
`;

/** Flags of `kurz healthcheck`: two of the server's (the same variables) and its own. */
const HEALTHCHECK_FLAGS = {
  '--host': 'KURZ_HOST',
  '--port': 'PORT',
  '--timeout': 'KURZ_HEALTHCHECK_TIMEOUT',
} as const;

/**
 * Seconds the health check waits by default: less than the container image's HEALTHCHECK
 * --timeout, so that a slow answer is said by kurz rather than cut off by the runtime.
 */
const HEALTHCHECK_TIMEOUT_S = 3;

function parseHealthcheck(args: string[], env: Record<string, string | undefined>): Command {
  const given = gather(args, env, HEALTHCHECK_FLAGS, 'healthcheck');
  // Only --host and --port: the server's other variables (a secret file, the blocklist)
  // are nothing to a health check, and it must not fail on them.
  const server = defaultConfig();
  for (const flag of ['--host', '--port'] as const) {
    const entry = given.get(flag);
    if (entry !== undefined) apply(flag, entry.label, entry.value, server);
  }
  if (server.port === 0) {
    const label = given.get('--port')?.label as string;
    throw new ConfigError(
      `${label} must be the port kurz listens on, not 0 (which picks a free one)`,
    );
  }
  let seconds = HEALTHCHECK_TIMEOUT_S;
  const timeout = given.get('--timeout');
  try {
    if (timeout !== undefined) {
      seconds = wholeNumber(timeout.value, 1, 60, 'a number of seconds from 1 to 60');
    }
  } catch (problem) {
    throw new ConfigError(`${timeout?.label} ${problem}`);
  }
  return { kind: 'healthcheck', host: server.host, port: server.port, timeoutMs: seconds * 1000 };
}
