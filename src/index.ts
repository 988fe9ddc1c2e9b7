// The kurz executable: read the command line, open the store, serve or migrate, and
// shut down cleanly on SIGINT/SIGTERM.

import { createApp, createWriters, drainWriters } from './app.ts';
import { parseCommandLine, USAGE } from './config/cli.ts';
import { type Config, ConfigError } from './config/config.ts';
import { consoleLogger as log } from './logger.ts';
import { openSqlite } from './store/sqlite/sqlite-store.ts';
import type { Store } from './store/store.ts';
import { VERSION } from './version.ts';

async function main(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parseCommandLine>;
  try {
    command = parseCommandLine(argv, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`kurz: ${error.message}`);
    return 2;
  }
  switch (command.kind) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'version':
      console.log(`kurz ${VERSION}`);
      return 0;
    case 'migrate': {
      const store = openStore(command.config);
      await store.close();
      log.info(`kurz: database ${command.config.db} is up to date`);
      return 0;
    }
    case 'rotate-secret':
      return rotateSecret(command.config);
    case 'serve':
      return serve(command.config);
  }
}

const JWT_SECRET_KEY = 'jwt_secret';

/** Replaces the token key kept in the database: every token issued with the old one stops working. */
async function rotateSecret(config: Config): Promise<number> {
  const store = openStore(config);
  try {
    await store.replaceSetting(JWT_SECRET_KEY, generateSecret());
  } finally {
    await store.close();
  }
  log.info(
    `kurz: the token key in ${config.db} was replaced; every token issued before is now invalid and every user must log in again. A running kurz uses the new key once it is restarted or sent SIGHUP.`,
  );
  if (config.jwtSecret !== undefined) {
    log.info(
      'kurz: note that a key given by --jwt-secret or --jwt-secret-file takes precedence over the stored one.',
    );
  }
  return 0;
}

function openStore(config: Config): Store {
  return openSqlite({ path: config.db, durability: config.durability });
}

/** A fresh 256-bit key for tokens, made once and kept in the database. */
function generateSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}

async function serve(config: Config): Promise<number> {
  const store = openStore(config);
  const jwtSecret = config.jwtSecret ?? (await store.setting(JWT_SECRET_KEY, generateSecret));
  const writers = createWriters(store, log);
  let baseUrl = config.baseUrl;
  const app = createApp({
    baseUrl: () => baseUrl ?? '',
    mode: config.mode,
    store,
    jwtSecret,
    tokenTtlSeconds: config.tokenTtlSeconds,
    corsOrigins: config.corsOrigins,
    writers,
    cache: { size: config.cacheSize },
  });
  app.listen({
    hostname: config.host,
    port: config.port,
    // Elysia defaults to SO_REUSEPORT, which lets a second kurz silently share the port.
    reusePort: false,
    development: false,
    // Bodies past the API's own 64 KiB limit are refused with JSON 413 by the app;
    // this only stops a giant upload from being buffered at all.
    maxRequestBodySize: 1024 * 1024,
  });
  const server = app.server;
  if (server === null) throw new Error('server did not start');
  const address = `http://${config.host}:${server.port}`;
  baseUrl ??= `http://localhost:${server.port}`;
  log.info(`kurz listening on ${address} (mode: ${config.mode}, db: ${config.db})`);

  return new Promise((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info(`kurz: ${signal} received, shutting down`);
      // Stop accepting; in-flight requests finish (their clicks join a batch) …
      await server.stop(false);
      // … then every pending click and link is committed before the database closes.
      await drainWriters(writers);
      await store.close();
      resolve(0);
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`kurz: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
