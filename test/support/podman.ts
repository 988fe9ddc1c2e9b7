// podman for the container tests, kept off the machine's own: each test file gets a
// folder holding everything podman makes (images, containers, volumes, its runtime
// state), removed with all of it when the file ends. Host networking by default (the
// containers' ports are the machine's, and no bridge or firewall rule is made; a test that
// maps ports gives its container slirp4netns, a user-mode network), runc with its state
// in the folder (through a wrapper: podman has no setting for it), and no default
// ulimits (podman's would be refused by a sandbox that forbids raising them).

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { run, tempDir } from './binary.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
export const PODMAN = Bun.which('podman');

/**
 * containers/image keeps a cache of layer digests at this fixed path for root, which
 * podman build writes whatever the storage settings say: what of it a test made goes.
 */
const BLOB_INFO_CACHE = '/var/lib/containers/cache';

export interface Podman {
  /** The environment that points podman (and scripts/image.sh) at the folder. */
  env: Record<string, string>;
  /** Runs podman in the checkout; its output and exit code. */
  run(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }>;
  /** podman's output, trimmed; throws with its error when it fails. */
  ok(...args: string[]): Promise<string>;
  /** Why podman cannot build and run a container here, else null (it is then set up). */
  cannotRun(): Promise<string | null>;
  /** Removes every container, volume and image, and the folder. */
  remove(): Promise<void>;
}

export function podmanInFolder(): Podman {
  const state = tempDir('kurz-podman-');
  /**
   * podman's runtime folder, where slirp4netns makes a socket named by a container's 64-hex
   * id: directly under /tmp, as a socket's path must stay under 108 bytes (the run's own
   * temporary folder is too deep for it).
   */
  let runtime = '';
  const madeHere = ['/var/lib/containers', BLOB_INFO_CACHE].filter((dir) => !existsSync(dir));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: state,
    CONTAINERS_CONF: join(state, 'containers.conf'),
    CONTAINERS_STORAGE_CONF: join(state, 'storage.conf'),
    TMPDIR: join(state, 'tmp'),
    // Without it, on a machine with systemd, podman adds a timer per container that runs
    // its health check with the machine's own podman settings.
    DISABLE_HC_SYSTEMD: 'true',
  };

  function configure(): void {
    for (const dir of ['tmp', 'bin', 'runc', 'networks']) mkdirSync(join(state, dir));
    runtime = mkdtempSync('/tmp/kurz-pod-');
    const runc = Bun.which('runc') ?? '/usr/sbin/runc';
    writeFileSync(
      join(state, 'bin', 'runc'),
      `#!/bin/sh\nexec ${runc} --root ${join(state, 'runc')} "$@"\n`,
    );
    chmodSync(join(state, 'bin', 'runc'), 0o755);
    writeFileSync(
      env.CONTAINERS_CONF as string,
      `[containers]
netns = "host"
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "${join(state, 'events.log')}"
tmp_dir = "${runtime}"
runtime = "runc"

[engine.runtimes]
runc = ["${join(state, 'bin', 'runc')}"]

[network]
network_config_dir = "${join(state, 'networks')}"
`,
    );
    writeFileSync(
      env.CONTAINERS_STORAGE_CONF as string,
      `[storage]
driver = "vfs"
graphroot = "${join(state, 'storage')}"
runroot = "${join(state, 'run')}"
`,
    );
  }

  const podman: Podman = {
    env,
    run: (...args) => run([PODMAN as string, ...args], { env, cwd: ROOT }),
    async ok(...args) {
      const result = await podman.run(...args);
      if (result.code !== 0) {
        throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      }
      return result.stdout.trim();
    },
    /** Tried with the smallest image there is: Debian's ldconfig, a static executable. */
    async cannotRun() {
      if (PODMAN === null) return 'podman is not installed (scripts/ensure-podman.sh installs it)';
      if (process.getuid?.() !== 0) return 'the test runs podman as root, and this is not root';
      configure();
      const probe = join(state, 'probe');
      mkdirSync(probe);
      writeFileSync(join(probe, 'Containerfile'), 'FROM scratch\nCOPY ldconfig /ldconfig\n');
      writeFileSync(join(probe, 'ldconfig'), readFileSync('/sbin/ldconfig'));
      chmodSync(join(probe, 'ldconfig'), 0o755);
      const built = await podman.run('build', '--quiet', '--tag', 'localhost/kurz-probe', probe);
      if (built.code !== 0) return `podman build fails here: ${built.stderr.trim()}`;
      const ran = await podman.run('run', '--rm', 'localhost/kurz-probe', '/ldconfig', '--version');
      await podman.run('rmi', 'localhost/kurz-probe');
      if (ran.code !== 0) return `podman run fails here: ${ran.stderr.trim()}`;
      return null;
    },
    async remove() {
      if (existsSync(env.CONTAINERS_CONF as string)) {
        await podman.run('rm', '--all', '--force', '--time', '0');
        await podman.run('volume', 'rm', '--all', '--force');
        await podman.run('rmi', '--all', '--force');
      }
      rmSync(state, { recursive: true, force: true });
      if (runtime !== '') rmSync(runtime, { recursive: true, force: true });
      for (const dir of madeHere.reverse()) rmSync(dir, { recursive: true, force: true });
    },
  };
  return podman;
}
