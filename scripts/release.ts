// `bun run release [--out DIR] [--targets linux-x64,windows-x64,…]`: builds kurz for every
// platform and packs each as kurz-VERSION-OS-ARCH.tar.gz (.zip for Windows), one folder
// holding the executable, README.md, LICENSE, THIRD-PARTY-NOTICES.txt and docs/ (the pages
// the README links to, the deploy examples, the screenshots), plus SHA256SUMS over the
// archives, in dist/release/ unless told otherwise. The same commit gives the same bytes:
// the executables are reproducible (docs/install.md, "Release archives"), and the archives
// are written here in a fixed order, dated by the commit, owned by 0:0.

import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { VERSION } from '../src/version.ts';
import { buildKurz, ROOT, sourceStamp } from './build.ts';
import { type ArchiveEntry, tarGz, zip } from './release/archive.ts';
import { bundledPackages, licenseProblems, noticesText } from './release/notices.ts';

export interface Target {
  /** The archive's OS-ARCH part, and the name --targets takes. */
  name: string;
  /** bun build --target. */
  bun: string;
  windows?: boolean;
}

export const TARGETS: Target[] = [
  { name: 'linux-x64', bun: 'bun-linux-x64' },
  // For x86-64 CPUs without AVX2 (before Haswell, 2013).
  { name: 'linux-x64-baseline', bun: 'bun-linux-x64-baseline' },
  { name: 'linux-arm64', bun: 'bun-linux-arm64' },
  // For musl systems (Alpine).
  { name: 'linux-x64-musl', bun: 'bun-linux-x64-musl' },
  { name: 'linux-arm64-musl', bun: 'bun-linux-arm64-musl' },
  { name: 'darwin-arm64', bun: 'bun-darwin-arm64' },
  { name: 'darwin-x64', bun: 'bun-darwin-x64' },
  { name: 'windows-x64', bun: 'bun-windows-x64', windows: true },
];

/** The archive of a target: kurz-0.1.0-linux-x64.tar.gz, kurz-0.1.0-windows-x64.zip. */
export function archiveName(target: Target, version = VERSION): string {
  return `kurz-${version}-${target.name}${target.windows ? '.zip' : '.tar.gz'}`;
}

/** The executable's name in the archive. */
export function binaryName(target: Target): string {
  return target.windows ? 'kurz.exe' : 'kurz';
}

/** The files beside the executable, in the archive's order (after it). */
export const DOCUMENTS = ['LICENSE', 'README.md', 'THIRD-PARTY-NOTICES.txt'];

/**
 * docs/ as the archive holds it, after the documents: each folder ('docs/', ending in a
 * slash) before what it holds, by name, so the README's links to its pages work there too.
 */
