// The HTTPS flags (--tls, --acme-*, --tls-cert, --tls-key, --https-port, --http-port,
// --hsts-max-age): what they set, every variable, and every rule between them (one line
// naming the problem, nothing started).

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

/** Two readable files standing in for a certificate and its key (the flags read only that). */
function pairFiles() {
  const dir = tempDir();
  const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
  writeFileSync(cert, 'certificate');
  writeFileSync(key, 'key');
  return { cert, key };
}

describe('HTTPS flags', () => {
  test('off by default; --tls-cert and --tls-key choose files mode', () => {
    expect(config([]).tls).toMatchObject({
      mode: 'off',
      httpsPort: 443,
      httpPort: 80,
      hstsMaxAgeSeconds: 31_536_000,
    });
    const { cert, key } = pairFiles();
    const tls = config(['--tls-cert', cert, '--tls-key', key, '--https-port', '8443']).tls;
    expect(tls).toMatchObject({ mode: 'files', certFile: cert, keyFile: key, httpsPort: 8443 });
  });

  test('every variable sets its flag', () => {
    const { cert, key } = pairFiles();
    const env = {
      KURZ_TLS_CERT: cert,
      KURZ_TLS_KEY: key,
      KURZ_HTTPS_PORT: '8443',
      KURZ_HTTP_PORT: 'off',
      KURZ_HSTS_MAX_AGE: '0',
    };
    expect(config([], env).tls).toMatchObject({
      mode: 'files',
      certFile: cert,
      keyFile: key,
      httpsPort: 8443,
      httpPort: undefined,
      hstsMaxAgeSeconds: 0,
    });
    const auto = config([], {
      KURZ_TLS: 'auto',
      KURZ_BASE_URL: 'https://s.example.com',
      KURZ_ACME_EMAIL: 'admin@example.com',
      KURZ_ACME_DIRECTORY: 'https://acme.example/dir',
      KURZ_ACME_CA_FILE: cert,
    }).tls;
    expect(auto).toMatchObject({
      mode: 'auto',
      acmeEmail: 'admin@example.com',
      acmeDirectory: 'https://acme.example/dir',
      acmeCaFile: cert,
    });
  });

  const files = () => {
    const { cert, key } = pairFiles();
    return ['--tls-cert', cert, '--tls-key', key];
  };
  const auto = ['--tls', 'auto', '--base-url', 'https://s.example.com'];

  const rules: [() => string[], string][] = [
    [() => ['--tls-cert', pairFiles().cert], '--tls-cert needs --tls-key'],
    [() => ['--tls-key', pairFiles().key], '--tls-key needs --tls-cert'],
    [
      () => [...files(), '--tls', 'auto', '--base-url', 'https://s.example.com'],
      '--tls-cert cannot be given with --tls auto, which obtains its certificates itself',
    ],
    [() => ['--acme-email', 'admin@example.com'], '--acme-email needs --tls auto'],
    [
      () => [...files(), '--acme-directory', 'https://acme.example/d'],
      '--acme-directory needs --tls auto',
    ],
    [() => ['--https-port', '8443'], '--https-port needs --tls auto, or --tls-cert and --tls-key'],
    [() => ['--http-port', 'off'], '--http-port needs --tls auto, or --tls-cert and --tls-key'],
    [() => ['--hsts-max-age', '0'], '--hsts-max-age needs --tls auto, or --tls-cert and --tls-key'],
    [
      () => [...files(), '--port', '8080'],
      "--port is plain HTTP's port: serving HTTPS, kurz listens on --https-port and --http-port",
    ],
    [
      () => [...auto, '--http-port', 'off'],
      "--http-port off leaves --tls auto no way to answer the ACME server's HTTP-01 challenge",
    ],
    [
      () => ['--tls', 'auto'],
      '--tls auto needs --base-url https://NAME: its domain is the one kurz obtains a certificate for',
    ],
    [
      () => ['--tls', 'auto', '--base-url', 'http://s.example.com'],
      '--tls auto needs --base-url https://NAME: its domain is the one kurz obtains a certificate for',
    ],
    [
      () => ['--tls', 'auto', '--base-url', 'https://127.0.0.1'],
      '--tls auto needs --base-url to name a public domain, such as https://s.example.com (got https://127.0.0.1)',
    ],
    [
      () => ['--tls', 'auto', '--base-url', 'https://localhost:8443'],
      '--tls auto needs --base-url to name a public domain, such as https://s.example.com (got https://localhost:8443)',
    ],
    [() => ['--tls', 'on'], '--tls must be off or auto (got "on")'],
    [
      () => [...auto, '--acme-email', 'not an address'],
      '--acme-email must be an e-mail address such as admin@example.com (got "not an address")',
    ],
    [
      () => [...auto, '--acme-directory', 'http://acme.example/dir'],
      '--acme-directory must be the ACME server\'s https:// directory URL (got "http://acme.example/dir")',
    ],
    [
      () => [...files(), '--https-port', '70000'],
      '--https-port must be a port from 0 to 65535 (got "70000")',
    ],
    [
      () => [...files(), '--hsts-max-age', '63072001'],
      '--hsts-max-age must be a number of seconds up to 63072000 (got "63072001")',
    ],
  ];
  test.each(rules.map(([argv, message]) => [message, argv] as const))('%s', (message, argv) => {
    expect(() => config(argv())).toThrow(new ConfigError(message));
  });

  test('a variable names itself in the message', () => {
    expect(() => config([], { KURZ_HTTPS_PORT: '8443' })).toThrow(
      new ConfigError(
        '--https-port (from KURZ_HTTPS_PORT) needs --tls auto, or --tls-cert and --tls-key',
      ),
    );
  });
});

describe('dist/kurz with a bad HTTPS setting', () => {
  test('stops before starting, with one line naming the problem', async () => {
    const { code, stdout, stderr } = await runKurz([
      'serve',
      '--db',
      join(tempDir(), 'k.db'),
      '--tls',
      'auto',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'kurz: --tls auto needs --base-url https://NAME: its domain is the one kurz obtains a certificate for\n',
    );
  });
});
