import { describe, expect, test } from 'bun:test';
import { parseCommandLine } from '../src/config/cli.ts';
import { ConfigError } from '../src/config/config.ts';

function config(argv: string[], env: Record<string, string> = {}) {
  const command = parseCommandLine(argv, env);
  if (command.kind !== 'serve' && command.kind !== 'migrate') throw new Error(command.kind);
  return command.config;
}

describe('command line', () => {
  test('defaults follow decisions.md', () => {
    expect(config([])).toEqual({
      mode: 'accounts',
      host: '0.0.0.0',
      port: 3000,
      db: './data/kurz.db',
      baseUrl: undefined,
      jwtSecret: undefined,
      tokenTtlSeconds: 86_400,
      durability: 'normal',
      cacheSize: 50_000,
    });
  });

  test('every flag has its environment variable; flags win', () => {
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
    };
    expect(config([], env)).toEqual({
      mode: 'open',
      host: '127.0.0.1',
      port: 8080,
      db: '/var/lib/kurz/k.db',
      baseUrl: 'https://s.example',
      jwtSecret: 's'.repeat(32),
      tokenTtlSeconds: 60,
      durability: 'full',
      cacheSize: 500,
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
    expect(parseCommandLine(['--help'], {}).kind).toBe('help');
    expect(parseCommandLine(['serve', '--version'], {}).kind).toBe('version');
  });

  test('a sqlite:// URL is read as a path', () => {
    expect(config(['--db', 'sqlite:///tmp/k.db']).db).toBe('/tmp/k.db');
  });

  test('--port 0 is allowed (pick a free port)', () => {
    expect(config(['--port', '0']).port).toBe(0);
  });

  test.each([
    [['--port', '-1'], '--port must be a port from 0 to 65535 (got "-1")'],
    [['--mode', 'x'], '--mode must be accounts or open (got "x")'],
    [['--host', ''], '--host must be a host name or address (got "")'],
    [['--nope'], 'unknown flag --nope (see --help)'],
    [['--cache-size', '0'], '--cache-size must be a number of links from 1 to 10000000 (got "0")'],
    [['--db'], '--db needs a value'],
  ])('%p → %p', (argv, message) => {
    expect(() => parseCommandLine(argv, {})).toThrow(new ConfigError(message));
  });
});
