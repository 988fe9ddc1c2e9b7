// The documentation's relative links resolve: in README.md, CONTRIBUTING.md, src/README.md,
// bench/*.md and docs/**/*.md, every link that is not to another site names a file or folder of the
// repository, and every #anchor a heading of its target page, by GitHub's rules for
// heading ids (lower case, punctuation dropped, spaces to hyphens, a repeated heading
// suffixed -1, -2, …). Code blocks and inline code are not links.

import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '..', '..');

function markdownFiles(): string[] {
  const files = ['README.md', 'CONTRIBUTING.md', 'src/README.md'];
  for (const name of readdirSync(join(ROOT, 'bench'))) {
    if (name.endsWith('.md')) files.push(`bench/${name}`);
  }
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files.sort();
}

/** The page's text outside fenced code blocks, line by line (other lines left empty). */
function prose(text: string): string[] {
  let fence: string | null = null;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return '';
    }
    return fence === null ? line : '';
  });
}

/** GitHub's id for a heading's text. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The ids of a page's headings, repeated ones suffixed as GitHub does. */
function headingIds(text: string): Set<string> {
  const seen = new Map<string, number>();
  const ids = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

/** Every link target of a page that is not to another site, with its line. */
function links(file: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  prose(readFileSync(join(ROOT, file), 'utf8')).forEach((text, i) => {
    const withoutCode = text.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      found.push({ line: i + 1, target });
    }
  });
  return found;
}

describe('links in the documentation', () => {
  for (const file of markdownFiles()) {
    test(`${file}: every relative link and #anchor resolves`, () => {
      const broken: string[] = [];
      for (const { line, target } of links(file)) {
        const [path = '', anchor] = target.split('#', 2);
        const resolved = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), path);
        const shown = `${file}:${line}: ${target}`;
        if (!resolved.startsWith(`${ROOT}/`) || !existsSync(resolved)) {
          broken.push(`${shown} (no such file)`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!statSync(resolved).isFile() || !resolved.endsWith('.md')) {
          broken.push(`${shown} (an anchor into a file that is not a page)`);
        } else if (!headingIds(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) {
          broken.push(`${shown} (no heading with that id)`);
        }
      }
      expect(broken).toEqual([]);
    });
  }

  test("GitHub's ids: lower case, punctuation dropped, spaces to hyphens", () => {
    expect(slug('Import (`bench/import.ts`)')).toBe('import-benchimportts');
    expect(slug('Open mode (`--mode open`)')).toBe('open-mode---mode-open');
    expect(slug('The whole suite: `npm test`')).toBe('the-whole-suite-npm-test');
    expect(slug('Issue #11 as a whole')).toBe('issue-11-as-a-whole');
  });

  test('a repeated heading gets -1, -2; headings in code blocks are not headings', () => {
    const page = '# Runs\n\n## Run\n\n```sh\n# Run\n```\n\n## Run\n\n### Run\n';
    expect([...headingIds(page)]).toEqual(['runs', 'run', 'run-1', 'run-2']);
  });
});
