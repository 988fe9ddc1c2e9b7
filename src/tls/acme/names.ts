// Which names --tls auto obtains certificates for: the host of --base-url and of every
// short domain, without its port. A certificate from a public ACME server can name
// neither an IP address nor a name without a dot (localhost), so those are left out,
// with the reason, for the log.

import { isIP } from 'node:net';

export interface CertificateNames {
  /** Lower-case hostnames, each once, in the order given. */
  names: string[];
  /** The hosts left out, and why. */
  skipped: { host: string; reason: string }[];
}

/** The names of `hosts` (hostname[:port], as the domains keep them). */
export function certificateNames(hosts: readonly string[]): CertificateNames {
  const names: string[] = [];
  const skipped: CertificateNames['skipped'] = [];
  for (const host of hosts) {
    const hostname = URL.parse(`http://${host}`)?.hostname.toLowerCase();
    if (hostname === undefined || hostname === '') {
      skipped.push({ host, reason: 'it is not a host name' });
    } else if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) {
      skipped.push({ host, reason: 'an IP address cannot have a certificate from an ACME server' });
    } else if (!hostname.includes('.')) {
      skipped.push({ host, reason: 'a name without a dot is not a public domain' });
    } else if (!names.includes(hostname)) {
      names.push(hostname);
    }
  }
  return { names, skipped };
}
