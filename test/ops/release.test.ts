// The release as a user gets it: `bun run release` into a folder of its own, then every
// archive checked against SHA256SUMS and for its exact contents, every executable's header
// for its OS and CPU, and the Linux builds that can run here run: linux-x64 through the
// whole walk-through, linux-x64-baseline natively and on an emulated CPU without AVX2,
// linux-arm64 under qemu-aarch64. A second release, from a copy of the source in another
// folder and without git, checks that builds are reproducible (on four of the eight
// targets, one of each kind of executable and archive, to keep the test short; the rest
// are the same runtimes in other variants). The musl, macOS and Windows builds are only
// built and checked here (docs/install.md, "Release archives").

import { beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, sourceStamp } from '../../scripts/build.ts';
import {
  type BundledPackage,
  bundledPackages,
  licenseProblems,
} from '../../scripts/release/notices.ts';
import {
  archiveName,
  binaryName,
  DOCUMENTS,
  docsTree,
  TARGETS,
  type Target,
} from '../../scripts/release.ts';
import { VERSION } from '../../src/version.ts';
import {
  call,
  eventually,
  run,
  runKurz,
  type StartOptions,
  startKurz,
  tempDir,
} from '../support/binary.ts';
import { track } from '../support/cleanup.ts';
import {
  type ExecutableHeader,
  executableHeader,
  type ListedEntry,
  MACHINES,
  tarEntries,
  zipEntries,
} from '../support/release.ts';

const out = tempDir();
const unpacked = tempDir();
/** The commit and time the release stamps its executables and archives with. */
let stamp: { commit: string; time: number };

const target = (name: string) => TARGETS.find((t) => t.name === name) as Target;
const folderOf = (t: Target) => archiveName(t).replace(/\.(tar\.gz|zip)$/, '');
/** The executable of a target, unpacked from its archive. */
const executable = (t: Target) => join(unpacked, folderOf(t), binaryName(t));

