// `kurz healthcheck`: asks the kurz of this machine (or of this container) for GET /health
// and turns the answer into an exit status for a container's HEALTHCHECK: 0 for 200
// "Healthy", else 1 with one line saying why. It opens no database and reads no other
// setting, so a check every few seconds costs a process start and one request.

import { request } from 'node:http';
import { printable } from '../domain/printable.ts';
import type { Logger } from '../logger.ts';

export interface HealthcheckRequest {
  /** Where kurz serve listens (--host, --port): the same flags and variables. */
  host: string;
  port: number;
  /** How long the answer may take, connecting included. */
  timeoutMs: number;
}

/** The body of /health when all is well: a JSON string (see health/routes.ts). */
const HEALTHY = JSON.stringify('Healthy');

/** How much of an unexpected body the message quotes. */
const QUOTED_BODY = 200;

/**
 * The address to ask: a server listening on every address (0.0.0.0, ::) is asked on
 * loopback, which it listens on too; any other host is asked as it is.
 */
export function healthUrl(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const target = bare === '0.0.0.0' ? '127.0.0.1' : bare === '::' ? '::1' : bare;
  return `http://${target.includes(':') ? `[${target}]` : target}:${port}/health`;
}

export async function healthcheckCommand(
  { host, port, timeoutMs }: HealthcheckRequest,
  log: Logger,
): Promise<number> {
  const url = healthUrl(host, port);
  const answer = await ask(url, timeoutMs);
  if ('status' in answer && answer.status === 200 && answer.body === HEALTHY) return 0;
  log.error(
    printable(`kurz healthcheck: ${url} ${'why' in answer ? answer.why : answered(answer)}`),
  );
  return 1;
}

type Answer = { status: number; body: string } | { why: string };

/** What an answer other than 200 "Healthy" was, in a line. */
function answered({ status, body }: { status: number; body: string }): string {
  const line = body.replace(/\s+/g, ' ').trim();
  const quoted = line.length > QUOTED_BODY ? `${line.slice(0, QUOTED_BODY)}…` : line;
  const shown = quoted === '' ? 'an empty body' : quoted;
  if (status === 200) return `answered 200 with ${shown}, not "Healthy" (is it kurz?)`;
  return `answered ${status} ${shown}`;
}

/**
 * GET `url` within `timeoutMs`. node:http rather than fetch: Bun's fetch sends even a
 * request to loopback through HTTP_PROXY when the environment names one.
 */
function ask(url: string, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        // A stranger's large page is not read to its end: the start says enough.
        if (body.length <= QUOTED_BODY) body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (error) => resolve({ why: failure(error) }));
    });
    const timer = setTimeout(() => {
      resolve({ why: `did not answer within ${timeoutMs / 1000} s` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) => resolve({ why: failure(error) }));
    req.on('close', () => clearTimeout(timer));
    req.end();
  });
}

function failure(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'refused the connection (nothing listens there)';
  return `cannot be reached (${code === undefined ? error.message : `${code}: ${error.message}`})`;
}
