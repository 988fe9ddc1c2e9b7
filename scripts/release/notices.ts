// THIRD-PARTY-NOTICES.txt: the licence of every npm package built into the executable, as
// the package ships it, since MIT, BSD and Apache licences ask for their notices to go
// with binary copies. The packages are read from the bundler's metafile (the folders under
// node_modules that its source files came from), plus the data a macro reads at build
// time, which the bundler sees only as the macro's result.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Licences kurz may ship (SPDX ids): no copyleft. */
export const ALLOWED_LICENSES = [
  'MIT',
  'ISC',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  '0BSD',
  'Unlicense',
  'CC0-1.0',
  'CC-BY-4.0',
];

export interface BundledPackage {
  name: string;
  version: string;
  /** An SPDX expression, from package.json unless noted in MACRO_PACKAGES. */
  license: string;
  /** Each licence file the package ships, with its text. */
  texts: { file: string; text: string }[];
  /** Said above the texts. */
  note?: string;
  /** A credit the data asks for, also said at the top of the file. */
  attribution?: string;
}

/**
 * Packages read by macros when kurz is built: src/analytics/country-table.ts packs this
 * IP-to-country table into the code. The table is the package's work (CC0-1.0); the
 * registries' statistics it is made from are NRO's, CC BY 4.0, credited as README says.
 */
const MACRO_PACKAGES: Record<string, { license: string; attribution: string }> = {
  '@ip-location-db/geo-whois-asn-country': {
    license: 'CC0-1.0 AND CC-BY-4.0',
    attribution: 'IP-to-country data © NRO (nro.net), CC BY 4.0.',
  },
};

/**
 * Licences whose text is the same for every package, for a package that names one but
 * ships no file: drizzle-orm's npm package has none. An MIT or BSD text carries its
 * holder's copyright line, so those are never filled in.
 */
const STANDARD_TEXTS: Record<string, string> = {
  'Apache-2.0': join(import.meta.dir, 'licenses', 'Apache-2.0.txt'),
};

const LICENSE_FILE = /^(.*[-_.])?(licen[cs]e|copying|notice)([-_.].*)?$/i;

/**
 * The packages whose files the bundler took (`inputs`: the metafile's input paths,
 * relative to `root`) and those of MACRO_PACKAGES, sorted by name.
 */