export function docsTree(root = ROOT): string[] {
  const walk = (folder: string): string[] => {
    const names = readdirSync(join(root, folder), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    return [
      `${folder}/`,
      ...names.flatMap((entry) =>
        entry.isDirectory() ? walk(`${folder}/${entry.name}`) : [`${folder}/${entry.name}`],
      ),
    ];
  };
  return walk('docs');
}

const USAGE = `usage: bun run release [--out DIR] [--targets NAME,NAME,…]
  --out DIR        where the archives and SHA256SUMS go (default dist/release)
  --targets LIST   which to build (default all): ${TARGETS.map((t) => t.name).join(', ')}
`;

interface Options {
  out: string;
  targets: Target[];
}

function parseArguments(argv: string[]): Options {
  const options: Options = { out: resolve(ROOT, 'dist', 'release'), targets: TARGETS };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] as string).split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => {
      const given = inline ?? argv[++i];
      if (given === undefined || given === '') throw new Error(`${flag} needs a value\n${USAGE}`);
      return given;
    };
    if (flag === '--out') options.out = resolve(value());
    else if (flag === '--targets') {
      options.targets = value()
        .split(',')
        .map((name) => {
          const target = TARGETS.find((t) => t.name === name.trim());
          if (!target) throw new Error(`unknown target "${name}"\n${USAGE}`);
          return target;
        });
    } else if (flag === '--help' || flag === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument "${argv[i]}"\n${USAGE}`);
  }
  return options;
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

async function release(options: Options): Promise<void> {
  const started = performance.now();
  const { commit, time } = sourceStamp();
  if (time === undefined) {
    throw new Error(
      'not in a git checkout: set SOURCE_DATE_EPOCH (and KURZ_COMMIT) to date the archives',
    );
  }
  if (commit.endsWith('-dirty')) {
    console.error(`kurz: the work tree has changes not committed; the archives say ${commit}`);
  }
  console.log(`kurz ${VERSION} (commit ${commit}), dated ${new Date(time * 1000).toISOString()}`);

  mkdirSync(options.out, { recursive: true });
  // Archives of an earlier run would sit beside the new ones without being in SHA256SUMS.
  for (const file of readdirSync(options.out)) {
    if (/^kurz-.*\.(tar\.gz|zip)$/.test(file) || file === 'SHA256SUMS') {
      rmSync(join(options.out, file));
    }
  }
  const documents = {
    LICENSE: readFileSync(join(ROOT, 'LICENSE')),
    'README.md': readFileSync(join(ROOT, 'README.md')),
  };
  const docs = docsTree();
  const sums: string[] = [];
  let total = 0;
  const staging = mkdtempSync(join(tmpdir(), 'kurz-release-'));
  try {
    for (const target of options.targets) {
      const dir = join(staging, target.name);
      const executable = join(dir, binaryName(target));
      const metafile = join(dir, 'metafile.json');
      await buildKurz({ outfile: executable, target: target.bun, commit, metafile, quiet: true });

      const inputs = Object.keys(JSON.parse(readFileSync(metafile, 'utf8')).inputs);
      const packages = bundledPackages(inputs, ROOT);
      const problems = licenseProblems(packages);
      if (problems.length > 0) {
        throw new Error(`cannot ship ${target.name}:\n  ${problems.join('\n  ')}`);
      }
      const binary = readFileSync(executable);
      const folder = archiveName(target).replace(/\.(tar\.gz|zip)$/, '');
      const files: Record<string, Uint8Array> = {
        ...documents,
        'THIRD-PARTY-NOTICES.txt': new TextEncoder().encode(noticesText(VERSION, packages)),
      };
      const entries: ArchiveEntry[] = [
        { path: `${folder}/`, mode: 0o755 },
        { path: `${folder}/${binaryName(target)}`, mode: 0o755, data: binary },
        ...DOCUMENTS.map((name) => ({ path: `${folder}/${name}`, mode: 0o644, data: files[name] })),
        ...docs.map((name) =>
          name.endsWith('/')
            ? { path: `${folder}/${name}`, mode: 0o755 }
            : { path: `${folder}/${name}`, mode: 0o644, data: readFileSync(join(ROOT, name)) },
        ),
      ];
      const archive = target.windows ? zip(entries, time) : tarGz(entries, time);
      writeFileSync(join(options.out, archiveName(target)), archive);
      sums.push(`${createHash('sha256').update(archive).digest('hex')}  ${archiveName(target)}`);
      total += archive.length;
      console.log(
        `  ${archiveName(target).padEnd(36)} ${megabytes(archive.length).padStart(8)}  (executable ${megabytes(binary.length)})`,
      );
      rmSync(dir, { recursive: true });
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  sums.sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1));
  writeFileSync(join(options.out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const where = relative(process.cwd(), options.out) || '.';
  console.log(
    `${sums.length} archives, ${megabytes(total)}, and SHA256SUMS in ${where} (${seconds} s); check them with: cd ${where} && sha256sum -c SHA256SUMS`,
  );
}

if (import.meta.main) {
  try {
    await release(parseArguments(process.argv.slice(2)));
  } catch (error) {
    console.error(`kurz release: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
