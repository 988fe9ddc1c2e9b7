// The ways to install kurz, as written in the README and docs/install.md. Building from
// source: the README's Quick start is two commands, npm's start and test scripts, and
// the start script serves kurz from the checkout. (npm test is the run this file is part
// of. The release archives are unpacked and run by test/ops/release.test.ts, the container by
// test/ops/container.test.ts.)

import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { call, eventually, tempDir } from '../support/binary.ts';
import { track } from '../support/cleanup.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const install = readFileSync(join(ROOT, 'docs', 'install.md'), 'utf8');
const container = readFileSync(join(ROOT, 'docs', 'container.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('building from source', () => {
  test('the Quick start is the two commands npm start and npm test, run by scripts/start.sh and scripts/test.sh', () => {
    const quickStart = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
    );
    const block = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? '';
    expect(
      block
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => line.split(/\s+/).slice(0, 2).join(' ')),
    ).toEqual(['npm start', 'npm test']);
    expect(pkg.scripts.start).toBe('sh scripts/start.sh');
    expect(pkg.scripts.test).toBe('sh scripts/test.sh');
  });

  test('npm start serves kurz from the checkout, flags passed on', async () => {
    const dir = tempDir();
    const proc = track(
      Bun.spawn(
        [
          'sh',
          join(ROOT, 'scripts', 'start.sh'),
          '--port',
          '0',
          '--host',
          '127.0.0.1',
          '--db',
          join(dir, 'kurz.db'),
        ],
        {
          cwd: dir,
          env: { ...process.env },
          stdout: 'pipe',
          stderr: 'pipe',
        },
      ),
    );
    let output = '';
    const read = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) output += new TextDecoder().decode(chunk);
    };
    void read(proc.stdout);
    void read(proc.stderr);
    try {
      await eventually(
        () => /kurz listening on http:\/\/127\.0\.0\.1:\d+/.test(output),
        () => `kurz listening (output: ${output})`,
        30_000,
      );
      const port = /kurz listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      const health = await call(`http://127.0.0.1:${port}`, 'GET', '/health');
      expect({ status: health.status, body: health.text }).toEqual({
        status: 200,
        body: '"Healthy"',
      });
      expect(output).toContain(`db: ${join(dir, 'kurz.db')}`);
    } finally {
      proc.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
    }
  }, 60_000);
});

describe('running the container', () => {
  test("docs/install.md's commands are the image script and docs/container.md's run line", () => {
    // To the next heading of its level.
    const start = install.indexOf('## The container');
    const section = install.slice(start, install.indexOf('\n## ', start + 1));
    const steps = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const [build, runLine] = steps.split('\n').map((line) => line.replace(/\s+#.*$/, ''));
    expect(build).toBe('bun run image');
    expect(pkg.scripts.image).toBe('sh scripts/image.sh');
    expect(container).toContain(`\n${runLine}\n`);
    // The README's own line is the same.
    expect(readme).toContain(`\`${runLine}\``);
  });
});
