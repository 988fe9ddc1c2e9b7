// The layering of src/ (.dependency-cruiser.cjs, described in src/README.md): no cycle,
// no import from a higher layer, neither store engine importing the other, and no
// source file over 500 lines. The rules are also run on a small made-up tree that
// breaks each of them, so a rule that no longer matches fails.

import { describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tempDir } from '../support/binary.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const CRUISER = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

/** The rules' violations in `dir`'s src/, as `rule: from → to`. */
function violations(dir: string): string[] {
  const run = Bun.spawnSync(
    [process.execPath, '--bun', CRUISER, 'src', '--config', CONFIG, '--output-type', 'json'],
    { cwd: dir, stdout: 'pipe', stderr: 'pipe' },
  );
  const out = run.stdout.toString();
  if (!out.startsWith('{')) throw new Error(`dependency-cruiser failed: ${run.stderr.toString()}`);
  const report = JSON.parse(out) as { summary: { violations: Violation[] } };
  return report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
}

describe('the layering of src/', () => {
  test('src/ keeps every rule', () => {
    expect(violations(ROOT)).toEqual([]);
  }, 30_000);

  test('each rule catches what it forbids', () => {
    const dir = tempDir();
    const files: Record<string, string> = {
      'src/domain/a.ts': "import { b } from './b.ts';\nexport const a = b;\n",
      'src/domain/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
      'src/domain/rule.ts': "import { store } from '../store/store.ts';\nexport const r = store;\n",
      'src/store/store.ts':
        "import { route } from '../links/routes.ts';\nexport const store = route;\n",
      'src/store/sqlite/links.ts':
        "import { pg } from '../postgres/links.ts';\nexport const sqlite = pg;\n",
      'src/store/postgres/links.ts': 'export const pg = 1;\n',
      'src/links/routes.ts': "import { app } from '../app.ts';\nexport const route = app;\n",
      'src/app.ts': 'export const app = 1;\n',
      'src/http/body.ts':
        "import { route } from '../links/routes.ts';\nexport const body = route;\n",
      'src/analytics/fold.ts':
        "import { store } from '../store/store.ts';\nexport const f = store;\n",
      'src/config/cli.ts': "import { body } from '../http/body.ts';\nexport const c = body;\n",
      'src/links/writer.ts':
        "import { sqlite } from '../store/sqlite/links.ts';\nexport const w = sqlite;\n",
      'src/clicks/pipeline.ts':
        "import { store } from '../store/store.ts';\nexport const p = store;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const found = violations(dir);
    for (const expected of [
      'no-circular: src/domain/a.ts → src/domain/b.ts',
      'domain-is-the-bottom: src/domain/rule.ts → src/store/store.ts',
      'store-below-services: src/store/store.ts → src/links/routes.ts',
      'engines-apart: src/store/sqlite/links.ts → src/store/postgres/links.ts',
      'entry-points-on-top: src/links/routes.ts → src/app.ts',
      'http-plumbing-below-features: src/http/body.ts → src/links/routes.ts',
      'analytics-is-pure: src/analytics/fold.ts → src/store/store.ts',
      'config-reads-no-feature: src/config/cli.ts → src/http/body.ts',
      'engines-behind-the-contract: src/links/writer.ts → src/store/sqlite/links.ts',
      'click-pipeline-below-store: src/clicks/pipeline.ts → src/store/store.ts',
    ]) {
      expect(found).toContain(expected);
    }
  }, 30_000);

  test('no source file is over 500 lines', () => {
    const long: string[] = [];
    const walk = (folder: string) => {
      for (const name of readdirSync(folder)) {
        const path = join(folder, name);
        if (statSync(path).isDirectory()) walk(path);
        // Pictures and the message catalogues (one per language, as long as the UI has
        // texts) are data, not code to read whole.
        else if (!name.endsWith('.svg') && !path.includes('/i18n/catalogues/')) {
          const lines = readFileSync(path, 'utf8').split('\n').length - 1;
          if (lines > 500) long.push(`${path.slice(ROOT.length + 1)}: ${lines}`);
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(long).toEqual([]);
  });
});
