// kurz serving HTTPS itself (--tls auto, or --tls-cert with --tls-key): the HTTPS listener
// and, unless --http-port off, plain HTTP beside it. What index.ts starts in place of the
// plain listener, and stops the same way.

import type { AnyElysia } from 'elysia';
import type { TlsSettings } from '../config/config.ts';
import type { Logger } from '../logger.ts';
import {
  CertificateFileError,
  type CertificateFiles,
  readCertificateFiles,
} from './certificate-files.ts';
import { CertificateSet } from './certificates.ts';
import { ChallengeResponses } from './challenges.ts';
import {
  claimPort,
  HttpsListener,
  type Listening,
  type ListenLimits,
  migrationNote,
  type NativeRoutes,
  type RouteHandler,
} from './https-listener.ts';
import { plainHttpServe } from './plain-http.ts';

/**
 * The app as Bun serves it when Elysia listens (app.listen): the native routes (the
 * redirect's `/:code`), and every one-segment path of Elysia's own (`/health`, `/sw.js`,
 * the web pages), which `/:code` would otherwise catch; longer paths reach Elysia's
 * fetch as they are. The app's routes then read the client address from the server set.
 */
export function servedApp(app: AnyElysia): ServedApp {
  const native = (app.config.serve?.routes ?? {}) as NativeRoutes;
  const fetch = app.fetch;
  const elysia: RouteHandler = (request) => fetch(request);
  const routes: NativeRoutes = {};
  for (const { path } of app.routes) {
    if (/^\/[^/:*]+$/.test(path) && !(path in native)) routes[path] = ALL_METHODS(elysia);
  }
  return {
    fetch,
    routes: { ...routes, ...native },
    useServer: (server) => {
      app.server = server;
    },
  };
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const ALL_METHODS = (handler: RouteHandler) =>
  Object.fromEntries(METHODS.map((method) => [method, handler]));

/** The app as the listeners serve it: Elysia's fetch, its native routes, and its `server`. */
export interface ServedApp {
  fetch: (request: Request) => Response | Promise<Response>;
  /** The routes Bun serves natively (the redirect), as the app's config holds them. */
  routes: NativeRoutes;
  /** Told of the server the app's routes read the client address from. */
  useServer(server: Bun.Server<undefined>): void;
}

export interface HttpsServingOptions {
  settings: TlsSettings;
  /** --base-url as given (undefined: none); an https one names the public HTTPS port. */
  baseUrl: string | undefined;
  hostname: string;
  app: ServedApp;
  /** The listen options besides address, routes and fetch (limits, timeouts). */
  serve: ListenLimits;
  certificates: CertificateSet;
  challenges: ChallengeResponses;
  /** How long a replaced HTTPS server may finish its requests (the shutdown timeout). */
  drainMs: number;
  log: Logger;
}

export interface HttpsServing extends Listening {
  https: HttpsListener;
  httpsPort: number;
  /** Undefined with --http-port off. */
  httpPort: number | undefined;
}

export function serveHttps(options: HttpsServingOptions): HttpsServing {
  const { settings, hostname, app, serve, certificates, challenges, log } = options;
  // Both ports are claimed before either is bound: a port in use fails the start at once.
  const httpsPort = claimPort(hostname, settings.httpsPort, 'HTTPS');
  let plain: Bun.Server<undefined> | undefined;
  if (settings.httpPort !== undefined) {
    const port = claimPort(hostname, settings.httpPort, 'HTTP');
    plain = Bun.serve({
      ...serve,
      ...plainHttpServe(app, {
        certificates,
        challenges,
        httpsPort: publicHttpsPort(options.baseUrl, httpsPort),
      }),
      hostname,
      port,
      reusePort: false,
    });
    app.useServer(plain);
  }
  const https = new HttpsListener({
    hostname,
    port: httpsPort,
    certificates,
    serve: { ...serve, routes: app.routes, fetch: app.fetch },
    drainMs: options.drainMs,
    log,
    onServer: (server) => app.useServer(server),
  });
  const note = migrationNote();
  if (note !== undefined) log.info(note);
  return {
    https,
    httpsPort: https.port,
    httpPort: plain?.port,
    async stop(closeActive) {
      await Promise.all([https.stop(closeActive), plain?.stop(closeActive)]);
    },
  };
}

/**
 * The HTTPS port plain HTTP redirects to: the public address's (--base-url https://…,
 * 443 unless it names one), since a port map (a container's -p 443:8443) may stand
 * between the client and --https-port; --https-port itself without such an address.
 */
export function publicHttpsPort(baseUrl: string | undefined, httpsPort: number): number {
  const url = baseUrl === undefined ? null : URL.parse(baseUrl);
  if (url?.protocol !== 'https:') return httpsPort;
  return url.port === '' ? 443 : Number(url.port);
}

/** The certificates HTTPS is served with and the ACME challenges' answers (--tls). */
export interface Tls {
  certificates: CertificateSet;
  challenges: ChallengeResponses;
  /** --tls-cert and --tls-key, read again on SIGHUP; undefined with --tls auto. */
  files: CertificateFiles | undefined;
}

/**
 * What serving HTTPS starts from: nothing with --tls off; with --tls-cert, the pair read
 * and checked (a bad one throws CertificateFileError) and put in the set.
 */
export function prepareTls(settings: TlsSettings): Tls | undefined {
  if (settings.mode === 'off') return undefined;
  const { certFile, keyFile } = settings;
  const tls: Tls = {
    certificates: new CertificateSet(),
    challenges: new ChallengeResponses(),
    files: certFile === undefined || keyFile === undefined ? undefined : { certFile, keyFile },
  };
  if (tls.files !== undefined) loadCertificateFiles(tls.files, tls.certificates);
  return tls;
}

/** Reads --tls-cert and --tls-key into `certificates`; a bad pair throws CertificateFileError. */
export function loadCertificateFiles(files: CertificateFiles, certificates: CertificateSet) {
  const served = readCertificateFiles(files);
  certificates.put(served);
  return served;
}

/**
 * On SIGHUP: the files read again; a good pair replaces the one served (new connections
 * get it, none is dropped), a bad one is said and the one served stays.
 */
export function reloadCertificateFiles(
  files: CertificateFiles,
  certificates: CertificateSet,
  log: Logger,
): void {
  try {
    const served = loadCertificateFiles(files, certificates);
    log.info(
      `kurz: certificate reloaded from ${files.certFile}, valid until ${served.notAfter.toISOString()}`,
    );
  } catch (error) {
    if (!(error instanceof CertificateFileError)) throw error;
    log.error(`kurz: certificate not reloaded, the one in service stays: ${error.message}`);
  }
}
