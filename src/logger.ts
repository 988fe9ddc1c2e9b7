// A minimal logger seam: the binary writes to stdout/stderr, as plain lines or as one JSON
// object a line (--log-format); tests capture or silence it.

import type { LogFormat } from './config/config.ts';

/**
 * What a line is about, for the JSON format (`request_id`, `status`, …); the text format
 * leaves them out, since its message already says what a person needs.
 */
export type LogFields = Readonly<Record<string, string | number | boolean | null>>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * Lines for stdout, written together once per event-loop turn rather than one write
 * each: the access log writes a line per request, and a write is most of its cost.
 * Whatever is left when the process exits is written then.
 */
const pendingLines: string[] = [];
function flushLines(): void {
  if (pendingLines.length === 0) return;
  const text = pendingLines.join('\n');
  pendingLines.length = 0;
  console.log(text);
}
process.on('exit', flushLines);
function toStdout(line: string): void {
  if (pendingLines.push(line) === 1) setImmediate(flushLines);
}

export const consoleLogger: Logger = {
  info: (message) => toStdout(message),
  error: (message) => console.error(message),
};

/**
 * One JSON object a line: `time` (ISO 8601, UTC), `level`, `msg`, then the line's fields.
 * A message of several lines (a stack) stays one line, escaped.
 */
export const jsonLogger: Logger = {
  info: (message, fields) => toStdout(jsonLine('info', message, fields)),
  error: (message, fields) => console.error(jsonLine('error', message, fields)),
};

function jsonLine(level: string, msg: string, fields: LogFields | undefined): string {
  const line: Record<string, unknown> = { time: new Date().toISOString(), level, msg };
  if (fields !== undefined) {
    // A field never takes the place of the three every line has.
    for (const [name, value] of Object.entries(fields)) if (!(name in line)) line[name] = value;
  }
  return JSON.stringify(line);
}

export function loggerFor(format: LogFormat): Logger {
  return format === 'json' ? jsonLogger : consoleLogger;
}

export const silentLogger: Logger = { info() {}, error() {} };

/**
 * The same logger, for errors that repeat with every request or batch (a full disk fails
 * them all): at most one line per `intervalMs`, and the next line says how many were
 * held back meanwhile, so a fault is told without writing thousands of lines a second.
 */
export function throttled(log: Logger, intervalMs = 1000): Logger {
  let last = Number.NEGATIVE_INFINITY;
  let held = 0;
  return {
    info: (message, fields) => log.info(message, fields),
    error(message, fields) {
      const now = performance.now();
      if (now - last < intervalMs) {
        held++;
        return;
      }
      last = now;
      log.error(held > 0 ? `${message} (and ${held} more like it before)` : message, fields);
      held = 0;
    },
  };
}
