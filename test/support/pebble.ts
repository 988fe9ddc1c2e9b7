// Pebble, Let's Encrypt's small ACME server for tests (Debian's `pebble`, installed by
// scripts/ensure-pebble.sh), on free ports of its own: pebble-challtestsrv is the DNS
// server Pebble asks (every name is 127.0.0.1 unless a test says otherwise), and Pebble
// checks HTTP-01 challenges on `httpPort`, where the test's challenge responder listens.
// Pebble's own HTTPS uses a certificate made here with openssl (`caFile`, what
// --acme-ca-file is given); `root` is the root Pebble signs with, fetched from its
// management API, so a test can verify the chains it issues.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, track } from './cleanup.ts';
import { freePort, selfSignedCertificate } from './proxies.ts';

export const PEBBLE = Bun.which('pebble');
export const CHALLTESTSRV = Bun.which('pebble-challtestsrv');
/** Why the ACME tests cannot run here, or undefined when they can. */
export const PEBBLE_MISSING =
  PEBBLE === null || CHALLTESTSRV === null
    ? 'pebble is not installed (scripts/ensure-pebble.sh installs it as root)'
    : undefined;

export interface PebbleOptions {
  /** Where Pebble checks HTTP-01 challenges (on the address a name resolves to). */
  httpPort: number;
  /** The lifetime of the certificates Pebble issues, in seconds (Pebble's default: 5 years). */
  validitySeconds?: number;
}

export interface RunningPebble {
  /** The ACME directory URL (https on 127.0.0.1). */
  directory: string;
  /** A PEM file of the CA of Pebble's own HTTPS certificate. */
  caFile: string;
  /** The PEM root certificate Pebble issues under. */
  root: string;
  /** Makes `name` resolve to `address` (instead of 127.0.0.1). */
  resolve(name: string, address: string): Promise<void>;
  stop(): Promise<void>;
}

/** Fetches `url` (over Pebble's HTTPS) until it answers 200 or the process ends. */
async function waitFor(
  url: string,
  ca: string,
  proc: { exitCode: number | null },
  what: string,
  log: () => Promise<string>,
): Promise<Response> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const response = await fetch(url, { tls: { ca } });
      if (response.status === 200) return response;
    } catch {
      // Not listening yet.
    }
    if (proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`${what} did not start: ${await log()}`);
    }
    await Bun.sleep(20);
  }
}

export async function startPebble(options: PebbleOptions): Promise<RunningPebble> {
  if (PEBBLE_MISSING !== undefined) throw new Error(PEBBLE_MISSING);
  const dir = tempDir('kurz-pebble-');
  // Pebble's own HTTPS listener, on 127.0.0.1 by the name localhost.
  const certificate = await selfSignedCertificate('localhost', '127.0.0.1');
  const [cert, key] = [join(certificate, 'fullchain.pem'), join(certificate, 'privkey.pem')];
  const ca = await Bun.file(cert).text();
  const dnsPort = freePort();
  const challManagement = freePort();
  const dnsLog = join(dir, 'challtestsrv.log');
  const dns = track(
    Bun.spawn(
      [
        CHALLTESTSRV as string,
        '-defaultIPv4',
        '127.0.0.1',
        '-defaultIPv6',
        '',
        '-dns01',
        `127.0.0.1:${dnsPort}`,
        '-http01',
        '',
        '-https01',
        '',
        '-tlsalpn01',
        '',
        '-management',
        `127.0.0.1:${challManagement}`,
      ],
      { stdin: 'ignore', stdout: Bun.file(dnsLog), stderr: Bun.file(dnsLog) },
    ),
  );
  const listen = freePort();
  const management = freePort();
  writeFileSync(
    join(dir, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${listen}`,
        managementListenAddress: `127.0.0.1:${management}`,
        certificate: cert,
        privateKey: key,
        httpPort: options.httpPort,
        // No TLS-ALPN-01 here: kurz answers HTTP-01 only. A port nothing listens on.
        tlsPort: freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        ...(options.validitySeconds === undefined
          ? {}
          : { certificateValidityPeriod: options.validitySeconds }),
      },
    }),
  );
  const pebbleLog = join(dir, 'pebble.log');
  const pebble = track(
    Bun.spawn(
      [PEBBLE as string, '-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`],
      {
        stdin: 'ignore',
        stdout: Bun.file(pebbleLog),
        stderr: Bun.file(pebbleLog),
        env: {
          ...process.env,
          // Checks at once, and no nonce refused at random (a client retries those, slowly).
          PEBBLE_VA_NOSLEEP: '1',
          PEBBLE_WFE_NONCEREJECT: '0',
          // Every order is checked afresh: an earlier valid authorization is never reused.
          PEBBLE_AUTHZREUSE: '0',
        },
      },
    ),
  );
  const deadline = Date.now() + 15_000;
  // The DNS server is ready once its management API takes the default answer.
  for (;;) {
    const set = await fetch(`http://127.0.0.1:${challManagement}/set-default-ipv4`, {
      method: 'POST',
      body: JSON.stringify({ ip: '127.0.0.1' }),
    }).catch(() => undefined);
    if (set?.ok) break;
    if (dns.exitCode !== null || Date.now() > deadline) {
      throw new Error(`pebble-challtestsrv did not start: ${await Bun.file(dnsLog).text()}`);
    }
    await Bun.sleep(20);
  }
  const directory = `https://127.0.0.1:${listen}/dir`;
  const logs = async () =>
    `${await Bun.file(pebbleLog).text()}\n${await Bun.file(dnsLog)
      .text()
      .catch(() => '')}`;
  await waitFor(directory, ca, pebble, 'pebble', logs);
  const root = await (
    await waitFor(`https://127.0.0.1:${management}/roots/0`, ca, pebble, 'pebble', logs)
  ).text();
  const caFile = join(dir, 'pebble-ca.pem');
  writeFileSync(caFile, ca);
  return {
    directory,
    caFile,
    root,
    async resolve(name, address) {
      const response = await fetch(`http://127.0.0.1:${challManagement}/add-a`, {
        method: 'POST',
        body: JSON.stringify({ host: name, addresses: [address] }),
      });
      if (!response.ok) throw new Error(`challtestsrv refused ${name}: ${response.status}`);
    },
    async stop() {
      for (const proc of [pebble, dns]) {
        proc.kill('SIGTERM');
        await proc.exited;
      }
    },
  };
}
