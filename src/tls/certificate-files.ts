// The operator's own certificate (--tls-cert, --tls-key): read, checked (the certificate
// parses, the key parses and belongs to it), and served for every name. Read at start and
// again on SIGHUP. Error messages name the file and never quote its contents: a key file
// must not end up in a log.

import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServedCertificate } from './certificates.ts';

export class CertificateFileError extends Error {}

export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

function read(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new CertificateFileError(`${flag} ${path} cannot be read (${code})`);
  }
}

/** Reads and checks the pair; throws CertificateFileError naming the file at fault. */
export function readCertificateFiles({ certFile, keyFile }: CertificateFiles): ServedCertificate {
  const cert = read(certFile, '--tls-cert');
  const key = read(keyFile, '--tls-key');
  let leaf: X509Certificate;
  try {
    if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate');
    leaf = new X509Certificate(cert);
  } catch {
    throw new CertificateFileError(`--tls-cert ${certFile} holds no PEM certificate kurz can read`);
  }
  let privateKey: KeyObject;
  try {
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error('no PEM key');
    privateKey = createPrivateKey(key);
  } catch {
    throw new CertificateFileError(
      `--tls-key ${keyFile} holds no unencrypted PEM private key kurz can read`,
    );
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new CertificateFileError(
      `--tls-key ${keyFile} is not the private key of the certificate in --tls-cert ${certFile}`,
    );
  }
  return {
    name: '*',
    cert,
    key,
    notBefore: new Date(leaf.validFrom),
    notAfter: new Date(leaf.validTo),
  };
}
