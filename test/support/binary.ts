// Starts the compiled dist/kurz as a child process on port 0 and reads the port it
// prints, so tests talk to the real executable over HTTP. KURZ_TEST_BINARY names another
// executable (the release test runs the walk-through on the one from its archive).

import { resolve } from 'node:path';
import type { Subprocess } from 'bun';
import { tempDir, track } from './cleanup.ts';

export { tempDir };

export const BINARY = resolve(
  process.env.KURZ_TEST_BINARY || resolve(import.meta.dir, '..', '..', 'dist', 'kurz'),
);
const LISTENING = /kurz listening on (https?):\/\/[^:]+:(\d+) /;
/** The second line of a kurz serving HTTPS itself: where plain HTTP is (or `off`). */
const PLAIN_HTTP = /kurz: (?:plain HTTP on http:\/\/[^:]+:(\d+) |no plain HTTP)/;

export interface Running {
  /** The base of every request: http:// or, with --https-port, https://. */
  url: string;
  port: number;
  /** With --https-port: plain HTTP's port (undefined with --http-port off). */
  httpPort?: number;
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  /** Everything printed so far on stdout and stderr. */
  output(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export interface StartOptions {
  cwd?: string;
  env?: Record<string, string>;
  binary?: string;
  /** What runKurz feeds on stdin (nothing when absent). */
  input?: string;
  /** A command that runs the binary, such as an emulator: `qemu-aarch64 -L …`. */
  runner?: string[];
  /** How long startKurz waits for the listening line (10 s unless said). */
  startTimeoutMs?: number;
}

/**
 * Runs `kurz serve --port 0 …args` and waits for its listening line; with --https-port
 * in `args` (kurz serving HTTPS itself), without --port, and waits for both ports' lines.
 */
export async function startKurz(args: string[], options: StartOptions = {}): Promise<Running> {
  const proc = track(
    Bun.spawn(
      [
        ...(options.runner ?? []),
        options.binary ?? BINARY,
        'serve',
        ...(args.includes('--https-port') ? [] : ['--port', '0']),
        '--host',
        '127.0.0.1',
        ...args,
      ],
      {
        cwd: options.cwd ?? tempDir(),
        env: { PATH: process.env.PATH ?? '', ...options.env },
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      },
    ),
  );
  let out = '';
  let err = '';
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>, into: 'out' | 'err') => {
    for await (const chunk of stream) {
      if (into === 'out') out += decoder.decode(chunk);
      else err += decoder.decode(chunk);
    }
  };
  void pump(proc.stdout, 'out');
  void pump(proc.stderr, 'err');
  const deadline = Date.now() + (options.startTimeoutMs ?? 10_000);
  const https = args.includes('--https-port');
  while (!LISTENING.test(out) || (https && !PLAIN_HTTP.test(out))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`kurz did not start (exit ${proc.exitCode}):\n${out}\n${err}`);
    }
    await Bun.sleep(5);
  }
  const [, scheme, port] = LISTENING.exec(out) ?? [];
  const plain = PLAIN_HTTP.exec(out)?.[1];
  return {
    url: `${scheme}://${scheme === 'https' ? 'localhost' : '127.0.0.1'}:${port}`,
    port: Number(port),
    httpPort: plain === undefined ? undefined : Number(plain),
    proc,
    output: () => out + err,
    async stop(signal = 'SIGTERM') {
      proc.kill(signal);
      return proc.exited;
    },
  };
}

/** Runs the binary to completion (for --help, bad flags, migrate). */
export function runKurz(args: string[], options: StartOptions = {}) {
  return run([...(options.runner ?? []), options.binary ?? BINARY, ...args], {
    cwd: options.cwd ?? tempDir(),
    env: { PATH: process.env.PATH ?? '', ...options.env },
    input: options.input,
  });
}

/** Runs a command to completion, collecting its output and exit code. */
export async function run(
  command: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
) {
  const { input, ...spawn } = options;
  const proc = track(
    Bun.spawn(command, {
      ...spawn,
      stdin: input === undefined ? 'ignore' : new Blob([input]),
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

/** A small HTTP client for a running binary. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: {
    json?: unknown;
    raw?: string;
    token?: string;
    headers?: Record<string, string>;
    /** The CA an https:// base is verified against (a test CA). */
    ca?: string;
  } = {},
) {
  const headers: Record<string, string> = {};
  if (options.json !== undefined || options.raw !== undefined)
    headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  Object.assign(headers, options.headers);
  const response = await fetch(base + path, {
    method,
    headers,
    body: options.raw ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
    redirect: 'manual',
    ...(options.ca === undefined ? {} : { tls: { ca: options.ca } }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * Waits until `check` holds, polling every 20 ms; fails after `ms` with what was awaited
 * (`what` may be a function, to describe the state at that moment).
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string | (() => string),
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`never happened: ${typeof what === 'string' ? what : what()}`);
    }
    await Bun.sleep(20);
  }
}
