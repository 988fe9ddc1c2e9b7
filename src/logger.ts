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
