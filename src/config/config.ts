// The one typed configuration of kurz, built from flags and environment at start-up,
// validated once and passed in; nothing reads process.env anywhere else.

import type { Blocklist } from '../domain/targets.ts';

export type Mode = 'accounts' | 'open';
export type Durability = 'normal' | 'full';
export type Registration = 'open' | 'closed';
export type LogFormat = 'text' | 'json';

/**
 * Sign-in through an OpenID Provider (accounts mode). `issuer` undefined: no OIDC; the
 * rest is checked against it at start-up (checkSignIn in oidc-flags.ts).
 */
export interface OidcSettings {
  /** The provider's issuer URL, as its discovery document names it. */
  issuer: string | undefined;
  clientId: string | undefined;
  /** undefined: a public client (PKCE alone). */
  clientSecret: string | undefined;
  /** The sign-in button's label. */
  name: string;
  scopes: string[];
  /** E-mail domains (lower case) that may sign in through the provider; empty: any. */
  allowedDomains: string[];
  /** The claim whose value makes an admin (`groups` = `kurz-admins`); undefined: none. */
  adminClaim: { name: string; value: string } | undefined;
}

/**
 * HTTPS served by kurz itself (tls-flags.ts). `off`: plain HTTP on --port. `auto`:
 * certificates from an ACME server for every domain kurz serves. `files`: the
 * certificate and key the operator brings (--tls-cert, --tls-key), read again on SIGHUP.
 */
export interface TlsSettings {
  mode: 'off' | 'auto' | 'files';
  /** The ACME account's contact; undefined: an account without one. */
  acmeEmail: string | undefined;
  /** The ACME server's directory URL. */
  acmeDirectory: string;
  /** A PEM file of the CA that signs the ACME server's own certificate (a private server). */
  acmeCaFile: string | undefined;
  /** PEM files of the certificate (with its chain) and of its private key (mode `files`). */
  certFile: string | undefined;
  keyFile: string | undefined;
  /** Where HTTPS is served; 0 picks a free port. */
  httpsPort: number;
  /** Where plain HTTP answers ACME's HTTP-01 challenge and redirects to HTTPS; undefined: not at all. */
  httpPort: number | undefined;
  /** Strict-Transport-Security's max-age on HTTPS answers; 0 sends none. */
  hstsMaxAgeSeconds: number;
}

/** At most `count` requests per `windowMs`, refilled evenly (a token bucket of `count`). */
export interface RateLimit {
  count: number;
  windowMs: number;
}

/** The abuse limits, each kept in memory per key (a client address, an e-mail or a user). */
export interface RateLimits {
  /** Failed logins per client address. */
  login: RateLimit;
  /** Failed logins per e-mail, from any address (stops a slow, distributed guesser). */
  loginEmail: RateLimit;
  /** Registrations per client address. */
  register: RateLimit;
  /** Creates per user (accounts mode) or per client address (open mode). */
  create: RateLimit;
  /** Requests for codes that have no link, per client address. */
  unknownCode: RateLimit;
  /** Wrong passwords for a protected link, per link and client address. */
  linkPassword: RateLimit;
  /** Reports of abusive links (POST /api/reports), per client address. */
  report: RateLimit;
}