/** Runs the release script; throws with its output when it fails. */
async function release(args: string[], cwd = ROOT, env: Record<string, string> = {}) {
  const started = performance.now();
  const result = await run([process.execPath, 'scripts/release.ts', ...args], {
    cwd,
    env: { ...(process.env as Record<string, string>), ...env },
  });
  if (result.code !== 0) {
    throw new Error(`release failed (exit ${result.code}):\n${result.stdout}${result.stderr}`);
  }
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

beforeAll(async () => {
  const { commit, time } = sourceStamp();
  if (time === undefined) throw new Error('the release needs a git checkout or SOURCE_DATE_EPOCH');
  stamp = { commit, time };
  const { seconds } = await release(['--out', out]);
  console.log(
    `release test: bun run release built ${TARGETS.length} archives in ${seconds.toFixed(0)} s`,
  );
  for (const t of TARGETS) {
    if (t.windows) {
      for (const entry of zipEntries(readFileSync(join(out, archiveName(t))))) {
        const path = join(unpacked, entry.path);
        if (entry.folder) mkdirSync(path, { recursive: true });
        else writeFileSync(path, entry.data, { mode: entry.mode });
      }
    } else {
      const untar = await run(['tar', '-xzf', join(out, archiveName(t)), '-C', unpacked]);
      if (untar.code !== 0) throw new Error(`tar -xzf ${archiveName(t)}: ${untar.stderr}`);
    }
  }
}, 900_000);

/** What each target's executable header must say. */
const HEADERS: Record<string, ExecutableHeader> = {
  'linux-x64': {
    format: 'ELF',
    machine: MACHINES.elf.x64,
    interpreter: '/lib64/ld-linux-x86-64.so.2',
  },
  'linux-x64-baseline': {
    format: 'ELF',
    machine: MACHINES.elf.x64,
    interpreter: '/lib64/ld-linux-x86-64.so.2',
  },
  'linux-arm64': {
    format: 'ELF',
    machine: MACHINES.elf.arm64,
    interpreter: '/lib/ld-linux-aarch64.so.1',
  },
  'linux-x64-musl': {
    format: 'ELF',
    machine: MACHINES.elf.x64,
    interpreter: '/lib/ld-musl-x86_64.so.1',
  },
  'linux-arm64-musl': {
    format: 'ELF',
    machine: MACHINES.elf.arm64,
    interpreter: '/lib/ld-musl-aarch64.so.1',
  },
  'darwin-arm64': { format: 'Mach-O', cpu: MACHINES.macho.arm64 },
  'darwin-x64': { format: 'Mach-O', cpu: MACHINES.macho.x64 },
  'windows-x64': { format: 'PE', machine: MACHINES.pe.x64 },
};

describe('bun run release', () => {
  test('writes one archive per platform and SHA256SUMS, which sha256sum -c accepts', async () => {
    const names = TARGETS.map((t) => archiveName(t));
    expect(names).toContain(`kurz-${VERSION}-linux-x64-baseline.tar.gz`);
    expect(names).toContain(`kurz-${VERSION}-linux-arm64-musl.tar.gz`);
    expect(names).toContain(`kurz-${VERSION}-windows-x64.zip`);
    expect(readdirSync(out).sort()).toEqual([...names, 'SHA256SUMS'].sort());

    const lines = readFileSync(join(out, 'SHA256SUMS'), 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => line.slice(66))).toEqual([...names].sort());
    for (const line of lines) {
      const [hash, name] = line.split('  ') as [string, string];
      const bytes = readFileSync(join(out, name));
      expect(`${name} ${createHash('sha256').update(bytes).digest('hex')}`).toBe(`${name} ${hash}`);
    }
    const check = await run(['sha256sum', '-c', 'SHA256SUMS'], { cwd: out });
    expect({ code: check.code, stdout: check.stdout }).toEqual({
      code: 0,
      stdout: names
        .sort()
        .map((name) => `${name}: OK\n`)
        .join(''),
    });
  });

  test.each(TARGETS.map((t) => [t.name, t] as const))(
    '%s: one folder with the executable (0755), LICENSE, README.md, the notices and docs/ (0644), owned by 0:0, dated by the commit',
    async (_, t) => {
      const path = join(out, archiveName(t));
      const entries: Omit<ListedEntry, 'size'>[] = t.windows
        ? zipEntries(readFileSync(path)).map(({ data: _, size: __, ...entry }) => ({
            ...entry,
            owner: '0/0',
          }))
        : (await tarEntries(path)).map(({ size: _, ...entry }) => entry);
      const folder = folderOf(t);
      // Zip times are in steps of two seconds.
      const mtime = t.windows ? stamp.time - (stamp.time % 2) : stamp.time;
      const file = (name: string, mode: number) => ({
        path: `${folder}/${name}`,
        mode,
        folder: false,
        owner: '0/0',
        mtime,
      });
      expect(entries).toEqual([
        { path: `${folder}/`, mode: 0o755, folder: true, owner: '0/0', mtime },
        file(binaryName(t), 0o755),
        ...DOCUMENTS.map((name) => file(name, 0o644)),
        ...docsTree().map((name) =>
          name.endsWith('/')
            ? { path: `${folder}/${name}`, mode: 0o755, folder: true, owner: '0/0', mtime }
            : file(name, 0o644),
        ),
      ]);
      // Every page the README links to is there, beside it.
      for (const [, page] of readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(
        /\]\((docs\/[^)#]+)/g,
      )) {
        expect(existsSync(join(unpacked, folder, page as string))).toBe(true);
      }
      for (const name of ['LICENSE', 'README.md', 'docs/install.md', 'docs/deploy/kurz.service']) {
        expect(readFileSync(join(unpacked, folder, name), 'utf8')).toBe(
          readFileSync(join(ROOT, name), 'utf8'),
        );
      }
    },
  );

  test.each(TARGETS.map((t) => [t.name, t] as const))(
    "%s: the executable's header names its OS and CPU",
    (name, t) => {
      const bytes = readFileSync(executable(t));
      expect(executableHeader(bytes)).toEqual(HEADERS[name] as ExecutableHeader);
    },
  );

  test('a copy of the source in another folder, without git, stamped alike, gives the same archives', async () => {
    // Of each kind: the ELF built from this machine's own runtime, a musl and arm64 one
    // whose runtime is fetched, the Mach-O (signed as it is written) and the PE in a zip.
    const names = ['linux-x64', 'linux-arm64-musl', 'darwin-arm64', 'windows-x64'];
    const copy = join(tempDir(), 'kurz-source');
    const listed = await run(
      ['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      {
        cwd: ROOT,
      },
    );
    for (const file of listed.stdout.split('\0')) {
      if (file === '' || !existsSync(join(ROOT, file))) continue;
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      writeFileSync(join(copy, file), readFileSync(join(ROOT, file)));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    const again = tempDir();
    const { seconds } = await release(['--out', again, '--targets', names.join(',')], copy, {
      KURZ_COMMIT: stamp.commit,
      SOURCE_DATE_EPOCH: String(stamp.time),
    });
    console.log(
      `release test: ${names.length} archives again, from a copy, in ${seconds.toFixed(0)} s`,
    );
    const sums = (dir: string) =>
      readFileSync(join(dir, 'SHA256SUMS'), 'utf8').trimEnd().split('\n');
    const first = sums(out).filter((line) =>
      names.some((n) => line.endsWith(archiveName(target(n)))),
    );
    expect(sums(again)).toEqual(first);
  }, 600_000);
});

describe('THIRD-PARTY-NOTICES.txt', () => {
  let packages: BundledPackage[];
  beforeAll(async () => {
    // The same bundle as the executable's (scripts/build.ts), not compiled: its inputs.
    const bundle = await Bun.build({
      entrypoints: ['src/index.ts', 'src/store/sqlite/maintenance.ts'].map((f) => join(ROOT, f)),
      root: ROOT,
      target: 'bun',
      minify: true,
      metafile: true,
      define: { 'Bun.isStandaloneExecutable': 'true' },
    });
    // An object at run time, though typed as its JSON text.
    const metafile: unknown = bundle.metafile;
    const inputs = Object.keys(
      (typeof metafile === 'string' ? JSON.parse(metafile) : (metafile as object)).inputs,
    );
    packages = bundledPackages(inputs, ROOT);
  });

  test('every package built into kurz has its licence text, under a licence kurz may ship', () => {
    expect(packages.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'elysia',
        'drizzle-orm',
        '@sinclair/typebox',
        'qrcode',
        'ua-parser-js',
        'isbot',
        'prom-client',
        '@elysiajs/jwt',
        '@elysiajs/openapi',
        '@ip-location-db/geo-whois-asn-country',
      ]),
    );
    expect(licenseProblems(packages)).toEqual([]);
  });

  test('each archive carries every one of them, with the NRO credit for the IP-to-country data', () => {
    for (const t of TARGETS) {
      const notices = readFileSync(join(unpacked, folderOf(t), 'THIRD-PARTY-NOTICES.txt'), 'utf8');
      expect(notices).toContain('IP-to-country data © NRO (nro.net), CC BY 4.0');
      for (const pkg of packages) {
        expect(notices).toContain(`\n${pkg.name} ${pkg.version}: ${pkg.license}\n`);
        for (const { text } of pkg.texts) expect(notices).toContain(text.trimEnd());
      }
    }
  });

  test('a copyleft licence, or a package without licence text, stops the release', () => {
    const pkg = (license: string, text = 'Copyright (c) someone') => ({
      name: 'p',
      version: '1.0.0',
      license,
      texts: [{ file: 'LICENSE', text }],
    });
    expect(licenseProblems([pkg('MIT'), pkg('(MIT OR GPL-3.0)'), pkg('Apache-2.0')])).toEqual([]);
    expect(licenseProblems([pkg('GPL-3.0'), pkg('MIT AND AGPL-3.0'), pkg('MIT', ' ')])).toEqual([
      'p 1.0.0: licence GPL-3.0 is not one of MIT, ISC, Apache-2.0, BSD-2-Clause, BSD-3-Clause, 0BSD, Unlicense, CC0-1.0, CC-BY-4.0',
      'p 1.0.0: licence MIT AND AGPL-3.0 is not one of MIT, ISC, Apache-2.0, BSD-2-Clause, BSD-3-Clause, 0BSD, Unlicense, CC0-1.0, CC-BY-4.0',
      'p 1.0.0: no licence text found in its package',
    ]);
    expect(licenseProblems([{ ...pkg('ISC'), texts: [] }])).toEqual([
      'p 1.0.0: no licence text found in its package',
    ]);
  });
});

