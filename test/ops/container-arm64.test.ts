// The images for each architecture: `bun run image` as it is by default builds a
// linux/amd64 and a linux/arm64 image and a manifest list naming both. The arm64 image
// holds the arm64 executable (cross-compiled as the release does) with the loader and
// libraries of Debian's libc6-arm64-cross, and the same other files as the amd64 one;
// built again, its layer is the same; `podman manifest push --all` sends all three. It runs on this x86-64 machine as it would on a
// Raspberry Pi: under podman through qemu-user-static registered with binfmt_misc
// (scripts/ensure-qemu.sh registers it), and its own files, taken out of the image,
// under qemu-aarch64 with the image as their root. Each: /health, a link made, its 307,
// and SIGTERM ending it with exit code 0. Where podman or qemu cannot run, the test says
// why and skips those checks (test/ops/container.test.ts tests the amd64 image in depth).

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { BINARY, call, eventually, run, startKurz, tempDir } from '../support/binary.ts';
import { podmanInFolder } from '../support/podman.ts';
import { freePort } from '../support/proxies.ts';
import { executableHeader, MACHINES } from '../support/release.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
/** The manifest list; TAG-amd64 and TAG-arm64 are its images. */
const TAG = 'localhost/kurz-multi:test';
const ARM64_LIBC = '/usr/aarch64-linux-gnu/lib';

const pod = podmanInFolder();
const cannotRun = await pod.cannotRun();
if (cannotRun !== null) console.log(`container-arm64: ${cannotRun}; the images are not built`);
afterAll(() => pod.remove(), 60_000);

const BINFMT_ENTRY = '/proc/sys/fs/binfmt_misc/qemu-aarch64';

/** Whether the kernel hands AArch64 executables to a static qemu that works in a container. */
function binfmtArm64(): string | null {
  if (!existsSync(BINFMT_ENTRY)) {
    return 'AArch64 executables are not registered with binfmt_misc (scripts/ensure-qemu.sh registers them)';
  }
  const text = readFileSync(BINFMT_ENTRY, 'utf8');
  if (!text.startsWith('enabled')) return 'the binfmt_misc entry qemu-aarch64 is disabled';
  // Without F the emulator is looked up inside the container's root, where it is not.
  if (!/^flags: .*F/m.test(text)) return 'the binfmt_misc entry qemu-aarch64 lacks the F flag';
  return null;
}
const noBinfmt = binfmtArm64();
const QEMU = Bun.which('qemu-aarch64');
if (cannotRun === null && noBinfmt !== null) {
  console.log(`container-arm64: ${noBinfmt}; the arm64 container is not run`);
}

/** Every file of an image's root: path, mode and owner. */
function listing(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = `${dir}/${name}`;
      const stat = lstatSync(join(root, path));
      files.push(`${path} ${(stat.mode & 0o7777).toString(8)} ${stat.uid}:${stat.gid}`);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk('');
  return files.sort();
}

const ARM64_LIBRARIES = ['libc.so.6', 'libdl.so.2', 'libm.so.6', 'libpthread.so.0'];