export function bundledPackages(inputs: string[], root: string): BundledPackage[] {
  const folders = new Set<string>();
  for (const input of inputs) {
    // The last node_modules in the path: a package nested in another's is its own.
    const folder = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
    if (folder !== undefined) folders.add(folder);
  }
  for (const name of Object.keys(MACRO_PACKAGES)) folders.add(`node_modules/${name}`);
  return [...folders]
    .map((folder) => readPackage(join(root, folder)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The "License" section of a package's README, when the package ships no licence file
 * but its README carries the licence with its holder's copyright line (https-proxy-agent
 * 5 and agent-base 6, which axios uses, do).
 */
function readmeLicense(dir: string): { file: string; text: string } | undefined {
  const file = readdirSync(dir).find((name) => /^readme(\.md)?$/i.test(name));
  if (file === undefined) return undefined;
  const lines = readFileSync(join(dir, file), 'utf8').replace(/\r\n?/g, '\n').split('\n');
  // A heading "License" (# License, or License underlined with - or =).
  const start = lines.findIndex(
    (line, i) =>
      /^#{1,6}\s*licen[cs]e\s*$/i.test(line) ||
      (/^licen[cs]e\s*$/i.test(line) && /^(-+|=+)\s*$/.test(lines[i + 1] ?? '')),
  );
  if (start === -1) return undefined;
  const body = lines.slice(lines[start]?.startsWith('#') ? start + 1 : start + 2);
  const end = body.findIndex(
    (line, i) => /^#{1,6}\s/.test(line) || (/^(-+|=+)\s*$/.test(body[i + 1] ?? '') && line !== ''),
  );
  const section = (end === -1 ? body : body.slice(0, end)).filter(
    // Markdown's link definitions ([name]: url) that end a README are not the licence's.
    (line) => !/^\[[^\]]+\]:\s/.test(line),
  );
  const text = normalise(section.join('\n').trim());
  return /copyright/i.test(text) ? { file: `${file}, its License section`, text } : undefined;
}

function readPackage(dir: string): BundledPackage {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const name: string = manifest.name;
  const macro = MACRO_PACKAGES[name];
  const license = macro?.license ?? licenseOf(manifest);
  const texts = readdirSync(dir)
    .filter((file) => LICENSE_FILE.test(file) && statSync(join(dir, file)).isFile())
    .sort()
    .map((file) => ({ file, text: normalise(readFileSync(join(dir, file), 'utf8')) }));
  const fromReadme = texts.length === 0 ? readmeLicense(dir) : undefined;
  if (fromReadme !== undefined) {
    return {
      name,
      version: manifest.version,
      license,
      texts: [fromReadme],
      note: "The package ships no licence file; its README's License section follows.",
    };
  }
  const standard = STANDARD_TEXTS[license];
  if (texts.length === 0 && standard !== undefined) {
    return {
      name,
      version: manifest.version,
      license,
      texts: [{ file: `the ${license} licence`, text: normalise(readFileSync(standard, 'utf8')) }],
      note: `The package ships no licence file; its package.json names ${license}, whose text follows.`,
    };
  }
  return { name, version: manifest.version, license, texts, attribution: macro?.attribution };
}

/** package.json's licence: `license` (a string, or the old `{ type }`) or the old `licenses` list. */
function licenseOf(manifest: {
  license?: string | { type?: string };
  licenses?: { type?: string }[];
}): string {
  const { license, licenses } = manifest;
  if (typeof license === 'string') return license;
  if (license?.type) return license.type;
  const types = (licenses ?? []).map((entry) => entry.type).filter((type) => type !== undefined);
  return types.length === 0 ? 'none given' : `(${types.join(' OR ')})`;
}

function normalise(text: string): string {
  return `${text.replace(/\r\n?/g, '\n').trimEnd()}\n`;
}

/** Whether an SPDX expression allows shipping: one allowed choice of an OR, every part of an AND. */
export function licenseAllowed(expression: string): boolean {
  const words = expression.replace(/[()]/g, ' ').trim().split(/\s+/);
  const ids = words.filter((word) => word !== 'OR' && word !== 'AND');
  const allowed = (id: string) => ALLOWED_LICENSES.includes(id);
  if (words.includes('AND') || !words.includes('OR')) return ids.every(allowed);
  return ids.some(allowed);
}

/** What keeps these packages out of a release: a licence not allowed, or no licence text. */
export function licenseProblems(packages: BundledPackage[]): string[] {
  const problems: string[] = [];
  for (const pkg of packages) {
    const name = `${pkg.name} ${pkg.version}`;
    if (!licenseAllowed(pkg.license)) {
      problems.push(`${name}: licence ${pkg.license} is not one of ${ALLOWED_LICENSES.join(', ')}`);
    }
    if (pkg.texts.every((text) => text.text.trim() === '')) {
      problems.push(`${name}: no licence text found in its package`);
    }
  }
  return problems;
}

const RULE = '='.repeat(80);

/** The file's text: what is in the executable, then each package's licence texts. */
export function noticesText(version: string, packages: BundledPackage[]): string {
  const width = Math.max(...packages.map((pkg) => `${pkg.name} ${pkg.version}`.length));
  const lines = [
    `Third-party notices for kurz ${version}`,
    '',
    'The kurz executable is the Bun runtime with kurz and the npm packages below built',
    "into it. Each package's licence follows as the package ships it.",
    '',
    `Bun ${Bun.version}, the runtime: MIT. Bun itself contains libraries under their own`,
    'licences, among them JavaScriptCore and WebKit under the LGPL 2; LICENSE.md in',
    `Bun's source lists them (https://github.com/oven-sh/bun/blob/bun-v${Bun.version}/LICENSE.md).`,
    '',
    ...packages.flatMap((pkg) => (pkg.attribution ? [pkg.attribution, ''] : [])),
    'Packages:',
    ...packages.map((pkg) => `  ${`${pkg.name} ${pkg.version}`.padEnd(width)}  ${pkg.license}`),
  ];
  for (const pkg of packages) {
    lines.push('', RULE, `${pkg.name} ${pkg.version}: ${pkg.license}`, RULE);
    for (const said of [pkg.attribution, pkg.note]) if (said) lines.push('', said);
    for (const { file, text } of pkg.texts) lines.push('', `-- ${file}`, '', text.trimEnd());
  }
  return `${lines.join('\n')}\n`;
}