/** Health, a link made in open mode, its 307 and the click counted, then a clean stop. */
async function serveOnce(binary: string, options: StartOptions = {}) {
  const dir = tempDir();
  const kurz = await startKurz(['--mode', 'open', '--db', join(dir, 'k.db')], {
    ...options,
    binary,
    cwd: dir,
  });
  try {
    const health = await call(kurz.url, 'GET', '/health');
    expect({ status: health.status, body: health.json }).toEqual({ status: 200, body: 'Healthy' });
    const made = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/release', custom_code: 'rel' },
    });
    expect(made.status).toBe(201);
    const hop = await call(kurz.url, 'GET', '/rel');
    expect({ status: hop.status, location: hop.headers.get('location') }).toEqual({
      status: 307,
      location: 'https://example.com/release',
    });
    // The 307 is sent once its click is committed.
    const list = await call(kurz.url, 'GET', '/api/links');
    expect(
      list.json.map((l: { short_code: string; clicks: number }) => [l.short_code, l.clicks]),
    ).toEqual([['rel', 1]]);
  } finally {
    expect(await kurz.stop()).toBe(0);
  }
}

async function expectVersion(binary: string, options: StartOptions = {}) {
  const version = await runKurz(['--version'], { ...options, binary });
  expect(version.stdout).toBe(`kurz ${VERSION} (commit ${stamp.commit})\n`);
}

