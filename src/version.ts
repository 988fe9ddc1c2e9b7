// What `kurz --version` prints: the version from package.json and the commit kurz was
// built from. The build (scripts/build.ts) writes the commit in with --define, so nothing
// generated is committed; run from source (`bun run`, `bun test`) kurz reads its checkout.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** Defined by scripts/build.ts as the checkout's commit (see describeCheckout). */
declare const KURZ_COMMIT: string | undefined;

/**
 * The commit as `kurz --version` shows it: 12 hex digits, `-dirty` after them when the work
 * tree had changes not committed (untracked files too: they may be built in), or `unknown`
 * outside a git checkout (or without git).
 */
export function describeCheckout(dir: string): string {
  const git = (...args: string[]) => {
    try {
      const run = Bun.spawnSync(['git', ...args], { cwd: dir, stdout: 'pipe', stderr: 'ignore' });
      return run.success ? run.stdout.toString() : undefined;
    } catch {
      return undefined; // no git on PATH
    }
  };
  const head = git('rev-parse', '--verify', 'HEAD')?.trim();
  if (head === undefined || !/^[0-9a-f]{40,}$/.test(head)) return 'unknown';
  const changes = git('status', '--porcelain');
  return `${head.slice(0, 12)}${changes === '' ? '' : '-dirty'}`;
}

/** The commit this kurz was built from; from source, the checkout's at this moment. */
export function buildCommit(): string {
  if (typeof KURZ_COMMIT === 'string') return KURZ_COMMIT;
  // An executable built without the define cannot know; its source folder is not where
  // the executable runs.
  return Bun.isStandaloneExecutable ? 'unknown' : describeCheckout(import.meta.dir);
}

/** The line `kurz --version` prints, e.g. `kurz 0.1.0 (commit a19652d1c2e3)`. */
export function versionLine(): string {
  return `kurz ${VERSION} (commit ${buildCommit()})`;
}
