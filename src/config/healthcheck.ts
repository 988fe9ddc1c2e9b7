// `kurz healthcheck [--host H] [--port N] [--timeout SECS]`: its command line and its
// --help. It reads where the server listens from the server's own flags and variables.

import { checked, gather, readWords, valued } from './args.ts';
import { ConfigError, DEFAULTS, defaultConfig } from './config.ts';
import { applyFlag } from './flags.ts';
import { wholeNumber } from './values.ts';

/**
 * Seconds the health check waits by default: less than the container image's HEALTHCHECK
 * --timeout, so that a slow answer is said by kurz rather than cut off by the runtime.
 */
const HEALTHCHECK_TIMEOUT_S = 3;

export const HEALTHCHECK_USAGE = `Usage:
  kurz healthcheck [--host H] [--port N] [--timeout SECS]

Asks the kurz listening at H:N for GET /health: exits 0 when it answers 200 "Healthy",
else 1 with one line on stderr saying why (the connection refused, no answer in time,
503 "Database unavailable", …). It reads --host and --port, and their variables, as kurz
serve does, so that with the server's environment (a container's) it finds the server;
one listening on every address (0.0.0.0 or ::) is asked on loopback (127.0.0.1 or ::1).
It opens no database and reads no other setting: it is the container image's
HEALTHCHECK, cheap enough to run every few seconds.

Flags:
  --host H          KURZ_HOST                 the address kurz listens on (default ${DEFAULTS.host})
  --port N          PORT                      the port it listens on (default ${DEFAULTS.port})
  --timeout SECS    KURZ_HEALTHCHECK_TIMEOUT  how long to wait for the answer (default ${HEALTHCHECK_TIMEOUT_S})
`;

/** Where the server listens (the server's own flags), and how long to wait for it. */
export interface HealthcheckCommand {
  kind: 'healthcheck';
  host: string;
  port: number;
  timeoutMs: number;
}

/** Two of the server's flags (the same variables) and its own. */
const HEALTHCHECK_FLAGS = {
  '--host': 'KURZ_HOST',
  '--port': 'PORT',
  '--timeout': 'KURZ_HEALTHCHECK_TIMEOUT',
} as const;

export function parseHealthcheck(
  args: readonly string[],
  env: Record<string, string | undefined>,
): HealthcheckCommand {
  const words = readWords(args, valued(HEALTHCHECK_FLAGS));
  const given = gather(words, env, HEALTHCHECK_FLAGS, 'healthcheck');
  // Only --host and --port: the server's other variables (a secret file, the blocklist)
  // are nothing to a health check, and it must not fail on them.
  const server = defaultConfig();
  for (const flag of ['--host', '--port'] as const) {
    const entry = given.get(flag);
    if (entry !== undefined) applyFlag(flag, entry.label, entry.value, server);
  }
  if (server.port === 0) {
    const label = given.get('--port')?.label as string;
    throw new ConfigError(
      `${label} must be the port kurz listens on, not 0 (which picks a free one)`,
    );
  }
  const timeout = given.get('--timeout');
  const seconds =
    timeout === undefined
      ? HEALTHCHECK_TIMEOUT_S
      : checked(timeout.label, () =>
          wholeNumber(timeout.value, 1, 60, 'a number of seconds from 1 to 60'),
        );
  return { kind: 'healthcheck', host: server.host, port: server.port, timeoutMs: seconds * 1000 };
}
