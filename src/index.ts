// The kurz executable: read the command line, open the store, serve or migrate, and
// shut down cleanly on SIGINT/SIGTERM.

import { BlockedHosts } from './admin/blocked-hosts.ts';
import { createApp, createWriters, drainWriters } from './app.ts';
import { RelyingParty } from './auth/oidc-client.ts';
import { TokenKey } from './auth/tokens.ts';
import { backupCommand } from './backup/sqlite-backup.ts';
import { parseCommandLine } from './config/cli.ts';
import { type Config, ConfigError } from './config/config.ts';
import { oidcRedirectUri } from './config/oidc-flags.ts';
import { readBlocklist } from './config/values.ts';
import { copyCommand } from './copy/command.ts';
import { describeDatabase } from './domain/database-url.ts';
import { StoreUnavailableError } from './domain/errors.ts';
import { printable } from './domain/printable.ts';
import { domainCommand } from './domains/command.ts';
import { DomainRegistry } from './domains/registry.ts';
import { healthcheckCommand } from './health/command.ts';
import { BULK_MAX_BODY_BYTES } from './links/bulk-model.ts';
import { consoleLogger, type Logger, loggerFor } from './logger.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/store.ts';
import { AcmeManager } from './tls/acme/manager.ts';
import { storedChallenges } from './tls/acme/orderer.ts';
import { CertificateFileError } from './tls/certificate-files.ts';
import { type HttpsListener, type Listening, PortInUseError } from './tls/https-listener.ts';
import {
  prepareTls,
  reloadCertificateFiles,
  servedApp,
  serveHttps,
  type Tls,
} from './tls/serving.ts';
import { exportCommand, importCommand } from './transfer/command.ts';
import { userCommand } from './users/command.ts';
import { versionLine } from './version.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { systemResolve } from './webhooks/targets.ts';

/** The text format until the flags say otherwise (a bad flag is told in plain text). */
let log: Logger = consoleLogger;

async function main(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parseCommandLine>;
  try {
    command = parseCommandLine(argv, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`kurz: ${printable(error.message)}`);
    return 2;
  }
  if ('config' in command) {
    log = loggerFor(command.config.logFormat);
    // Files kurz creates (the database and its side files) are the owner's alone:
    // they hold password hashes and the token key.
    process.umask(0o077);
  }
  switch (command.kind) {
    case 'help':
      process.stdout.write(command.usage);
      return 0;
    case 'version':
      console.log(versionLine());
      return 0;
    case 'migrate': {
      const store = await openStore(command.config, log);
      await closeStore(store);
      log.info(`kurz: database ${describeDatabase(command.config.db)} is up to date`);
      return 0;
    }
    case 'rotate-secret':
      return rotateSecret(command.config);
    case 'copy':
      return copyCommand(command, log);
    case 'healthcheck':
      return healthcheckCommand(command, log);
    case 'serve':
      return serve(command.config);
    case 'user':
      return userCommand(command, log);
    case 'domain':
      return domainCommand(command, log);
    case 'backup':
      return backupCommand({ db: command.config.db, file: command.args[0] as string }, log);
    case 'export':
      return exportCommand(command, log);
    case 'import':
      return importCommand(command, log);
  }
}

const JWT_SECRET_KEY = 'jwt_secret';

/** Replaces the token key kept in the database: every token issued with the old one stops working. */
async function rotateSecret(config: Config): Promise<number> {
  const store = await openStore(config, log);
  const db = describeDatabase(config.db);
  try {
    await store.replaceSetting(JWT_SECRET_KEY, generateSecret());
  } finally {
    await closeStore(store);
  }
  if (config.jwtSecret !== undefined) {
    // The stored key is replaced all the same, for the day the flag is dropped.
    log.info(
      `kurz: the token key stored in ${db} was replaced, but a key given by --jwt-secret or --jwt-secret-file (or their environment variables) takes precedence: a kurz started with it keeps accepting its tokens. To invalidate them, change that key and restart.`,
    );
    return 0;
  }
  log.info(
    `kurz: the token key in ${db} was replaced; every token issued before is now invalid and every user must log in again. A running kurz uses the new key once it is sent SIGHUP or restarted.`,
  );
  return 0;
}

/** How often serve() tries again to reach a database that is not up yet. */
const OPEN_RETRY_MS = 1000;

/**
 * Opens the store for serving. A PostgreSQL server that cannot be reached yet (kurz and
 * its database started together, or the database restarting) is waited for, said once,
 * rather than ending kurz: an instance behind a load balancer should come up by itself.
 */
async function openStoreWhenReachable(config: Config): Promise<Store> {
  let said = false;
  for (;;) {
    try {
      const store = await openStore(config, log);
      if (said) log.info('kurz: the database is reachable');
      return store;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (!said) {
        const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
        log.error(
          `kurz: database ${describeDatabase(config.db)} cannot be reached (${cause}); trying again every ${OPEN_RETRY_MS / 1000} s`,
        );
        said = true;
      }
      await Bun.sleep(OPEN_RETRY_MS);
    }
  }
}

