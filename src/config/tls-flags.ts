// The HTTPS flags: kurz serving HTTPS itself, with certificates from an ACME server
// (--tls auto) or brought by the operator (--tls-cert, --tls-key). Rows of the one flag
// table (flags.ts spreads them in), and the checks that need several of them at once.

import { isIP } from 'node:net';
import type { Given } from './args.ts';
import { type Config, ConfigError, TLS_DEFAULTS } from './config.ts';
import { oneOf, readFlagFile, wholeNumber } from './values.ts';

/** The flags that mean something only with --tls auto. */
const NEEDS_AUTO = ['--acme-email', '--acme-directory', '--acme-ca-file'];

/** The flags that mean something only when kurz serves HTTPS. */
const NEEDS_TLS = ['--https-port', '--http-port', '--hsts-max-age'];

/** A contact address for the ACME account: one address, no spaces, as ACME's mailto: takes it. */
function parseEmail(value: string): string {
  if (!/^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(value)) {
    throw `must be an e-mail address such as admin@example.com (got "${value}")`;
  }
  return value;
}

/** An ACME directory URL: https (http only on this machine, as for a test server), no query. */
function parseDirectory(value: string): string {
  const url = URL.parse(value);
  const local =
    url?.protocol === 'http:' && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/.test(url.hostname);
  if (!url || !(url.protocol === 'https:' || local) || url.hash || url.username) {
    throw `must be the ACME server's https:// directory URL (got "${value}")`;
  }
  return value;
}

/** A file that must be readable now (its contents are read again where they are used). */
function readableFile(path: string): string {
  readFlagFile(path);
  return path;
}

const port = (v: string) => wholeNumber(v, 0, 65_535, 'a port from 0 to 65535');

/** A row of the flag table (flags.ts's ServerFlag), in the HTTPS section of --help. */
interface HttpsFlag {
  flag: string;
  value: string;
  env: string;
  section: 'https';
  meaning: string;
  default?: string;
  parse(value: string, config: Config): void;
}

export const HTTPS_FLAGS: readonly HttpsFlag[] = [
  {
    flag: '--tls',
    value: 'off|auto',
    env: 'KURZ_TLS',
    section: 'https',
    meaning:
      "auto: serve HTTPS with certificates kurz obtains and renews from an ACME server (Let's Encrypt) for --base-url's domain and every short domain; needs ports 80 and 443 reachable from the internet",
    default: `${TLS_DEFAULTS.mode} (HTTPS from files when --tls-cert is given)`,
    parse: (v, c) => {
      c.tls.mode = oneOf(['off', 'auto'] as const, v);
    },
  },
  {
    flag: '--acme-email',
    value: 'EMAIL',
    env: 'KURZ_ACME_EMAIL',
    section: 'https',
    meaning: "the ACME account's contact, told of problems with its certificates",
    default: 'none',
    parse: (v, c) => {
      c.tls.acmeEmail = parseEmail(v);
    },
  },
  {
    flag: '--acme-directory',
    value: 'URL',
    env: 'KURZ_ACME_DIRECTORY',
    section: 'https',
    meaning: "the ACME server's directory URL, e.g. Let's Encrypt's staging server to try things",
    default: TLS_DEFAULTS.acmeDirectory,
    parse: (v, c) => {
      c.tls.acmeDirectory = parseDirectory(v);
    },
  },
  {
    flag: '--acme-ca-file',
    value: 'PATH',
    env: 'KURZ_ACME_CA_FILE',
    section: 'https',
    meaning:
      "a PEM file of the CA to trust for the ACME server's own HTTPS (a private ACME server)",
    default: 'the system CAs',
    parse: (v, c) => {
      c.tls.acmeCaFile = readableFile(v);
    },
  },
  {
    flag: '--tls-cert',
    value: 'PATH',
    env: 'KURZ_TLS_CERT',
    section: 'https',
    meaning: 'serve HTTPS with this PEM certificate (its chain after it); read again on SIGHUP',
    default: 'none',
    parse: (v, c) => {
      c.tls.certFile = readableFile(v);
    },
  },
  {
    flag: '--tls-key',
    value: 'PATH',
    env: 'KURZ_TLS_KEY',
    section: 'https',
    meaning: "--tls-cert's private key, a PEM file; read again on SIGHUP",
    default: 'none',
    parse: (v, c) => {
      c.tls.keyFile = readableFile(v);
    },
  },
  {
    flag: '--https-port',
    value: 'N',
    env: 'KURZ_HTTPS_PORT',
    section: 'https',
    meaning: 'where HTTPS is served; 0 picks a free one',
    default: String(TLS_DEFAULTS.httpsPort),
    parse: (v, c) => {
      c.tls.httpsPort = port(v);
    },
  },
  {
    flag: '--http-port',
    value: 'N|off',
    env: 'KURZ_HTTP_PORT',
    section: 'https',
    meaning:
      "where plain HTTP answers ACME's challenge and sends everything else to HTTPS (308 for the API, 301 for pages); off: not at all (not with --tls auto)",
    default: String(TLS_DEFAULTS.httpPort),
    parse: (v, c) => {
      c.tls.httpPort = v === 'off' ? undefined : port(v);
    },
  },
  {
    flag: '--hsts-max-age',
    value: 'SECONDS',
    env: 'KURZ_HSTS_MAX_AGE',
    section: 'https',
    meaning: 'Strict-Transport-Security max-age sent on HTTPS answers; 0 sends none',
    default: String(TLS_DEFAULTS.hstsMaxAgeSeconds),
    parse: (v, c) => {
      c.tls.hstsMaxAgeSeconds = wholeNumber(v, 0, 63_072_000, 'a number of seconds up to 63072000');
    },
  },
];