export interface Config {
  mode: Mode;
  host: string;
  port: number;
  /** SQLite file path (or `:memory:`), or a postgres:// / postgresql:// URL. */
  db: string;
  /** PostgreSQL connections per instance (the pool); unused with SQLite. */
  dbPool: number;
  /** Public address for short links; undefined means http://localhost:PORT once bound (https://localhost[:HTTPS-PORT] with --tls). */
  baseUrl: string | undefined;
  /** HMAC key for tokens (from --jwt-secret or --jwt-secret-file); undefined means kept in the database. */
  jwtSecret: string | undefined;
  tokenTtlSeconds: number;
  durability: Durability;
  /** Links the redirect keeps in memory (least recently used go first). */
  cacheSize: number;
  /** false turns every rate limit off (benchmarks, closed networks). */
  rateLimitsEnabled: boolean;
  rateLimits: RateLimits;
  /** Addresses and CIDR blocks of reverse proxies whose forwarding headers are believed. */
  trustedProxies: string[];
  /** The file of blocked target domains (one a line) and the list read from it; undefined: none. */
  blocklist: { path: string; list: Blocklist } | undefined;
  /** Origins (scheme://host[:port]) whose browsers may call the API cross-site. */
  corsOrigins: string[];
  /** Host names (canonical) besides its own under which a browser may write to kurz. */
  allowedHosts: string[];
  /** How long shutdown waits for open requests before closing their connections. */
  shutdownTimeoutMs: number;
  /** Links one user may own (accounts mode); 0 means no limit. */
  maxLinksPerUser: number;
  /** Free bytes the database's file system must keep; below it writes answer 503. */
  minFreeDiskBytes: number;
  /**
   * The bearer token that manages links in open mode (edit, delete); undefined: link
   * management is refused in open mode.
   */
  adminToken: string | undefined;
  /** Days raw click records are kept (daily rollups stay); 0 keeps them forever. */
  clickRetentionDays: number;
  /** Whether anyone may register (accounts mode); closed: only `kurz user add` makes accounts. */
  registration: Registration;
  /** Webhooks may call http:// URLs and private, loopback and link-local addresses. */
  webhookAllowPrivate: boolean;
  /** The bearer token of GET /api/metrics; undefined: no metrics (the path is 404). */
  metricsToken: string | undefined;
  /** Plain lines, or one JSON object a line. */
  logFormat: LogFormat;
  /** Sign-in through an OpenID Provider (accounts mode). */
  oidc: OidcSettings;
  /** false: register and password login answer 403; only the provider signs people in. */
  passwordLogin: boolean;
  /** One line per request answered (off by default). */
  accessLog: boolean;
  /**
   * Links of accounts younger than this many days answer the `+` page (with a Continue
   * button) in place of their redirect (accounts mode); 0: off.
   */
  newAccountInterstitialDays: number;
  /** HTTPS served by kurz itself. */
  tls: TlsSettings;
}

const MINUTE = 60_000;

export const DEFAULT_RATE_LIMITS: RateLimits = {
  login: { count: 30, windowMs: 10 * MINUTE },
  loginEmail: { count: 10, windowMs: 15 * MINUTE },
  register: { count: 30, windowMs: 60 * MINUTE },
  create: { count: 1000, windowMs: 60 * MINUTE },
  unknownCode: { count: 300, windowMs: MINUTE },
  linkPassword: { count: 10, windowMs: 15 * MINUTE },
  report: { count: 10, windowMs: 60 * MINUTE },
};

export const DEFAULTS = {
  mode: 'accounts',
  host: '0.0.0.0',
  port: 3000,
  db: './data/kurz.db',
  dbPool: 10,
  tokenTtlSeconds: 86_400,
  durability: 'normal',
  cacheSize: 50_000,
  rateLimitsEnabled: true,
  shutdownTimeoutMs: 10_000,
  maxLinksPerUser: 100_000,
  minFreeDiskBytes: 64 * 1024 * 1024,
  clickRetentionDays: 0,
  registration: 'open',
  webhookAllowPrivate: false,
  logFormat: 'text',
  accessLog: false,
  passwordLogin: true,
  newAccountInterstitialDays: 0,
} as const satisfies Partial<Config>;

/** Let's Encrypt's production directory, the default ACME server. */
export const LETS_ENCRYPT_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';

/** What the TLS flags hold when not given. */
export const TLS_DEFAULTS = {
  mode: 'off',
  acmeDirectory: LETS_ENCRYPT_DIRECTORY,
  httpsPort: 443,
  httpPort: 80,
  hstsMaxAgeSeconds: 31_536_000,
} as const;

/** What the OIDC flags hold when not given. */
export const OIDC_DEFAULTS = { name: 'Single sign-on', scopes: 'openid email profile' } as const;

/** A fresh, complete configuration with every default (lists and limits are new copies). */
export function defaultConfig(): Config {
  return {
    ...DEFAULTS,
    oidc: {
      issuer: undefined,
      clientId: undefined,
      clientSecret: undefined,
      name: OIDC_DEFAULTS.name,
      scopes: OIDC_DEFAULTS.scopes.split(' '),
      allowedDomains: [],
      adminClaim: undefined,
    },
    tls: {
      ...TLS_DEFAULTS,
      acmeEmail: undefined,
      acmeCaFile: undefined,
      certFile: undefined,
      keyFile: undefined,
    },
    baseUrl: undefined,
    jwtSecret: undefined,
    adminToken: undefined,
    metricsToken: undefined,
    rateLimits: structuredClone(DEFAULT_RATE_LIMITS),
    trustedProxies: [],
    blocklist: undefined,
    corsOrigins: [],
    allowedHosts: [],
  };
}

/** A flag or environment value that cannot be used; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
