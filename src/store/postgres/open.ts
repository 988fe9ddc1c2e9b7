// Opening a PostgreSQL store: the pool (with the deadline every statement gets from the
// server too), kurz's schema, the migrations, and what an error of the client or the
// server means for the caller (StoreUnavailableError: the database cannot serve now).

import { SQL } from 'bun';
import { DrizzleQueryError } from 'drizzle-orm';
import { StoreUnavailableError } from '../../domain/errors.ts';
import type { Logger } from '../../logger.ts';
import type { Wrapper } from '../guarded.ts';
import { applyMigrations } from './migrate.ts';

export interface PostgresOptions {
  /** postgres:// or postgresql:// URL; `?schema=NAME` keeps kurz's tables in that schema. */
  url: string;
  /** Connections in the pool (besides the one that listens for changes). */
  pool: number;
  /** Where changes of the store's state (connection lost, back) are told; once per change. */
  log?: Logger;
  /**
   * How long one operation may take before it is answered as unavailable (ms); the
   * server cancels a statement that runs longer. 0: no deadline (tools such as
   * `kurz copy`, whose statements may run long).
   */
  deadlineMs?: number;
  /** How often this instance moves clicks from the log into records and rollups (ms); 0: never by itself. */
  analyticsIntervalMs?: number;
  /** Days click records are kept (day rollups stay); 0 or absent: forever. */
  clickRetentionDays?: number;
}

/**
 * An operation that has not finished by then is answered 503: a stopped or unreachable
 * server must not hold requests, and /health must answer within 2 s.
 */
export const DEFAULT_DEADLINE_MS = 1500;
/** Seconds a new connection may take; below the deadline, so a dead server is seen in time. */
const CONNECT_TIMEOUT_S = 1;

/**
 * SQLSTATE classes and codes that say the database cannot serve now, not that the
 * query was wrong: connection failures (08), resources (53), operator intervention
 * (57: shutdown, cannot connect now, statement timeout), system errors (58), a
 * read-only server (25006, a standby), and a serialization failure or deadlock (40001,
 * 40P01), which the client may simply try again: 503, not 500.
 */
const UNAVAILABLE_STATES = /^(08|53|57|58|25006|40001|40P01)/;

/** The error a caller sees: StoreUnavailableError when the database is unreachable or failing. */
export function classify(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  if (error instanceof DrizzleQueryError) {
    // drizzle's prepared queries wrap the client's error: judge the one underneath.
    const cause = classify(error.cause);
    return cause instanceof StoreUnavailableError ? cause : error;
  }
  if (error instanceof SQL.PostgresError) {
    if (error.code !== 'ERR_POSTGRES_SERVER_ERROR') {
      // The client's own codes: connection refused, closed, timed out, TLS, auth…
      return new StoreUnavailableError({ cause: error });
    }
    if (UNAVAILABLE_STATES.test(String(error.errno ?? ''))) {
      return new StoreUnavailableError({ cause: error });
    }
    return error;
  }
  if (error instanceof SQL.SQLError || (error as { code?: string })?.code === 'ECONNREFUSED') {
    return new StoreUnavailableError({ cause: error });
  }
  return error;
}

/** The connection URL without kurz's own `schema` parameter, and that schema. */
function splitSchema(url: string): { url: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schemaName = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  if (schemaName !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) {
    throw new Error(`schema "${schemaName}" must be a lower-case SQL name`);
  }
  return { url: parsed.toString(), schema: schemaName };
}

/**
 * Opens the pool and applies migrations (one instance at a time); the pool, and the
 * deadline its operations get. Throws StoreUnavailableError when the server cannot be
 * reached.
 */
export async function connect(
  options: PostgresOptions,
): Promise<{ client: SQL; deadlineMs: number }> {
  const { url, schema: schemaName } = splitSchema(options.url);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const client = new SQL(url, {
    max: options.pool,
    connectionTimeout: CONNECT_TIMEOUT_S,
    // Idle connections are closed after a while, so a pool shrinks after a burst.
    idleTimeout: 60,
    connection: {
      // A statement the caller stopped waiting for is cancelled by the server too, so
      // that it holds neither a connection of the pool nor the server's time.
      statement_timeout: deadlineMs,
      ...(schemaName !== undefined ? { search_path: schemaName } : {}),
    },
  });
  try {
    await applyMigrations(client, schemaName);
    return { client, deadlineMs };
  } catch (error) {
    await client.close({ timeout: 0 });
    throw classify(error);
  }
}

/**
 * Runs each operation against the deadline (0: none): past it, or on a connection
 * failure, the caller gets StoreUnavailableError, as it does once `closed()`. A write
 * past its deadline may still commit; it was not acknowledged, so nothing acknowledged
 * is lost.
 */
export function deadline(deadlineMs: number, closed: () => boolean): Wrapper {
  return async <T>(work: () => T | Promise<T>): Promise<T> => {
    if (closed()) throw new StoreUnavailableError();
    if (deadlineMs === 0) {
      try {
        return await work();
      } catch (error) {
        throw classify(error);
      }
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const passed = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError({ cause: 'database deadline passed' })),
        deadlineMs,
      );
    });
    let operation: Promise<T>;
    try {
      operation = Promise.resolve(work());
    } catch (error) {
      clearTimeout(timer);
      throw classify(error);
    }
    // A late failure after the deadline answered must not be unhandled.
    operation.catch(() => {});
    try {
      return await Promise.race([operation, passed]);
    } catch (error) {
      throw classify(error);
    } finally {
      clearTimeout(timer);
    }
  };
}
