// `bun run build`: compiles kurz into one executable, dist/kurz, for this machine. The
// release (scripts/release.ts) builds each platform with buildKurz too, so both write the
// same commit into the executable (`kurz --version`) and use the same flags.

import { resolve } from 'node:path';
import { describeCheckout, VERSION } from '../src/version.ts';

export const ROOT = resolve(import.meta.dir, '..');

/**
 * The server and its maintenance thread, which runs as a worker and so must be an
 * entrypoint of its own (src/store/sqlite/sqlite-store.ts names it by this path under src/).
 */
const ENTRYPOINTS = ['src/index.ts', 'src/store/sqlite/maintenance.ts'];

/** What a build is stamped with, and what the release dates its archives by. */
export interface SourceStamp {
  /** As describeCheckout gives it: 12 hex digits, perhaps `-dirty`, or `unknown`. */
  commit: string;
  /** Seconds since 1970: SOURCE_DATE_EPOCH, else the commit's time; none outside git. */
  time: number | undefined;
}

const COMMIT = /^([0-9a-f]{7,40}(-dirty)?|unknown)$/;

/**
 * The checkout's commit and time. KURZ_COMMIT and SOURCE_DATE_EPOCH stand in for git where
 * there is none (a copy of the source), so such a build can equal the checkout's.
 */
export function sourceStamp(env: Record<string, string | undefined> = process.env): SourceStamp {
  const commit = env.KURZ_COMMIT || describeCheckout(ROOT);
  if (!COMMIT.test(commit)) {
    throw new Error(`KURZ_COMMIT must be a commit such as a19652d1c2e3 (got "${commit}")`);
  }
  const epoch = env.SOURCE_DATE_EPOCH || gitCommitTime();
  if (epoch !== undefined && !/^\d{1,12}$/.test(epoch)) {
    throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970 (got "${epoch}")`);
  }
  return { commit, time: epoch === undefined ? undefined : Number(epoch) };
}

function gitCommitTime(): string | undefined {
  try {
    const run = Bun.spawnSync(['git', 'log', '-1', '--format=%ct'], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'ignore',
    });
    const time = run.stdout.toString().trim();
    return run.success && time !== '' ? time : undefined;
  } catch {
    return undefined;
  }
}

export interface BuildOptions {
  /** The executable to write; its file name is built into it, so keep it the same between builds. */
  outfile: string;
  commit: string;
  /** A `bun-…` compile target; this machine's when absent. */
  target?: string;
  /** Where to write the bundler's list of inputs (the release reads the packages from it). */
  metafile?: string;
  /** Keep bun build's output unless it fails (the release builds eight in a row). */
  quiet?: boolean;
}

/** Compiles kurz; throws with bun build's output when it fails. */
export async function buildKurz(options: BuildOptions): Promise<void> {
  const command = [
    process.execPath,
    'build',
    ...ENTRYPOINTS,
    '--compile',
    ...(options.target ? [`--target=${options.target}`] : []),
    '--minify',
    '--bytecode',
    '--sourcemap=none',
    // Constant in the executable, so the code for running from source is left out (with
    // the checkout's paths it would carry).
    '--define',
    'Bun.isStandaloneExecutable=true',
    '--define',
    `KURZ_COMMIT=${JSON.stringify(options.commit)}`,
    ...(options.metafile ? [`--metafile=${options.metafile}`] : []),
    '--outfile',
    options.outfile,
  ];
  if (!options.quiet) {
    const code = await Bun.spawn(command, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] })
      .exited;
    if (code !== 0) throw new Error(`bun build failed (exit ${code})`);
    return;
  }
  const build = Bun.spawn(command, { cwd: ROOT, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([
    new Response(build.stdout).text(),
    new Response(build.stderr).text(),
    build.exited,
  ]);
  if (code !== 0) {
    throw new Error(
      `bun build --target=${options.target} failed (exit ${code}):\n${stdout}${stderr}`,
    );
  }
}

if (import.meta.main) {
  const { commit } = sourceStamp();
  // `--target linux-arm64` (a release target's name): dist/kurz-linux-arm64, for the
  // container image of another architecture (scripts/image.sh).
  const [flag, name] = process.argv.slice(2);
  if (flag !== undefined && (flag !== '--target' || !/^linux-(x64|arm64)$/.test(name ?? ''))) {
    console.error('usage: bun scripts/build.ts [--target linux-x64|linux-arm64]');
    process.exit(2);
  }
  const outfile = name ? `kurz-${name}` : 'kurz';
  await buildKurz({
    outfile: resolve(ROOT, 'dist', outfile),
    commit,
    ...(name ? { target: `bun-${name}`, quiet: true } : {}),
  });
  console.log(`dist/${outfile}: kurz ${VERSION} (commit ${commit})`);
}
