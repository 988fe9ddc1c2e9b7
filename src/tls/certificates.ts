// The certificates HTTPS is served with, one per name (or one for every name, from
// --tls-cert), as the HTTPS listener reads them. Whoever obtains or reads certificates
// puts them here; the listener hears each change and serves the new set without
// dropping a connection (listener.ts).

import { X509Certificate } from 'node:crypto';

/** A certificate (PEM, leaf first, then its chain) with its private key (PEM). */
export interface ServedCertificate {
  /** The name it is served for (SNI); '*' serves every name (the operator's own files). */
  name: string;
  cert: string;
  key: string;
  /** When the leaf certificate stops being valid. */
  notAfter: Date;
  /** When it started to be (for the renewal's share of the lifetime). */
  notBefore: Date;
}

/** The validity of a PEM certificate's leaf (the first certificate in the text). */
export function validity(certPem: string): { notBefore: Date; notAfter: Date } {
  const leaf = new X509Certificate(certPem);
  return { notBefore: new Date(leaf.validFrom), notAfter: new Date(leaf.validTo) };
}

export class CertificateSet {
  private readonly byName = new Map<string, ServedCertificate>();
  private readonly listeners = new Set<() => void>();

  /** Serves `cert` for its name from now on (a renewal replaces the one before). */
  put(cert: ServedCertificate): void {
    this.byName.set(cert.name, cert);
    this.changed();
  }

  remove(name: string): void {
    if (this.byName.delete(name)) this.changed();
  }

  get(name: string): ServedCertificate | undefined {
    return this.byName.get(name);
  }

  all(): ServedCertificate[] {
    return [...this.byName.values()];
  }

  /** Calls `listener` after every change; returns what stops it. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