const qemu = {
  aarch64: Bun.which('qemu-aarch64'),
  x86_64: Bun.which('qemu-x86_64'),
  arm64Libc: existsSync('/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1'),
};
const NO_QEMU = 'run sh scripts/ensure-qemu.sh (Debian qemu-user and libc6-arm64-cross) to run it';

describe('the Linux builds that run here', () => {
  test('linux-x64 passes the walk-through of the whole interface, on SQLite and PostgreSQL', async () => {
    const binary = executable(target('linux-x64'));
    await expectVersion(binary);
    const walk = await run([process.execPath, 'test', 'test/ops/walkthrough.test.ts'], {
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), KURZ_TEST_BINARY: binary },
    });
    // The walk-through's own summary must not reach this run's output as it is: CI adds
    // up every "N pass" and "N fail" line it prints.
    const output = `${walk.stdout}${walk.stderr}`.replace(/^/gm, 'walkthrough| ');
    const passed = Number(/^walkthrough\| +(\d+) pass$/m.exec(output)?.[1] ?? 0);
    const failed = /^walkthrough\| +0 fail$/m.test(output);
    if (walk.code !== 0 || passed === 0 || !failed) {
      throw new Error(`the walk-through failed against ${binary}:\n${output}`);
    }
  }, 300_000);

  test('linux-x64-baseline serves here', async () => {
    const binary = executable(target('linux-x64-baseline'));
    await expectVersion(binary);
    await serveOnce(binary);
  }, 60_000);

  test.skipIf(!qemu.x86_64)(
    'linux-x64-baseline serves on an emulated CPU without AVX2 (qemu-x86_64 -cpu Nehalem)',
    async () => {
      const runner = [qemu.x86_64 as string, '-cpu', 'Nehalem'];
      const binary = executable(target('linux-x64-baseline'));
      await expectVersion(binary, { runner });
      await serveOnce(binary, { runner, startTimeoutMs: 60_000 });
    },
    180_000,
  );

  test.skipIf(!qemu.aarch64 || !qemu.arm64Libc)(
    'linux-arm64 serves under qemu-aarch64',
    async () => {
      const runner = [qemu.aarch64 as string, '-L', '/usr/aarch64-linux-gnu'];
      const binary = executable(target('linux-arm64'));
      await expectVersion(binary, { runner });
      await serveOnce(binary, { runner, startTimeoutMs: 120_000 });
    },
    300_000,
  );

  if (!qemu.aarch64 || !qemu.arm64Libc || !qemu.x86_64) {
    console.log(`release test: the emulated runs are skipped: qemu is missing; ${NO_QEMU}`);
  }
});

describe("docs/install.md's steps", () => {
  const page = readFileSync(join(ROOT, 'docs', 'install.md'), 'utf8');
  const start = page.indexOf('## A release archive');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));

  test('name every archive of this version', () => {
    for (const t of TARGETS) expect(section).toContain(`\`${archiveName(t)}\``);
  });

  test('check, unpack and start the linux-x64 archive, as written', async () => {
    const steps = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = steps
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, ''))
      .filter((line) => line.trim() !== '');
    expect(lines.at(-1)).toBe('./kurz');
    // Beside the archive, as a download leaves it: SHA256SUMS of all, one archive.
    const downloads = tempDir();
    const archive = archiveName(target('linux-x64'));
    symlinkSync(join(out, archive), join(downloads, archive));
    symlinkSync(join(out, 'SHA256SUMS'), join(downloads, 'SHA256SUMS'));
    // The last step is the server: it takes the shell's place, on a free port.
    const script = [...lines.slice(0, -1), `exec ${lines.at(-1)}`].join('\n');
    const proc = track(
      Bun.spawn(['sh', '-ec', script], {
        cwd: downloads,
        env: { PATH: process.env.PATH ?? '', PORT: '0', KURZ_HOST: '127.0.0.1' },
        stdout: 'pipe',
        stderr: 'pipe',
      }),
    );
    let output = '';
    for (const stream of [proc.stdout, proc.stderr]) {
      void (async () => {
        for await (const chunk of stream) output += new TextDecoder().decode(chunk);
      })();
    }
    try {
      const listening = /kurz listening on (http:\/\/127\.0\.0\.1:\d+) /;
      await eventually(
        () => listening.test(output),
        () => `kurz started (${output})`,
        30_000,
      );
      expect(output).toContain(`${archive}: OK`);
      expect(output).toContain(`kurz ${VERSION} (commit ${stamp.commit})\n`);
      expect(output).toContain('db: ./data/kurz.db');
      const health = await call(listening.exec(output)?.[1] as string, 'GET', '/health');
      expect(health.status).toBe(200);
    } finally {
      proc.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    }
  }, 60_000);
});
