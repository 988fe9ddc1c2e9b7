// The HTTPS listener: the app served with the certificates of a CertificateSet, one per
// name by SNI, the '*' one (the operator's files) for every other name. Bun 1.4.5 cannot
// change a listening server's certificates (server.reload keeps the TLS settings), so each
// change of the set starts a new server on the same port (SO_REUSEPORT) and only then
// stops the old one gracefully: the kernel hands new connections to the new server, the
// old one finishes the requests it holds, and no request in flight is cut. Connections
// the kernel had queued at the old server in the instant it closes are reset, unless
// net.ipv4.tcp_migrate_req is 1, which hands them to the new one (migrationNote).

import { readFileSync } from 'node:fs';
import type { Logger } from '../logger.ts';
import type { CertificateSet, ServedCertificate } from './certificates.ts';

/** A handler of a route Bun serves natively. */
export type RouteHandler = (
  request: Bun.BunRequest,
  server: Bun.Server<undefined>,
) => Response | Promise<Response>;

/** Routes Bun serves natively: a handler per method per path (the app's redirect). */
export type NativeRoutes = Record<string, Record<string, RouteHandler>>;

/** The limits every listener of kurz is started with (index.ts's listen options). */
export interface ListenLimits {
  development: boolean;
  maxRequestBodySize: number;
  idleTimeout: number;
}

/** What Bun.serve is given besides the address and the certificates. */
export interface ServeOptions extends ListenLimits {
  routes: NativeRoutes;
  fetch: (request: Request, server: Bun.Server<undefined>) => Response | Promise<Response>;
}

/** A group of listeners that can be stopped together (graceful first, then forced). */
export interface Listening {
  /** Stops accepting; false lets requests in flight finish, true closes every connection. */
  stop(closeActive: boolean): Promise<void>;
}

export interface HttpsListenerOptions {
  hostname: string;
  /** A port claimed by claimPort (never 0: every server of the listener binds the same). */
  port: number;
  certificates: CertificateSet;
  serve: ServeOptions;
  /** How long a replaced server may finish its requests before its connections are closed. */
  drainMs: number;
  log: Logger;
  /** Told of every server that takes over (the app reads the client address through it). */
  onServer?: (server: Bun.Server<undefined>) => void;
}

/** How long a burst of certificate changes is gathered into one swap. */
const COALESCE_MS = 50;

export class PortInUseError extends Error {}

/**
 * Fails with PortInUseError when something listens on `hostname:port` already, and
 * returns the port (the one picked for 0). The probe binds without SO_REUSEPORT: a
 * listener with it set (a second kurz's HTTPS, which uses it for swaps) would otherwise
 * share the port with kurz silently, each getting part of the connections.
 */
export function claimPort(hostname: string, port: number, what: string): number {
  let probe: Bun.TCPSocketListener<undefined>;
  try {
    probe = Bun.listen({ hostname, port, socket: { data() {} } });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === 'EADDRINUSE' ? 'is in use' : `cannot be bound (${code ?? String(error)})`;
    throw new PortInUseError(`${what} port ${port} on ${hostname} ${why}`);
  }
  const bound = probe.port;
  probe.stop(true);
  return bound;
}

/** Bun's `tls` for a set: the '*' certificate (or the first) as the default, then one per name. */
export function tlsFor(certificates: readonly ServedCertificate[]): Bun.TLSOptions[] {
  const fallback = certificates.find((c) => c.name === '*') ?? certificates[0];
  if (fallback === undefined) return [];
  const named = certificates
    .filter((c) => c.name !== '*')
    .map((c) => ({ serverName: c.name, cert: c.cert, key: c.key }));
  return [{ cert: fallback.cert, key: fallback.key }, ...named];
}

const MIGRATE_REQ = '/proc/sys/net/ipv4/tcp_migrate_req';

/**
 * What to tell the operator when Linux would reset, rather than hand to the new server,
 * the connections queued at a replaced one in the instant of a swap; undefined when it
 * hands them over (net.ipv4.tcp_migrate_req = 1, Linux 5.14 and later) or cannot be read.
 */
export function migrationNote(): string | undefined {
  let value: string;
  try {
    value = readFileSync(MIGRATE_REQ, 'utf8').trim();
  } catch {
    return undefined;
  }
  if (value !== '0') return undefined;
  return 'kurz: net.ipv4.tcp_migrate_req is 0: a connection that arrives in the instant HTTPS changes certificates may be reset; set it to 1 to have Linux hand it to the new listener (see docs/https.md)';
}

export class HttpsListener implements Listening {
  private current: Bun.Server<undefined> | undefined;
  /** Servers replaced and still finishing their requests. */
  private readonly draining = new Set<Promise<void>>();
  private readonly replaced = new Set<Bun.Server<undefined>>();
  private pending: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly unsubscribe: () => void;
  readonly port: number;
  /** Servers started after the first: one per swap. */
  swaps = 0;

  constructor(private readonly options: HttpsListenerOptions) {
    this.port = options.port;
    this.unsubscribe = options.certificates.onChange(() => this.schedule());
    // With no certificate yet (--tls auto before its first), HTTPS starts with the first.
    if (options.certificates.all().length > 0) this.swap();
  }

  /** Whether HTTPS is being served (a certificate has been put). */
  get serving(): boolean {
    return this.current !== undefined;
  }

  /** Gathers the changes of one burst (several certificates put at once) into one swap. */
  private schedule(): void {
    if (this.stopped || this.pending !== undefined) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.swap();
    }, COALESCE_MS);
  }

  private swap(): void {
    const { hostname, certificates, serve, log } = this.options;
    const tls = tlsFor(certificates.all());
    if (tls.length === 0) return;
    let next: Bun.Server<undefined>;
    try {
      next = Bun.serve({ ...serve, hostname, port: this.port, reusePort: true, tls });
    } catch (error) {
      // A certificate Bun refuses (it passed the checks before it was put): the one in
      // service stays, and the next change tries again.
      log.error(
        `kurz: HTTPS could not start with the new certificates (${error instanceof Error ? error.message : String(error)}); the previous ones stay in service`,
      );
      return;
    }
    const old = this.current;
    this.current = next;
    this.options.onServer?.(next);
    if (old === undefined) return;
    this.swaps += 1;
    // A turn of the event loop first, for the old server to accept what the kernel has
    // queued for it: closing a listening socket resets the connections in its queue
    // (unless net.ipv4.tcp_migrate_req hands them to the new one, see migrationNote).
    setImmediate(() => this.retire(old));
  }

  /** Stops a replaced server gracefully, and forcibly once its time is up. */
  private retire(server: Bun.Server<undefined>): void {
    this.replaced.add(server);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((done) => {
      timer = setTimeout(done, this.options.drainMs);
    });
    const drained = Promise.race([server.stop(false), late]).then(async () => {
      clearTimeout(timer);
      await server.stop(true);
      this.replaced.delete(server);
      this.draining.delete(drained);
    });
    this.draining.add(drained);
  }

  async stop(closeActive: boolean): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pending);
    this.unsubscribe();
    const servers = [...this.replaced, ...(this.current === undefined ? [] : [this.current])];
    await Promise.all(servers.map((server) => server.stop(closeActive)));
  }
}
