// Certificates for the HTTPS tests, made with openssl at test time in a temporary
// directory (no key is ever committed): a test CA, and leaf certificates it signs for
// localhost and 127.0.0.1.

import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { tempDir } from './cleanup.ts';

export interface TestCa {
  dir: string;
  /** The CA certificate (PEM), to verify against. */
  pem: string;
  certFile: string;
  keyFile: string;
}

export interface TestPair {
  certFile: string;
  keyFile: string;
  cert: string;
  /** SHA-256 fingerprint of the leaf, as node:tls reports a peer's (`AA:BB:…`). */
  fingerprint: string;
}

function openssl(args: string[], cwd: string): void {
  const done = Bun.spawnSync(['openssl', ...args], { cwd, stdout: 'pipe', stderr: 'pipe' });
  if (done.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${done.stderr.toString()}`);
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export function makeCa(): TestCa {
  const dir = tempDir('kurz-ca-');
  const [certFile, keyFile] = [join(dir, 'ca.pem'), join(dir, 'ca.key')];
  openssl(
    ['req', '-x509', ...EC_KEY, '-keyout', keyFile, '-out', certFile, '-days', '30'].concat([
      '-subj',
      '/CN=kurz test CA',
    ]),
    dir,
  );
  return { dir, pem: readFileSync(certFile, 'utf8'), certFile, keyFile };
}

let made = 0;

/** A leaf for `names` (localhost and 127.0.0.1 unless said), valid for `days` days. */
export function makeLeaf(
  ca: TestCa,
  options: { names?: string[]; days?: number; label?: string } = {},
): TestPair {
  const label = options.label ?? `leaf${++made}`;
  const names = options.names ?? ['localhost'];
  const san = [...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',');
  const [keyFile, csr, certFile, ext] = ['key', 'csr', 'pem', 'ext'].map((end) =>
    join(ca.dir, `${label}.${end}`),
  ) as [string, string, string, string];
  writeFileSync(ext, `subjectAltName=${san}\n`);
  openssl(['req', ...EC_KEY, '-keyout', keyFile, '-out', csr, '-subj', `/CN=${names[0]}`], ca.dir);
  openssl(
    ['x509', '-req', '-in', csr, '-CA', ca.certFile, '-CAkey', ca.keyFile].concat([
      '-CAcreateserial',
      '-out',
      certFile,
      '-days',
      String(options.days ?? 10),
      '-extfile',
      ext,
    ]),
    ca.dir,
  );
  const cert = readFileSync(certFile, 'utf8');
  return {
    certFile: certFile,
    keyFile: keyFile,
    cert,
    fingerprint: new X509Certificate(cert).fingerprint256,
  };
}

/**
 * The SHA-256 fingerprint of the certificate a new TLS connection to `port` on 127.0.0.1
 * is served for `servername`, verified against `ca`; with `anyName`, a certificate that
 * does not fit the name is taken too (when which one is served is the question).
 */
export function peerFingerprint(
  port: number,
  ca: string,
  options: { servername?: string; anyName?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      {
        host: '127.0.0.1',
        port,
        servername: options.servername ?? 'localhost',
        ca,
        ...(options.anyName ? { checkServerIdentity: () => undefined } : {}),
      },
      () => {
        resolve(socket.getPeerCertificate().fingerprint256);
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}
