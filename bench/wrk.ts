import { readFileSync } from 'node:fs';

// Running wrk (pinned to its own CPU) and reading its report.

export interface WrkResult {
  requests: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  non2xx3xx: number;
  /** Server CPU time (all threads) per request, in microseconds, when a pid was given. */
  cpuUs: number;
}

/** utime + stime of a process, all threads, in clock ticks (1/100 s). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

export interface WrkOptions {
  url: string;
  seconds: number;
  connections?: number;
  cpu: number;
  script?: string;
  /** The server's pid, to measure its CPU time per request. */
  pid?: number;
}

export async function wrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    'taskset',
    '-c',
    String(options.cpu),
    'wrk',
    '-t1',
    `-c${options.connections ?? 64}`,
    `-d${options.seconds}s`,
    '--latency',
  ];
  if (options.script) args.push('-s', options.script);
  args.push(options.url);
  const before = options.pid ? cpuTicks(options.pid) : 0;
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`wrk failed: ${err}${out}`);
  const ticks = options.pid ? cpuTicks(options.pid) - before : Number.NaN;
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    out,
  );
  return {
    requests: num(/(\d+) requests in/),
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p50ms: toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? ''),
    p99ms: toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? ''),
    errors: socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
    non2xx3xx: num(/Non-2xx or 3xx responses: (\d+)/),
    cpuUs: (ticks * 10_000) / Math.max(1, num(/(\d+) requests in/)),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Rounds of one server in one line: medians of rate, latency and CPU, sums of requests and failures. */
export function summarise(name: string, runs: WrkResult[]) {
  return {
    name,
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50ms)),
    p99: median(runs.map((r) => r.p99ms)),
    cpu: median(runs.map((r) => r.cpuUs)),
    requests: runs.reduce((a, r) => a + r.requests, 0),
    bad: runs.reduce((a, r) => a + r.errors + r.non2xx3xx, 0),
  };
}