describe.skipIf(cannotRun !== null)('bun run image: linux/amd64 and linux/arm64', () => {
  beforeAll(async () => {
    if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
    const started = performance.now();
    const image = await run(['sh', 'scripts/image.sh', '--tag', TAG], {
      cwd: ROOT,
      env: { ...pod.env, KURZ_SOURCE_URL: 'https://git.example/kurz' },
    });
    if (image.code !== 0) throw new Error(`scripts/image.sh failed:\n${image.stderr}`);
    expect(image.stderr).toContain(
      `kurz image: ${TAG} is a manifest list of linux/amd64 linux/arm64`,
    );
    console.log(
      `container-arm64: scripts/image.sh built both images and the list in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 240_000);

  test('the manifest list names one image per platform, each of its architecture, labelled alike', async () => {
    const list = JSON.parse(await pod.ok('manifest', 'inspect', TAG));
    expect(list.manifests.map((m: { platform: object }) => m.platform)).toEqual([
      { architecture: 'amd64', os: 'linux' },
      { architecture: 'arm64', os: 'linux' },
    ]);
    const [amd64, arm64] = JSON.parse(
      await pod.ok('image', 'inspect', `${TAG}-amd64`, `${TAG}-arm64`),
    );
    expect([amd64.Architecture, amd64.Os, arm64.Architecture, arm64.Os]).toEqual([
      'amd64',
      'linux',
      'arm64',
      'linux',
    ]);
    // Each entry of the list is the manifest of its image.
    expect(list.manifests.map((m: { digest: string }) => m.digest)).toEqual([
      amd64.Digest,
      arm64.Digest,
    ]);
    expect(arm64.Config).toEqual(amd64.Config);
    expect(arm64.Config.Labels['org.opencontainers.image.version']).toBe(pkg.version);
    expect(arm64.HealthCheck ?? arm64.Healthcheck).toEqual(amd64.HealthCheck ?? amd64.Healthcheck);
  });

  test("podman manifest push --all, as docs/container.md's push, sends the list and both images", async () => {
    // To a folder in the OCI layout rather than a registry, which the tests have none of.
    const out = join(tempDir(), 'pushed');
    await pod.ok('manifest', 'push', '--all', TAG, `oci:${out}`);
    const blob = (digest: string) =>
      JSON.parse(readFileSync(join(out, 'blobs', ...digest.split(':')), 'utf8'));
    const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8'));
    const list = blob(index.manifests[0].digest);
    expect(list.manifests.map((m: { platform: object }) => m.platform)).toEqual([
      { architecture: 'amd64', os: 'linux' },
      { architecture: 'arm64', os: 'linux' },
    ]);
    for (const entry of list.manifests) {
      const manifest = blob(entry.digest);
      expect(blob(manifest.config.digest).architecture).toBe(entry.platform.architecture);
      for (const layer of manifest.layers) {
        expect(existsSync(join(out, 'blobs', ...layer.digest.split(':')))).toBe(true);
      }
    }
    const page = readFileSync(join(ROOT, 'docs', 'container.md'), 'utf8');
    expect(page).toContain(
      'podman manifest push --all kurz:0.1.0 docker://registry.example/kurz:0.1.0\n'.replaceAll(
        '0.1.0',
        pkg.version,
      ),
    );
  }, 60_000);

  test("the arm64 image: the arm64 executable, libc6-arm64-cross's loader and libraries where it looks, the amd64 image's other files", async () => {
    const [amd64, arm64] = [
      await pod.ok('image', 'mount', `${TAG}-amd64`),
      await pod.ok('image', 'mount', `${TAG}-arm64`),
    ];
    try {
      const kurz = readFileSync(join(arm64, 'usr/local/bin/kurz'));
      expect(executableHeader(kurz)).toEqual({
        format: 'ELF',
        machine: MACHINES.elf.arm64,
        interpreter: '/lib/ld-linux-aarch64.so.1',
      });
      expect(kurz.equals(readFileSync(join(ROOT, 'dist', 'kurz-linux-arm64')))).toBe(true);
      const libraries = [
        ['/lib/ld-linux-aarch64.so.1', 'ld-linux-aarch64.so.1'],
        ...ARM64_LIBRARIES.map((name) => [`/lib/aarch64-linux-gnu/${name}`, name]),
      ] as const;
      for (const [path, name] of libraries) {
        expect([
          path,
          readFileSync(join(arm64, path)).equals(readFileSync(join(ARM64_LIBC, name))),
        ]).toEqual([path, true]);
      }
      // The same files otherwise, with the same modes and owners.
      const others = (root: string) =>
        listing(root).filter((line) => !/^\/(lib|lib64|usr)[/ ]/.test(line));
      expect(others(arm64)).toEqual(others(amd64));
      for (const path of [
        'etc/ssl/certs/ca-certificates.crt',
        'etc/passwd',
        'etc/group',
        'etc/nsswitch.conf',
      ]) {
        expect([
          path,
          readFileSync(join(arm64, path)).equals(readFileSync(join(amd64, path))),
        ]).toEqual([path, true]);
      }
      expect(listing(arm64).filter((line) => /^\/(lib|usr)[/ ]/.test(line))).toEqual(
        [
          '/lib 755 0:0',
          '/lib/aarch64-linux-gnu 755 0:0',
          ...ARM64_LIBRARIES.map((name) => `/lib/aarch64-linux-gnu/${name} 755 0:0`),
          '/lib/ld-linux-aarch64.so.1 755 0:0',
          '/usr 755 0:0',
          '/usr/local 755 0:0',
          '/usr/local/bin 755 0:0',
          '/usr/local/bin/kurz 755 0:0',
        ].sort(),
      );
    } finally {
      await pod.ok('image', 'unmount', `${TAG}-amd64`);
      await pod.ok('image', 'unmount', `${TAG}-arm64`);
    }
  }, 30_000);

  test('built again, for linux/arm64 alone, its layer is the same, byte for byte', async () => {
    const again = await run(
      [
        'sh',
        'scripts/image.sh',
        '--platform',
        'linux/arm64',
        '--tag',
        'localhost/kurz-again:arm64',
      ],
      { cwd: ROOT, env: { ...pod.env, KURZ_SOURCE_URL: 'https://git.example/kurz' } },
    );
    if (again.code !== 0) throw new Error(`scripts/image.sh failed:\n${again.stderr}`);
    const layers = async (image: string) =>
      JSON.parse(await pod.ok('image', 'inspect', '--format', '{{json .RootFS.Layers}}', image));
    expect(await layers('localhost/kurz-again:arm64')).toEqual(await layers(`${TAG}-arm64`));
    await pod.ok('rmi', 'localhost/kurz-again:arm64');
  }, 120_000);

  test.skipIf(noBinfmt !== null)(
    'the arm64 image runs here under podman (qemu-user-static through binfmt_misc): /health, a link, its 307, a stop with exit code 0',
    async () => {
      const port = freePort();
      const url = `http://127.0.0.1:${port}`;
      await pod.ok(
        'run',
        '--detach',
        '--name',
        'kurz-arm64',
        '--env',
        `PORT=${port}`,
        '--env',
        'KURZ_MODE=open',
        '--volume',
        'kurzarm:/data',
        `${TAG}-arm64`,
      );
      // Emulated, kurz starts in seconds rather than in a fraction of one.
      await eventually(
        async () => (await fetch(`${url}/health`).catch(() => null))?.status === 200,
        'kurz answering in its arm64 container',
        120_000,
      );
      const health = await call(url, 'GET', '/health');
      expect({ status: health.status, body: health.json }).toEqual({
        status: 200,
        body: 'Healthy',
      });
      // The container's process is the emulator binfmt_misc names, running the AArch64
      // executable.
      const pid = await pod.ok('inspect', '--format', '{{.State.Pid}}', 'kurz-arm64');
      const emulator = /^interpreter (.*)$/m.exec(readFileSync(BINFMT_ENTRY, 'utf8'))?.[1];
      const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect([words[0], words.includes('/usr/local/bin/kurz')]).toEqual([emulator, true]);
      const made = await call(url, 'POST', '/api/shorten', {
        json: { url: 'https://example.com/on-a-pi', custom_code: 'pi' },
      });
      expect(made.status).toBe(201);
      const followed = await call(url, 'GET', '/pi');
      expect({ status: followed.status, location: followed.headers.get('location') }).toEqual({
        status: 307,
        location: 'https://example.com/on-a-pi',
      });
      await pod.ok('stop', '--time', '30', 'kurz-arm64');
      expect(await pod.ok('inspect', '--format', '{{.State.ExitCode}}', 'kurz-arm64')).toBe('0');
      expect(await pod.ok('logs', 'kurz-arm64')).toContain('kurz: SIGTERM received, shutting down');
      await pod.ok('rm', 'kurz-arm64');
    },
    180_000,
  );

  test.skipIf(QEMU === null)(
    "the arm64 image's own files, its root as qemu-aarch64's -L: /health, a link, its 307, SIGTERM and exit code 0",
    async () => {
      const root = await pod.ok('image', 'mount', `${TAG}-arm64`);
      const dir = tempDir();
      try {
        // No file of this machine's: the loader and libraries are the image's.
        const kurz = await startKurz(['--mode', 'open', '--db', join(dir, 'k.db')], {
          runner: [QEMU as string, '-L', root],
          binary: join(root, 'usr/local/bin/kurz'),
          cwd: dir,
          startTimeoutMs: 120_000,
        });
        try {
          const health = await call(kurz.url, 'GET', '/health');
          expect({ status: health.status, body: health.json }).toEqual({
            status: 200,
            body: 'Healthy',
          });
          const made = await call(kurz.url, 'POST', '/api/shorten', {
            json: { url: 'https://example.com/arm-nas', custom_code: 'nas' },
          });
          expect(made.status).toBe(201);
          const hop = await call(kurz.url, 'GET', '/nas');
          expect({ status: hop.status, location: hop.headers.get('location') }).toEqual({
            status: 307,
            location: 'https://example.com/arm-nas',
          });
        } finally {
          expect(await kurz.stop()).toBe(0);
        }
      } finally {
        await pod.ok('image', 'unmount', `${TAG}-arm64`);
      }
    },
    180_000,
  );
});
