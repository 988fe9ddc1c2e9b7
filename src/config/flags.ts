// The server's flags, in one table: each flag with its environment variable, the
// section and meaning `kurz --help` gives it, its default (taken from DEFAULTS, so
// that help, docs/configuration.md and the code cannot disagree) and the parser of
// its value. `kurz serve` and `kurz migrate` read them all; the tools read them too.

import { checked, type Given } from './args.ts';
import {
  type Config,
  ConfigError,
  DEFAULT_RATE_LIMITS,
  DEFAULTS,
  defaultConfig,
  type RateLimits,
} from './config.ts';
import { checkSignIn, OIDC_CALLBACK_PATH, SIGN_IN_FLAGS } from './oidc-flags.ts';
import { checkHttps, HTTPS_FLAGS } from './tls-flags.ts';
import {
  formatRate,
  formatSize,
  hostNames,
  list,
  oneOf,
  onOff,
  parseDatabase,
  parseRate,
  parseSize,
  parseTrustedProxies,
  readBlocklist,
  secret,
  secretFile,
  wholeNumber,
} from './values.ts';

/** Where `kurz --help` shows the redirect URI: the base URL given with --help replaces it. */
export const REDIRECT_URI_SHOWN = `{base_url}${OIDC_CALLBACK_PATH}`;

/** The groups of `kurz --help`, in its order, with their headings. */
export const SECTIONS = {
  general: 'Flags (each also read from the environment variable shown):',
  abuse: 'Abuse limits (N/WINDOW, WINDOW one of s, min, h, d, optionally with a number: 30/10min):',
  network: 'Network and browsers:',
  webhooks: 'Webhooks:',
  metrics: 'Metrics and logs:',
  https: 'HTTPS without a proxy (kurz serves it itself):',
  signIn: `Sign-in (accounts mode). The redirect URI to register at the OpenID Provider:\n  ${REDIRECT_URI_SHOWN}`,
} as const;

export interface ServerFlag {
  flag: string;
  /** What the value looks like: `N`, `accounts|open`. */
  value: string;
  env: string;
  section: keyof typeof SECTIONS;
  /** What it does, in a line of --help (which adds the default). */
  meaning: string;
  /** The default as the flag would be given, or what holds without it; undefined: nothing to say. */
  default?: string;
  /** Parses and checks a value into `config`; throws a message (without the flag's name) when bad. */
  parse(value: string, config: Config): void;
}

const onOrOff = (on: boolean) => (on ? 'on' : 'off');

function rateFlag(flag: string, env: string, key: keyof RateLimits, meaning: string): ServerFlag {
  return {
    flag,
    value: 'R',
    env,
    section: 'abuse',
    meaning,
    default: formatRate(DEFAULT_RATE_LIMITS[key]),
    parse: (v, c) => {
      c.rateLimits[key] = parseRate(v);
    },
  };
}

/**
 * Every server flag. The order is the order values from the environment are checked
 * in (the first bad one is reported); --help groups them by section in this order.
 */
