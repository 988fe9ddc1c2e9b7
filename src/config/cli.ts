// The command line: `kurz [serve|migrate] [flags]`, each flag with its environment
// variable. Flags win over the environment; a bad one is reported by name.

import { type Config, ConfigError, DEFAULTS } from './config.ts';

export type Command =
  | { kind: 'serve'; config: Config }
  | { kind: 'migrate'; config: Config }
  | { kind: 'help' }
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
      if (v === '') throw 'must be a SQLite file path';
      if (/^postgres(ql)?:\/\//i.test(v)) {
        throw 'PostgreSQL is not supported yet; give a SQLite file path';
      }
      c.db = v.startsWith('sqlite://') ? v.slice('sqlite://'.length) : v;
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
      if (v.length < JWT_SECRET_MIN_LENGTH) {
        throw `must be at least ${JWT_SECRET_MIN_LENGTH} characters long`;
      }
      c.jwtSecret = v;
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
};

export const USAGE = `kurz — a self-hosted link shortener

Usage:
  kurz [serve] [flags]    start the service (the default command)
  kurz migrate [flags]    apply database migrations and exit
  kurz --help | --version

Flags (each also read from the environment variable shown):
  --mode accounts|open      KURZ_MODE        accounts (with users and tokens) or open (default accounts)
  --host H                  KURZ_HOST        listen address (default 0.0.0.0)
  --port N                  PORT             listen port; 0 picks a free one (default 3000)
  --db PATH                 DATABASE_URL     SQLite file, created with its folder (default ./data/kurz.db)
  --base-url URL            KURZ_BASE_URL    public address of short links (default http://localhost:PORT)
  --jwt-secret S            KURZ_JWT_SECRET  token signing key, 32+ characters (default: generated once, kept in the database)
  --token-ttl SECONDS       KURZ_TOKEN_TTL   token lifetime (default 86400)
  --durability normal|full  KURZ_DURABILITY  survive process crashes, or power loss too (default normal)
  --cache-size N            KURZ_CACHE_SIZE  links the redirect keeps in memory (default 50000, ~800 bytes each)
`;

/** Reads argv (without the executable) and the environment; throws ConfigError on bad input. */
export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Command {
  const args = [...argv];
  if (args.includes('--help') || args.includes('-h')) return { kind: 'help' };
  if (args.includes('--version') || args.includes('-v')) return { kind: 'version' };

  let kind: 'serve' | 'migrate' = 'serve';
  if (args[0] !== undefined && !args[0].startsWith('-')) {
    const word = args.shift() as string;
    if (word !== 'serve' && word !== 'migrate') {
      throw new ConfigError(`unknown command "${word}" (expected serve or migrate; see --help)`);
    }
    kind = word;
  }

  const config: Config = { ...DEFAULTS, baseUrl: undefined, jwtSecret: undefined };
  for (const [flag, spec] of Object.entries(FLAGS)) {
    const value = env[spec.env];
    if (value !== undefined && value !== '')
      apply(flag, `${flag} (from ${spec.env})`, value, config);
  }
  while (args.length > 0) {
    const arg = args.shift() as string;
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (!(flag in FLAGS)) throw new ConfigError(`unknown flag ${flag} (see --help)`);
    const value = eq === -1 ? args.shift() : arg.slice(eq + 1);
    if (value === undefined) throw new ConfigError(`${flag} needs a value`);
    apply(flag, flag, value, config);
  }
  return { kind, config };
}

function apply(flag: string, label: string, value: string, config: Config): void {
  try {
    FLAGS[flag]?.parse(value, config);
  } catch (problem) {
    if (typeof problem !== 'string') throw problem;
    throw new ConfigError(`${label} ${problem}`);
  }
}
