// The sign-in flags (--oidc-*, --password-login): what they set, every variable, the
// rules between them (one line naming the problem, nothing started), and the redirect
// URI `kurz --help` tells the operator to register at the provider.

import { describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine } from '../../src/config/cli.ts';
import { ConfigError } from '../../src/config/config.ts';
import { runKurz, tempDir } from '../support/binary.ts';

function config(argv: string[], env: Record<string, string> = {}) {
  const command = parseCommandLine(argv, env);
  if (!('config' in command)) throw new Error(command.kind);
  return command.config;
}

const help = (argv: string[], env: Record<string, string> = {}) => {
  const command = parseCommandLine(argv, env);
  if (command.kind !== 'help') throw new Error(command.kind);
  return command.usage;
};

describe('sign-in flags', () => {
  test('every variable sets its flag', () => {
    const secretFile = join(tempDir(), 'secret');
    writeFileSync(secretFile, 'from-the-file\n');
    const env = {
      KURZ_PASSWORD_LOGIN: 'off',
      KURZ_OIDC_ISSUER: 'https://auth.example.com/application/o/kurz/',
      KURZ_OIDC_CLIENT_ID: 'kurz',
      KURZ_OIDC_CLIENT_SECRET_FILE: secretFile,
      KURZ_OIDC_NAME: ' Sign in with Authentik ',
      KURZ_OIDC_SCOPES: 'email, profile groups',
      KURZ_OIDC_ALLOWED_DOMAINS: 'Example.COM, bücher.example',
      KURZ_OIDC_ADMIN_CLAIM: 'groups=kurz admins',
    };
    expect(config([], env)).toMatchObject({
      passwordLogin: false,
      oidc: {
        issuer: 'https://auth.example.com/application/o/kurz/',
        clientId: 'kurz',
        clientSecret: 'from-the-file',
        name: 'Sign in with Authentik',
        scopes: ['openid', 'email', 'profile', 'groups'],
        allowedDomains: ['example.com', 'xn--bcher-kva.example'],
        adminClaim: { name: 'groups', value: 'kurz admins' },
      },
    });
    // A flag beats the environment, across the two ways of giving the secret too.
    expect(config(['--oidc-client-secret', 'from-the-flag'], env).oidc.clientSecret).toBe(
      'from-the-flag',
    );
    expect(
      config([], { ...env, KURZ_OIDC_CLIENT_SECRET_FILE: '', KURZ_OIDC_CLIENT_SECRET: 'env' }).oidc
        .clientSecret,
    ).toBe('env');
  });

  test.each([
    [['--oidc-issuer', 'https://idp.example'], '--oidc-issuer needs --oidc-client-id'],
    [['--oidc-client-id', 'kurz'], '--oidc-client-id needs --oidc-issuer'],
    [
      ['--mode', 'open', '--oidc-issuer', 'https://idp.example', '--oidc-client-id', 'kurz'],
      '--oidc-issuer needs --mode accounts (open mode has no accounts)',
    ],
    [
      ['--password-login', 'off'],
      '--password-login off needs --oidc-issuer: without a provider no one could sign in',
    ],
    [
      ['--oidc-issuer', 'http://idp.example'],
      '--oidc-issuer must be the provider\'s https:// issuer URL, without query (got "http://idp.example")',
    ],
    [
      ['--oidc-issuer', 'https://idp.example/?x=1'],
      '--oidc-issuer must be the provider\'s https:// issuer URL, without query (got "https://idp.example/?x=1")',
    ],
    [
      ['--oidc-admin-claim', 'groups'],
      '--oidc-admin-claim must be NAME=VALUE, such as groups=kurz-admins (got "groups")',
    ],
    [
      ['--oidc-admin-claim', '=admins'],
      '--oidc-admin-claim must be NAME=VALUE, such as groups=kurz-admins (got "=admins")',
    ],
    [
      ['--oidc-client-secret-file', '/nonexistent/secret'],
      '--oidc-client-secret-file cannot be read (ENOENT: /nonexistent/secret)',
    ],
    [
      ['--oidc-allowed-domains', 'not a domain'],
      '--oidc-allowed-domains must be host names such as kurz.lan separated by commas (got "not a domain")',
    ],
    [['--password-login', 'maybe'], '--password-login must be on or off (got "maybe")'],
  ])('%p → %p', (argv, message) => {
    expect(() => config(argv)).toThrow(new ConfigError(message));
  });

  test('a provider on this machine may be plain http (as in tests); others must be https', () => {
    for (const issuer of [
      'http://localhost:9000',
      'http://127.0.0.1:8080/realms/x',
      'http://[::1]:1',
    ]) {
      expect(config(['--oidc-issuer', issuer, '--oidc-client-id', 'k']).oidc.issuer).toBe(issuer);
    }
  });

  test('a variable names itself in the message', () => {
    expect(() => config([], { KURZ_OIDC_ISSUER: 'https://idp.example' })).toThrow(
      new ConfigError('--oidc-issuer (from KURZ_OIDC_ISSUER) needs --oidc-client-id'),
    );
  });

  test('kurz --help tells the redirect URI, for the base URL given beside it', () => {
    expect(help(['--help'])).toContain('{base_url}/api/auth/oidc/callback');
    expect(help(['--help', '--base-url', 'https://s.example'])).toContain(
      '  https://s.example/api/auth/oidc/callback\n',
    );
    expect(help(['--help'], { KURZ_BASE_URL: 'https://go.example/' })).toContain(
      '  https://go.example/api/auth/oidc/callback\n',
    );
  });
});

describe('dist/kurz with a bad sign-in setting', () => {
  test('stops before starting, with one line naming the problem', async () => {
    const { code, stdout, stderr } = await runKurz([
      '--db',
      join(tempDir(), 'k.db'),
      '--port',
      '0',
      '--oidc-issuer',
      'https://idp.example',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('kurz: --oidc-issuer needs --oidc-client-id\n');
  });

  test('--help prints the redirect URI to register', async () => {
    const { code, stdout } = await runKurz(['--help', '--base-url=https://s.example']);
    expect(code).toBe(0);
    expect(stdout).toContain('https://s.example/api/auth/oidc/callback');
  });
});