/**
 * Closes the store; a disk that is full or a file that turned read-only makes the last
 * checkpoint fail, which is said in one line: what was committed is in the WAL, and
 * SQLite replays it at the next start.
 */
async function closeStore(store: Store): Promise<void> {
  try {
    await store.close();
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    log.error(
      `kurz: the database could not be checkpointed on close (${reason}); committed writes are kept in its WAL file and applied at the next start`,
    );
  }
}

/** A fresh 256-bit key for tokens, made once and kept in the database. */
function generateSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}

/** See the listen options in serve(); longer than BODY_DEADLINE_MS in http/body.ts. */
const IDLE_TIMEOUT_S = 15;

async function serve(config: Config): Promise<number> {
  let tls: Tls | undefined;
  try {
    // With --tls-cert, the pair is read and checked before anything else starts.
    tls = prepareTls(config.tls);
  } catch (error) {
    if (!(error instanceof CertificateFileError)) throw error;
    log.error(`kurz: ${error.message}`);
    return 2;
  }
  let blocklist = config.blocklist?.list;
  // Until the database is reached nothing has been accepted, so a signal ends kurz at
  // once (a migration cut short is rolled back by the database).
  const early = (signal: NodeJS.Signals) => {
    log.info(`kurz: ${signal} received before the database was reached; exiting`);
    process.exit(0);
  };
  process.on('SIGTERM', early);
  process.on('SIGINT', early);
  const store = await openStoreWhenReachable(config);
  process.off('SIGTERM', early);
  process.off('SIGINT', early);
  const jwtSecret = new TokenKey(
    config.jwtSecret ?? (await store.setting(JWT_SECRET_KEY, generateSecret)),
  );
  // SIGHUP reloads what may change while kurz runs: the certificate files (--tls-cert),
  // the token key kept in the database (after `kurz rotate-secret`) and the blocklist file
  // (a bad file, or a bad pair, keeps what is in force).
  process.on('SIGHUP', () => {
    if (tls?.files !== undefined) reloadCertificateFiles(tls.files, tls.certificates, log);
    if (config.jwtSecret === undefined) void reloadSecret(store, jwtSecret);
    else log.info('kurz: SIGHUP received; the token key is given by flag or file and stays');
    if (config.blocklist === undefined) return;
    try {
      blocklist = readBlocklist(config.blocklist.path);
      log.info(`kurz: blocklist reloaded, ${blocklist.domains.size} domains`);
    } catch (problem) {
      log.error(`kurz: blocklist not reloaded, the previous one stays: --blocklist ${problem}`);
    }
  });
  const writers = createWriters(store, log);
  let baseUrl = config.baseUrl;
  const domains = await DomainRegistry.open(store, () => baseUrl ?? '');
  // Read before listening, so the first link made is checked against it too.
  const blockedHosts = await BlockedHosts.open(store, log);
  const webhooks = new WebhookDispatcher({
    store,
    domainOf: domains.domainOf,
    log,
    policy: { allowPrivate: config.webhookAllowPrivate, resolve: systemResolve },
  });
  // Discovered in the background: a provider that cannot be reached yet does not hold the start.
  const { issuer, clientId } = config.oidc;
  const oidc =
    issuer === undefined || clientId === undefined
      ? undefined
      : new RelyingParty({
          settings: { ...config.oidc, issuer, clientId },
          redirectUri: () => oidcRedirectUri(baseUrl ?? ''),
          log,
        });
  oidc?.start();
  // The HTTPS listener (--tls), whose swaps the metrics count, and the ACME client of
  // --tls auto, whose orders they count (both start once the app is built).
  let https: HttpsListener | undefined;
  let acme: AcmeManager | undefined;
  const acmeOrders = config.tls.mode === 'auto' ? { issued: 0, failed: 0 } : undefined;
  const app = createApp({
    // Auto previews read target pages as webhooks are delivered: private addresses
    // only with --webhook-allow-private.
    previewPolicy: { allowPrivate: config.webhookAllowPrivate, resolve: systemResolve },
    baseUrl: () => baseUrl ?? '',
    mode: config.mode,
    store,
    jwtSecret,
    tokenTtlSeconds: config.tokenTtlSeconds,
    corsOrigins: config.corsOrigins,
    allowedHosts: config.allowedHosts,
    writers,
    cache: { size: config.cacheSize },
    rateLimits: config.rateLimitsEnabled ? config.rateLimits : undefined,
    trustedProxies: config.trustedProxies,
    blocklist: () => blocklist,
    blockedHosts,
    maxLinksPerUser: config.maxLinksPerUser,
    newAccountInterstitialDays: config.newAccountInterstitialDays,
    hstsMaxAgeSeconds: tls === undefined ? undefined : config.tls.hstsMaxAgeSeconds,
    certificates: tls?.certificates,
    listenerSwaps: () => https?.swaps ?? 0,
    acmeOrders,
    adminToken: config.adminToken,
    registration: config.registration,
    passwordLogin: config.passwordLogin,
    oidc,
    webhooks,
    metricsToken: config.metricsToken,
    accessLog: config.accessLog,
    log,
    domains,
  });
  const options = {
    development: false,
    // Bodies past a route's own limit (64 KiB, 8 MiB for POST /api/links/bulk) are
    // refused with JSON 413 by the app; this, 1 MiB above the largest, only stops a
    // giant upload from being read at all.
    maxRequestBodySize: BULK_MAX_BODY_BYTES + 1024 * 1024,
    // Seconds a connection may go without progress: a keep-alive connection between
    // requests, a request whose body stalls (or trickles: the bytes do not reset it), a
    // reader that stops taking a streamed list. Longer than the body deadline
    // (http/body.ts), so that a stalled body is answered 408 before it is dropped.
    // Headers are bounded by Bun itself (about 10 s from the first byte, not adjustable).
    idleTimeout: IDLE_TIMEOUT_S,
  };
  const db = describeDatabase(config.db);
  let listening: Listening;
  if (tls === undefined) {
    // Elysia defaults to SO_REUSEPORT, which lets a second kurz silently share the port.
    app.listen({ ...options, hostname: config.host, port: config.port, reusePort: false });
    const server = app.server;
    if (server === null) throw new Error('server did not start');
    listening = { stop: (closeActive) => server.stop(closeActive) };
    baseUrl ??= `http://localhost:${server.port}`;
    log.info(
      `kurz listening on http://${config.host}:${server.port} (mode: ${config.mode}, db: ${db})`,
    );
  } else {
    let serving: ReturnType<typeof serveHttps>;
    try {
      serving = serveHttps({
        settings: config.tls,
        baseUrl: config.baseUrl,
        hostname: config.host,
        app: servedApp(app),
        serve: options,
        certificates: tls.certificates,
        challenges: tls.challenges,
        drainMs: config.shutdownTimeoutMs,
        log,
      });
    } catch (error) {
      if (!(error instanceof PortInUseError)) throw error;
      log.error(`kurz: ${error.message}`);
      await closeStore(store);
      return 1;
    }
    listening = serving;
    https = serving.https;
    const port = serving.httpsPort === 443 ? '' : `:${serving.httpsPort}`;
    baseUrl ??= `https://localhost${port}`;
    log.info(
      `kurz listening on https://${config.host}:${serving.httpsPort} (mode: ${config.mode}, db: ${db})`,
    );
    log.info(
      serving.httpPort === undefined
        ? 'kurz: no plain HTTP (--http-port off)'
        : `kurz: plain HTTP on http://${config.host}:${serving.httpPort} answers ACME challenges and redirects to HTTPS`,
    );
    if (config.tls.mode === 'auto') {
      // Once plain HTTP answers challenges: the stored certificates are served at once,
      // the missing ones ordered in the background (the challenge answers kept in the
      // database, so that any instance answers the ACME server).
      tls.challenges.answerAlsoFrom(storedChallenges(store));
      acme = await AcmeManager.start({
        settings: config.tls,
        store,
        certificates: tls.certificates,
        challenges: tls.challenges,
        names: () => domains.all().map((domain) => domain.host),
        onNamesChange: (listener) => domains.onChange(listener),
        log,
        counts: acmeOrders,
      });
    }
  }
  if (config.blocklist !== undefined) {
    const { path, list } = config.blocklist;
    log.info(`kurz: blocklist ${path} has ${list.domains.size} domains`);
  }
  // Messages left in the outbox by an earlier run (a crash, a restart) go out now.
  webhooks.start();

  return new Promise((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info(`kurz: ${signal} received, shutting down`);
      // Stop accepting; in-flight requests finish (their clicks join a batch) …
      const finished = listening.stop(false);
      // … but no longer than the deadline: a stalled upload or a reader that stopped
      // reading must not hold the exit (and the closed port) for as long as it likes.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<'late'>((done) => {
        timer = setTimeout(() => done('late'), config.shutdownTimeoutMs);
      });
      if ((await Promise.race([finished, deadline])) === 'late') {
        log.info(
          `kurz: closing the connections still open after ${config.shutdownTimeoutMs / 1000} s`,
        );
        await listening.stop(true);
      }
      clearTimeout(timer);
      // Then every pending click and link is committed before the database closes; the
      // webhook calls in flight are left, to be sent again (their messages stay in the outbox).
      oidc?.stop();
      await Promise.all([drainWriters(writers), webhooks.stop(), acme?.stop()]);
      await closeStore(store);
      resolve(0);
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
  });
}

/** Reads the stored token key again (after `kurz rotate-secret`); tokens of the old key stop working. */
async function reloadSecret(store: Store, key: TokenKey): Promise<void> {
  try {
    key.replace(await store.setting(JWT_SECRET_KEY, generateSecret));
    log.info('kurz: SIGHUP received, token key reloaded from the database');
  } catch (error) {
    log.error(
      `kurz: SIGHUP received, but the token key could not be read (${error instanceof Error ? error.message : String(error)}); the old key stays in use`,
    );
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    log.error(`kurz: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
