// The sign-in flags (accounts mode): an OpenID Provider to sign in through, and whether
// kurz's own passwords still work. Rows of the one flag table (flags.ts spreads them in),
// and the checks that need several of them at once, made when all are read.

import type { Given } from './args.ts';
import { type Config, ConfigError, DEFAULTS, OIDC_DEFAULTS } from './config.ts';
import { hostNames, onOff, readFlagFile } from './values.ts';

/** Where the provider sends people back to, under the base URL: the redirect URI to register. */
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';

/** The flags that mean something only with --oidc-issuer. */
const NEEDS_ISSUER = [
  '--oidc-client-id',
  '--oidc-client-secret',
  '--oidc-client-secret-file',
  '--oidc-name',
  '--oidc-scopes',
  '--oidc-allowed-domains',
  '--oidc-admin-claim',
];

/** Hosts a provider may be reached on over plain http: this machine only. */
const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** An issuer URL: https (http only on this machine, as for a provider in tests), no query. */
export function parseIssuer(value: string): string {
  const url = URL.parse(value);
  const secure =
    url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK.test(url.hostname));
  if (!url || !secure || url.search || url.hash || url.username || url.password) {
    throw `must be the provider's https:// issuer URL, without query (got "${value}")`;
  }
  return value;
}

/** `NAME=VALUE`: a claim and the value (or one of the values) that makes an admin. */
export function parseAdminClaim(value: string): { name: string; value: string } {
  const eq = value.indexOf('=');
  const name = value.slice(0, eq);
  const wanted = value.slice(eq + 1);
  if (eq <= 0 || wanted === '' || /\s/.test(name)) {
    throw `must be NAME=VALUE, such as groups=kurz-admins (got "${value}")`;
  }
  return { name, value: wanted };
}

/** A value that must be given: the client id, the client secret. */
function nonEmpty(value: string): string {
  if (value === '') throw 'must not be empty';
  return value;
}

/** A row of the flag table (flags.ts's ServerFlag), in the sign-in section of --help. */
interface SignInFlag {
  flag: string;
  value: string;
  env: string;
  section: 'signIn';
  meaning: string;
  default?: string;
  parse(value: string, config: Config): void;
}

export const SIGN_IN_FLAGS: readonly SignInFlag[] = [
  {
    flag: '--password-login',
    value: 'on|off',
    env: 'KURZ_PASSWORD_LOGIN',
    section: 'signIn',
    meaning:
      "kurz's own passwords (register and log in); off leaves only the provider (kurz user still works)",
    default: DEFAULTS.passwordLogin ? 'on' : 'off',
    parse: (v, c) => {
      c.passwordLogin = onOff(v);
    },
  },
  {
    flag: '--oidc-issuer',
    value: 'URL',
    env: 'KURZ_OIDC_ISSUER',
    section: 'signIn',
    meaning: 'the OpenID Provider to sign in through, e.g. https://auth.example.com',
    default: 'none',
    parse: (v, c) => {
      c.oidc.issuer = parseIssuer(v);
    },
  },
  {
    flag: '--oidc-client-id',
    value: 'ID',
    env: 'KURZ_OIDC_CLIENT_ID',
    section: 'signIn',
    meaning: "kurz's client id at the provider",
    parse: (v, c) => {
      c.oidc.clientId = nonEmpty(v);
    },
  },
  {
    flag: '--oidc-client-secret',
    value: 'S',
    env: 'KURZ_OIDC_CLIENT_SECRET',
    section: 'signIn',
    meaning: "kurz's client secret at the provider",
    default: 'none: a public client, with PKCE alone',
    parse: (v, c) => {
      c.oidc.clientSecret = nonEmpty(v);
    },
  },
  {
    flag: '--oidc-client-secret-file',
    value: 'PATH',
    env: 'KURZ_OIDC_CLIENT_SECRET_FILE',
    section: 'signIn',
    meaning: 'read the client secret from a file (keeps it out of ps)',
    parse: (v, c) => {
      c.oidc.clientSecret = nonEmpty(readFlagFile(v).replace(/\r?\n$/, ''));
    },
  },
  {
    flag: '--oidc-name',
    value: 'TEXT',
    env: 'KURZ_OIDC_NAME',
    section: 'signIn',
    meaning: 'the sign-in button\'s label, e.g. "Sign in with Authelia"',
    default: `"${OIDC_DEFAULTS.name}"`,
    parse: (v, c) => {
      const name = v.trim();
      if (name === '' || name.length > 60) throw 'must be 1 to 60 characters';
      c.oidc.name = name;
    },
  },
  {
    flag: '--oidc-scopes',
    value: 'LIST',
    env: 'KURZ_OIDC_SCOPES',
    section: 'signIn',
    meaning: 'scopes asked for, separated by spaces or commas; openid is always asked for',
    default: `"${OIDC_DEFAULTS.scopes}"`,
    parse: (v, c) => {
      const scopes = v.split(/[\s,]+/).filter((s) => s !== '');
      if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) {
        throw `must be scope names separated by spaces (got "${v}")`;
      }
      c.oidc.scopes = ['openid', ...scopes.filter((s) => s !== 'openid')];
    },
  },
  {
    flag: '--oidc-allowed-domains',
    value: 'LIST',
    env: 'KURZ_OIDC_ALLOWED_DOMAINS',
    section: 'signIn',
    meaning:
      'e-mail domains that may sign in through the provider (verified e-mails only), e.g. example.com; they may make accounts even with --registration closed',
    default: 'any',
    parse: (v, c) => {
      c.oidc.allowedDomains = hostNames(v);
      if (c.oidc.allowedDomains.length === 0) throw 'must name at least one domain';
    },
  },
  {
    flag: '--oidc-admin-claim',
    value: 'NAME=VALUE',
    env: 'KURZ_OIDC_ADMIN_CLAIM',
    section: 'signIn',
    meaning:
      'a claim (a string or a list) that makes an admin, e.g. groups=kurz-admins; checked at every sign-in through the provider, which grants or takes away the role',
    default: 'none',
    parse: (v, c) => {
      c.oidc.adminClaim = parseAdminClaim(v);
    },
  },
];

/** The rules between the sign-in flags and the mode, checked once all are read. */
export function checkSignIn(given: Given, config: Config): void {
  const label = (flag: string) => given.get(flag)?.label ?? flag;
  const { oidc } = config;
  if (oidc.issuer === undefined) {
    const stray = NEEDS_ISSUER.find((flag) => given.has(flag));
    if (stray !== undefined) throw new ConfigError(`${label(stray)} needs --oidc-issuer`);
    if (!config.passwordLogin) {
      throw new ConfigError(
        `${label('--password-login')} off needs --oidc-issuer: without a provider no one could sign in`,
      );
    }
    return;
  }
  if (config.mode !== 'accounts') {
    throw new ConfigError(
      `${label('--oidc-issuer')} needs --mode accounts (open mode has no accounts)`,
    );
  }
  if (oidc.clientId === undefined) {
    throw new ConfigError(`${label('--oidc-issuer')} needs --oidc-client-id`);
  }
}

/** The redirect URI for `baseUrl`, as `kurz --help` and the docs tell it. */
export function oidcRedirectUri(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`;
}
