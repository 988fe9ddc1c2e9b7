// `kurz user add|list|passwd|promote|demote|disable|enable|remove` against a database a
// kurz is serving, on SQLite and on PostgreSQL: what the operator does takes effect on
// the running server at once.

import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  BINARY,
  call,
  eventually,
  type Running,
  runKurz,
  startKurz,
  tempDir,
} from '../support/binary.ts';
import { freshDatabase } from '../support/postgres.ts';

const PASSWORD = 'correct horse 42';

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

async function login(server: Running, email: string, password = PASSWORD) {
  return call(server.url, 'POST', '/api/auth/login', { json: { email, password } });
}

describe.each(['sqlite', 'postgres'] as const)('kurz user on %s, while kurz serves', (kind) => {
  let db = '';
  let server: Running;
  const user = (args: string[], input?: string) =>
    runKurz(['user', ...args, '--db', db], { input });

  beforeAll(async () => {
    db = kind === 'sqlite' ? join(tempDir(), 'kurz.db') : await freshDatabase();
    server = await startKurz(['--db', db, '--registration', 'closed', '--rate-limits', 'off']);
  }, 30_000);

  test('add: the password comes from stdin, never an argument; the account logs in at once', async () => {
    const added = await user(['add', ' Ann@Example.com '], `${PASSWORD}\nignored second line\n`);
    expect([added.code, added.stderr]).toEqual([0, '']);
    expect(added.stdout).toMatch(/^kurz: user ann@example\.com added \(id \d+\)\n$/);
    const reply = await login(server, 'ann@example.com');
    expect(reply.status).toBe(200);
    // Registration is closed: the tool is the way in.
    const register = await call(server.url, 'POST', '/api/auth/register', {
      json: { email: 'bob@example.com', password: PASSWORD },
    });
    expect([register.status, register.json]).toEqual([403, { error: 'Registration is closed' }]);
  });

  test('add refuses a taken e-mail, a bad e-mail and a short password, changing nothing', async () => {
    const taken = await user(['add', 'ann@example.com'], `${PASSWORD}\n`);
    expect([taken.code, taken.stderr]).toEqual([
      1,
      'kurz: a user ann@example.com exists already\n',
    ]);
    const bad = await user(['add', 'not-an-email'], `${PASSWORD}\n`);
    expect([bad.code, bad.stderr]).toEqual([2, 'kurz: "not-an-email": Invalid email address\n']);
    const short = await user(['add', 'carl@example.com'], 'short\n');
    expect([short.code, short.stderr]).toEqual([
      1,
      'kurz: Password must be 8 to 1024 characters long; nothing changed\n',
    ]);
    expect((await login(server, 'carl@example.com', 'short')).status).toBe(401);
  });

  test('list shows each account with its links', async () => {
    const { json } = await login(server, 'ann@example.com');
    for (const url of ['https://example.com/1', 'https://example.com/2']) {
      await call(server.url, 'POST', '/api/shorten', { json: { url }, token: json.token });
    }
    const listed = await user(['list']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('kurz: 1 user');
    expect(lines[1]).toMatch(/^ID +EMAIL +LINKS +ROLE +STATUS +CREATED$/);
    expect(lines[2]).toMatch(/^\d+ +ann@example\.com +2 +user +active +\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  });

  test('add --admin, promote, demote: the role reaches /api/admin at once', async () => {
    const added = await user(['add', 'root@example.com', '--admin'], `${PASSWORD}\n`);
    expect(added.stdout).toMatch(/^kurz: admin root@example\.com added \(id \d+\)\n$/);
    const root = (await login(server, 'root@example.com')).json.token;
    const ann = (await login(server, 'ann@example.com')).json.token;
    const overview = (token: string) =>
      call(server.url, 'GET', '/api/admin/overview', { token }).then((r) => r.status);
    expect([await overview(root), await overview(ann)]).toEqual([200, 403]);
    const promoted = await user(['promote', 'ann@example.com']);
    expect(promoted.stdout).toBe('kurz: user ann@example.com is now an admin\n');
    expect(await overview(ann)).toBe(200);
    expect((await user(['promote', 'ann@example.com'])).stdout).toBe(
      'kurz: user ann@example.com is an admin already\n',
    );
    const listed = (await user(['list'])).stdout;
    expect(listed).toMatch(/ann@example\.com +2 +admin +active/);
    expect(listed).toMatch(/root@example\.com +0 +admin +active/);
    const demoted = await user(['demote', 'ann@example.com']);
    expect(demoted.stdout).toBe('kurz: user ann@example.com is no longer an admin\n');
    expect(await overview(ann)).toBe(403);
    const nobody = await user(['promote', 'nobody@example.com']);
    expect([nobody.code, nobody.stderr]).toEqual([1, 'kurz: no user nobody@example.com\n']);
    await user(['remove', 'root@example.com', '--keep-links']);
  });

  test('disable: tokens and keys 401 at once, sign-in 403, links still redirect; enable restores them', async () => {
    const token = (await login(server, 'ann@example.com')).json.token;
    const [link] = (await call(server.url, 'GET', '/api/links', { token })).json;
    const disabled = await user(['disable', 'ann@example.com']);
    expect(disabled.stdout).toBe(
      'kurz: user ann@example.com disabled; their tokens and API keys no longer work, their links do\n',
    );
    expect((await call(server.url, 'GET', '/api/links', { token })).status).toBe(401);
    const signIn = await login(server, 'ann@example.com');
    expect([signIn.status, signIn.json]).toEqual([403, { error: 'Account disabled' }]);
    expect((await call(server.url, 'GET', `/${link.short_code}`)).status).toBe(307);
    expect((await user(['list'])).stdout).toMatch(/ann@example\.com +2 +user +disabled/);
    expect((await user(['enable', 'ann@example.com'])).stdout).toBe(
      'kurz: user ann@example.com enabled\n',
    );
    expect((await call(server.url, 'GET', '/api/links', { token })).status).toBe(200);
    expect((await user(['enable', 'ann@example.com'])).stdout).toBe(
      'kurz: user ann@example.com is not disabled\n',
    );
  });

  test('passwd: the old password and every token issued before it stop working at once', async () => {
    const before = (await login(server, 'ann@example.com')).json.token;
    expect((await call(server.url, 'GET', '/api/links', { token: before })).status).toBe(200);
    const changed = await user(['passwd', 'ann@example.com'], 'a brand new password\n');
    expect(changed.stdout).toBe(
      'kurz: password of ann@example.com changed; their existing tokens no longer work\n',
    );
    expect((await call(server.url, 'GET', '/api/links', { token: before })).status).toBe(401);
    expect((await login(server, 'ann@example.com')).status).toBe(401);
    expect((await login(server, 'ann@example.com', 'a brand new password')).status).toBe(200);
    const nobody = await user(['passwd', 'nobody@example.com'], `${PASSWORD}\n`);
    expect([nobody.code, nobody.stderr]).toEqual([1, 'kurz: no user nobody@example.com\n']);
  });

  test('remove needs --with-links or --keep-links; keeping hands the links to no one, still redirecting', async () => {
    await user(['add', 'keep@example.com'], `${PASSWORD}\n`);
    const { token } = (await login(server, 'keep@example.com')).json;
    const made = await call(server.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/kept' },
      token,
    });
    const code = made.json.short_code;
    const unsure = await user(['remove', 'keep@example.com']);
    expect(unsure.code).toBe(2);
    expect(unsure.stderr).toContain('user remove needs --with-links');
    const removed = await user(['remove', 'keep@example.com', '--keep-links']);
    expect(removed.stdout).toBe(
      'kurz: user keep@example.com removed, with their API keys and webhooks; their 1 link now belongs to no one\n',
    );
    expect((await call(server.url, 'GET', '/api/links', { token })).status).toBe(401);
    expect((await call(server.url, 'GET', `/${code}`)).status).toBe(307);
  });

  test('remove --with-links: the links stop redirecting and the tokens stop working', async () => {
    const { token } = (await login(server, 'ann@example.com', 'a brand new password')).json;
    const links = (await call(server.url, 'GET', '/api/links', { token })).json;
    const code = links[0].short_code;
    // The server has the link in its cache now.
    expect((await call(server.url, 'GET', `/${code}`)).status).toBe(307);
    const removed = await user(['remove', 'ann@example.com', '--with-links']);
    expect(removed.stdout).toBe(
      'kurz: user ann@example.com removed, with their 2 links and their clicks, API keys and webhooks\n',
    );
    expect((await call(server.url, 'GET', '/api/links', { token })).status).toBe(401);
    await eventually(
      async () => (await call(server.url, 'GET', `/${code}`)).status === 404,
      'the removed link answers 404',
      2000,
    );
    expect((await user(['list'])).stdout).toBe('kurz: no users\n');
    expect(await server.stop()).toBe(0);
  });
});

/**
 * Runs `kurz ARGS` on a terminal (util-linux `script` gives it a pseudo-terminal) and
 * types each answer once its prompt shows.
 */
async function onTerminal(args: string[], answers: string[]) {
  const command = [BINARY, ...args].map((arg) => `'${arg}'`).join(' ');
  const proc = Bun.spawn(['script', '-qec', command, '/dev/null'], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '' },
  });
  let seen = '';
  const reading = (async () => {
    for await (const chunk of proc.stdout) seen += new TextDecoder().decode(chunk);
  })();
  const prompts = ['New password: ', 'Repeat it: '];
  for (const [i, answer] of answers.entries()) {
    await eventually(() => seen.includes(prompts[i] as string), `the prompt "${prompts[i]}"`);
    proc.stdin.write(`${answer}\r`);
    proc.stdin.flush();
  }
  const code = await proc.exited;
  await reading;
  return { code, output: seen };
}