/** The rules between the HTTPS flags, the base URL and --port, checked once all are read. */
export function checkHttps(given: Given, config: Config): void {
  const label = (flag: string) => given.get(flag)?.label ?? flag;
  const { tls } = config;
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    const [has, lacks] =
      tls.certFile === undefined ? ['--tls-key', '--tls-cert'] : ['--tls-cert', '--tls-key'];
    throw new ConfigError(`${label(has)} needs ${lacks}`);
  }
  if (tls.certFile !== undefined) {
    if (tls.mode === 'auto') {
      throw new ConfigError(
        `${label('--tls-cert')} cannot be given with --tls auto, which obtains its certificates itself`,
      );
    }
    tls.mode = 'files';
  }
  if (tls.mode !== 'auto') {
    const stray = NEEDS_AUTO.find((flag) => given.has(flag));
    if (stray !== undefined) throw new ConfigError(`${label(stray)} needs --tls auto`);
  }
  if (tls.mode === 'off') {
    const stray = NEEDS_TLS.find((flag) => given.has(flag));
    if (stray !== undefined) {
      throw new ConfigError(`${label(stray)} needs --tls auto, or --tls-cert and --tls-key`);
    }
    return;
  }
  if (given.has('--port')) {
    throw new ConfigError(
      `${label('--port')} is plain HTTP's port: serving HTTPS, kurz listens on --https-port and --http-port`,
    );
  }
  if (tls.mode !== 'auto') return;
  if (tls.httpPort === undefined) {
    throw new ConfigError(
      `${label('--http-port')} off leaves --tls auto no way to answer the ACME server's HTTP-01 challenge`,
    );
  }
  const base = config.baseUrl === undefined ? null : URL.parse(config.baseUrl);
  if (base === null || base.protocol !== 'https:') {
    throw new ConfigError(
      '--tls auto needs --base-url https://NAME: its domain is the one kurz obtains a certificate for',
    );
  }
  const name = base.hostname.replace(/^\[|\]$/g, '');
  if (isIP(name) !== 0 || !name.includes('.')) {
    throw new ConfigError(
      `--tls auto needs --base-url to name a public domain, such as https://s.example.com (got ${config.baseUrl})`,
    );
  }
}
