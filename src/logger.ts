// A minimal logger seam: the binary writes to stdout/stderr, tests capture or silence it.

export interface Logger {
  info(message: string): void;
  error(message: string): void;
}

export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  error: (message) => console.error(message),
};

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
    info: (message) => log.info(message),
    error(message) {
      const now = performance.now();
      if (now - last < intervalMs) {
        held++;
        return;
      }
      last = now;
      log.error(held > 0 ? `${message} (and ${held} more like it before)` : message);
      held = 0;
    },
  };
}