describe('kurz user on a terminal', () => {
  test('asks for the password twice without echoing it; two different answers change nothing', async () => {
    const db = join(tempDir(), 'kurz.db');
    const typed = await onTerminal(
      ['user', 'add', 'tty@example.com', '--db', db],
      [PASSWORD, PASSWORD],
    );
    expect(typed.code).toBe(0);
    expect(typed.output).toContain('New password: ');
    expect(typed.output).toContain('Repeat it: ');
    expect(typed.output).toContain('kurz: user tty@example.com added');
    expect(typed.output).not.toContain(PASSWORD);
    const differ = await onTerminal(
      ['user', 'passwd', 'tty@example.com', '--db', db],
      ['one new password', 'another password'],
    );
    expect(differ.code).toBe(1);
    expect(differ.output).toContain('kurz: the two passwords differ; nothing changed');
    const server = await startKurz(['--db', db]);
    expect((await login(server, 'tty@example.com')).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });
});

describe('kurz user, its command line', () => {
  test.each([
    [
      ['user', 'frob'],
      'unknown action "frob" for user (expected add, list, passwd, promote, demote, disable, enable or remove; see kurz user --help)',
    ],
    [['user', 'add'], 'user add needs an EMAIL (see kurz user --help)'],
    [['user', 'list', 'x@example.com'], 'user list takes no EMAIL (see kurz user --help)'],
    [['user', 'passwd', 'x@example.com', '--keep-links'], '--keep-links is for user remove only'],
    [
      ['user', 'promote', 'x@example.com', '--admin'],
      '--admin is for user add only (see kurz user promote)',
    ],
    [['user', 'disable'], 'user disable needs an EMAIL (see kurz user --help)'],
    [
      ['user', 'add', 'x@example.com', '--password', 'p'],
      'unknown flag --password for user (see kurz user --help)',
    ],
  ])('%p exits 2: %p, opening no database', async (args, message) => {
    const dir = tempDir();
    const run = await runKurz([...args, '--db', join(dir, 'k.db')]);
    expect([run.code, run.stderr]).toEqual([2, `kurz: ${message}\n`]);
    expect(existsSync(join(dir, 'k.db'))).toBe(false);
  });

  test('kurz user --help says every action, and that passwords never go on the command line', async () => {
    const help = await runKurz(['user', '--help']);
    expect(help.code).toBe(0);
    for (const text of [
      'kurz user add EMAIL',
      'kurz user list',
      'kurz user passwd EMAIL',
      'kurz user promote EMAIL',
      'kurz user demote EMAIL',
      'kurz user disable EMAIL',
      'kurz user enable EMAIL',
      '--admin',
      '--with-links',
      '--keep-links',
      'stdin',
    ]) {
      expect(help.stdout).toContain(text);
    }
  });
});