export const SERVER_FLAGS: readonly ServerFlag[] = [
  {
    flag: '--mode',
    value: 'accounts|open',
    env: 'KURZ_MODE',
    section: 'general',
    meaning: 'accounts (with users and tokens) or open',
    default: DEFAULTS.mode,
    parse: (v, c) => {
      c.mode = oneOf(['accounts', 'open'] as const, v);
    },
  },
  {
    flag: '--host',
    value: 'H',
    env: 'KURZ_HOST',
    section: 'general',
    meaning: 'listen address',
    default: DEFAULTS.host,
    parse: (v, c) => {
      if (v === '' || /\s/.test(v)) throw `must be a host name or address (got "${v}")`;
      c.host = v;
    },
  },
  {
    flag: '--port',
    value: 'N',
    env: 'PORT',
    section: 'general',
    meaning: 'listen port; 0 picks a free one',
    default: String(DEFAULTS.port),
    parse: (v, c) => {
      c.port = wholeNumber(v, 0, 65_535, 'a port from 0 to 65535');
    },
  },
  {
    flag: '--db',
    value: 'PATH|URL',
    env: 'DATABASE_URL',
    section: 'general',
    meaning:
      'SQLite file, created with its folder, or postgres://user:password@host:5432/database for PostgreSQL',
    default: DEFAULTS.db,
    parse: (v, c) => {
      c.db = parseDatabase(v);
    },
  },
  {
    flag: '--db-pool',
    value: 'N',
    env: 'KURZ_DB_POOL',
    section: 'general',
    meaning: 'PostgreSQL connections per instance',
    default: String(DEFAULTS.dbPool),
    parse: (v, c) => {
      c.dbPool = wholeNumber(v, 1, 1000, 'a number of connections from 1 to 1000');
    },
  },
  {
    flag: '--base-url',
    value: 'URL',
    env: 'KURZ_BASE_URL',
    section: 'general',
    meaning: 'public address of short links',
    default: 'http://localhost:PORT (https://localhost:HTTPS-PORT serving HTTPS)',
    parse: (v, c) => {
      const url = URL.parse(v);
      if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) {
        throw `must be an http:// or https:// address without query (got "${v}")`;
      }
      c.baseUrl = v.replace(/\/+$/, '');
    },
  },
  {
    flag: '--jwt-secret',
    value: 'S',
    env: 'KURZ_JWT_SECRET',
    section: 'general',
    meaning: 'token signing key, 32+ characters',
    default: 'generated once, kept in the database',
    parse: (v, c) => {
      c.jwtSecret = secret(v);
    },
  },
  {
    flag: '--jwt-secret-file',
    value: 'PATH',
    env: 'KURZ_JWT_SECRET_FILE',
    section: 'general',
    meaning: 'read the token signing key from a file (keeps it out of ps)',
    parse: (v, c) => {
      c.jwtSecret = secretFile(v);
    },
  },
  {
    flag: '--token-ttl',
    value: 'SECONDS',
    env: 'KURZ_TOKEN_TTL',
    section: 'general',
    meaning: 'token lifetime',
    default: String(DEFAULTS.tokenTtlSeconds),
    parse: (v, c) => {
      c.tokenTtlSeconds = wholeNumber(v, 1, 31_622_400, 'a number of seconds from 1 to 31622400');
    },
  },
  {
    flag: '--cache-size',
    value: 'N',
    env: 'KURZ_CACHE_SIZE',
    section: 'general',
    meaning: 'links the redirect keeps in memory, ~800 bytes each',
    default: String(DEFAULTS.cacheSize),
    parse: (v, c) => {
      c.cacheSize = wholeNumber(v, 1, 10_000_000, 'a number of links from 1 to 10000000');
    },
  },
  {
    flag: '--durability',
    value: 'normal|full',
    env: 'KURZ_DURABILITY',
    section: 'general',
    meaning: 'survive process crashes, or power loss too',
    default: DEFAULTS.durability,
    parse: (v, c) => {
      c.durability = oneOf(['normal', 'full'] as const, v);
    },
  },
  {
    flag: '--rate-limits',
    value: 'on|off',
    env: 'KURZ_RATE_LIMITS',
    section: 'abuse',
    meaning: 'every rate limit below on or off',
    default: onOrOff(DEFAULTS.rateLimitsEnabled),
    parse: (v, c) => {
      c.rateLimitsEnabled = onOff(v);
    },
  },
  rateFlag('--rate-login', 'KURZ_RATE_LOGIN', 'login', 'failed logins per client address'),
  rateFlag(
    '--rate-login-email',
    'KURZ_RATE_LOGIN_EMAIL',
    'loginEmail',
    'failed logins per e-mail, from any address',
  ),
  rateFlag('--rate-register', 'KURZ_RATE_REGISTER', 'register', 'registrations per client address'),
  rateFlag(
    '--rate-create',
    'KURZ_RATE_CREATE',
    'create',
    'links created per user, or per address in open mode',
  ),
  rateFlag(
    '--rate-unknown-code',
    'KURZ_RATE_UNKNOWN_CODE',
    'unknownCode',
    'requests for unknown codes per client address',
  ),
  rateFlag(
    '--rate-link-password',
    'KURZ_RATE_LINK_PASSWORD',
    'linkPassword',
    'wrong passwords per protected link and client address',
  ),
  rateFlag(
    '--rate-report',
    'KURZ_RATE_REPORT',
    'report',
    'reports of abusive links (POST /api/reports) per client address',
  ),
  {
    flag: '--admin-token',
    value: 'T',
    env: 'KURZ_ADMIN_TOKEN',
    section: 'general',
    meaning:
      "the operator's bearer token, 32+ characters: manages the short domains and administers the instance (/api/admin) in both modes and, in open mode, edits and deletes links; without it, these are refused (in accounts mode admin users still administer)",
    default: 'none',
    parse: (v, c) => {
      c.adminToken = secret(v);
    },
  },
  {
    flag: '--admin-token-file',
    value: 'PATH',
    env: 'KURZ_ADMIN_TOKEN_FILE',
    section: 'general',
    meaning: 'read the admin token from a file (keeps it out of ps)',
    parse: (v, c) => {
      c.adminToken = secretFile(v);
    },
  },
  {
    flag: '--registration',
    value: 'open|closed',
    env: 'KURZ_REGISTRATION',
    section: 'general',
    meaning: 'whether anyone may register, or only accounts made with kurz user add exist',
    default: DEFAULTS.registration,
    parse: (v, c) => {
      c.registration = oneOf(['open', 'closed'] as const, v);
    },
  },
  {
    flag: '--metrics-token',
    value: 'T',
    env: 'KURZ_METRICS_TOKEN',
    section: 'metrics',
    meaning:
      'bearer token of GET /api/metrics (Prometheus), 32+ characters; without it, no metrics (the path is 404)',
    default: 'none',
    parse: (v, c) => {
      c.metricsToken = secret(v);
    },
  },
  {
    flag: '--metrics-token-file',
    value: 'PATH',
    env: 'KURZ_METRICS_TOKEN_FILE',
    section: 'metrics',
    meaning: 'read the metrics token from a file (keeps it out of ps)',
    parse: (v, c) => {
      c.metricsToken = secretFile(v);
    },
  },
  {
    flag: '--log-format',
    value: 'text|json',
    env: 'KURZ_LOG_FORMAT',
    section: 'metrics',
    meaning: 'plain lines, or one JSON object a line',
    default: DEFAULTS.logFormat,
    parse: (v, c) => {
      c.logFormat = oneOf(['text', 'json'] as const, v);
    },
  },
  {
    flag: '--access-log',
    value: 'on|off',
    env: 'KURZ_ACCESS_LOG',
    section: 'metrics',
    meaning: 'a line per request: method, path, status, duration',
    default: onOrOff(DEFAULTS.accessLog),
    parse: (v, c) => {
      c.accessLog = onOff(v);
    },
  },
  {
    flag: '--click-retention-days',
    value: 'N',
    env: 'KURZ_CLICK_RETENTION_DAYS',
    section: 'general',
    meaning: 'days raw click records are kept, 0 = forever; daily stats stay',
    default: String(DEFAULTS.clickRetentionDays),
    parse: (v, c) => {
      c.clickRetentionDays = wholeNumber(
        v,
        0,
        36_500,
        'a number of days (0 keeps records forever)',
      );
    },
  },
  {
    flag: '--trusted-proxies',
    value: 'LIST',
    env: 'KURZ_TRUSTED_PROXIES',
    section: 'network',
    meaning: 'addresses/CIDRs of reverse proxies whose X-Forwarded-For/Forwarded is believed',
    default: 'none',
    parse: (v, c) => {
      c.trustedProxies = list(v);
      parseTrustedProxies(c.trustedProxies);
    },
  },
  {
    flag: '--blocklist',
    value: 'FILE',
    env: 'KURZ_BLOCKLIST',
    section: 'network',
    meaning: 'target domains refused (one a line, with subdomains); reloaded on SIGHUP',
    default: 'none',
    parse: (v, c) => {
      if (v === '') throw 'must be a file path';
      c.blocklist = { path: v, list: readBlocklist(v) };
    },
  },
  {
    flag: '--cors-origins',
    value: 'LIST',
    env: 'KURZ_CORS_ORIGINS',
    section: 'network',
    meaning: 'origins whose pages may call the API, e.g. https://app.example',
    default: 'none',
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
  {
    flag: '--allowed-hosts',
    value: 'LIST',
    env: 'KURZ_ALLOWED_HOSTS',
    section: 'network',
    meaning:
      "further host names browsers may use kurz under, e.g. kurz.lan (its base URL's host, IP addresses and localhost always work)",
    default: 'none',
    parse: (v, c) => {
      c.allowedHosts = hostNames(v);
    },
  },
  {
    flag: '--shutdown-timeout',
    value: 'SECS',
    env: 'KURZ_SHUTDOWN_TIMEOUT',
    section: 'network',
    meaning: 'how long shutdown waits for open requests',
    default: String(DEFAULTS.shutdownTimeoutMs / 1000),
    parse: (v, c) => {
      c.shutdownTimeoutMs = 1000 * wholeNumber(v, 0, 3600, 'a number of seconds from 0 to 3600');
    },
  },
  {
    flag: '--max-links-per-user',
    value: 'N',
    env: 'KURZ_MAX_LINKS_PER_USER',
    section: 'abuse',
    meaning: 'links one account may own; 0 = no limit',
    default: String(DEFAULTS.maxLinksPerUser),
    parse: (v, c) => {
      c.maxLinksPerUser = wholeNumber(v, 0, 1e12, 'a number of links (0 for no limit)');
    },
  },
  {
    flag: '--new-account-interstitial',
    value: 'DAYS',
    env: 'KURZ_NEW_ACCOUNT_INTERSTITIAL',
    section: 'abuse',
    meaning:
      'accounts mode: links of accounts younger than DAYS show their `+` page (target, age, a Continue button) instead of redirecting; 0 = off',
    default: String(DEFAULTS.newAccountInterstitialDays),
    parse: (v, c) => {
      c.newAccountInterstitialDays = wholeNumber(v, 0, 3650, 'a number of days from 0 to 3650');
    },
  },
  {
    flag: '--min-free-disk',
    value: 'SIZE',
    env: 'KURZ_MIN_FREE_DISK',
    section: 'abuse',
    meaning: "free space the database's disk keeps; below it writes answer 503",
    default: formatSize(DEFAULTS.minFreeDiskBytes),
    parse: (v, c) => {
      c.minFreeDiskBytes = parseSize(v);
    },
  },
  {
    flag: '--webhook-allow-private',
    value: 'on|off',
    env: 'KURZ_WEBHOOK_ALLOW_PRIVATE',
    section: 'webhooks',
    meaning:
      'let webhooks call http:// URLs and private, loopback and link-local addresses, e.g. a receiver at home',
    default: onOrOff(DEFAULTS.webhookAllowPrivate),
    parse: (v, c) => {
      c.webhookAllowPrivate = onOff(v);
    },
  },
  ...SIGN_IN_FLAGS,
  ...HTTPS_FLAGS,
];

const BY_FLAG = new Map(SERVER_FLAGS.map((spec) => [spec.flag, spec]));

/** Each server flag's environment variable. */
export const SERVER_FLAG_ENVS: Record<string, string> = Object.fromEntries(
  SERVER_FLAGS.map(({ flag, env }) => [flag, env]),
);

/** Sets `flag`'s value into `config`; a bad value is a ConfigError naming `label`. */
export function applyFlag(flag: string, label: string, value: string, config: Config): void {
  const spec = BY_FLAG.get(flag);
  if (spec !== undefined) checked(label, () => spec.parse(value, config));
}

/** The configuration the server's flags make, `given` by gather(). */
export function serverConfig(given: Given): Config {
  oneWayOrTheOther(given, '--jwt-secret', '--jwt-secret-file');
  oneWayOrTheOther(given, '--metrics-token', '--metrics-token-file');
  oneWayOrTheOther(given, '--oidc-client-secret', '--oidc-client-secret-file');
  const config = defaultConfig();
  for (const [flag, { label, value }] of given) applyFlag(flag, label, value, config);
  checkSignIn(given, config);
  checkHttps(given, config);
  return config;
}

/** Two ways to give one secret: a flag beats the environment; two of a kind conflict. */
function oneWayOrTheOther(given: Given, flag: string, fileFlag: string): void {
  const key = given.get(flag);
  const keyFile = given.get(fileFlag);
  if (key === undefined || keyFile === undefined) return;
  if (key.fromEnv && !keyFile.fromEnv) given.delete(flag);
  else if (keyFile.fromEnv && !key.fromEnv) given.delete(fileFlag);
  else throw new ConfigError(`${flag} and ${fileFlag} cannot both be given`);
}
