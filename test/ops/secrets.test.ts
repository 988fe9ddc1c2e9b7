// Secrets at rest and tokens: owner-only database files, the key file, rotate-secret with
// a running server's SIGHUP reload, and the JWT header rules.

import { describe, expect, test } from 'bun:test';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { call, eventually, type Running, runKurz, startKurz, tempDir } from '../support/binary.ts';
import { SECRET, TestApp } from '../support/test-app.ts';

const start = (args: string[], cwd: string) => startKurz(args, { cwd });

const mode = (path: string) => statSync(path).mode & 0o777;
const PASSWORD = 'correct horse 42';

const waitFor = (kurz: Running, text: string) =>
  eventually(
    () => kurz.output().includes(text),
    () => `"${text}" in:\n${kurz.output()}`,
  );

describe('database files are the owner’s alone', () => {
  test('a new folder is 0700 and the database, counts and their WAL and shm files 0600', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'data', 'kurz.db');
    const kurz = await start(['--db', db, '--mode', 'open'], cwd);
    // A click writes the log and, via the rollup, the counts database: every file exists.
    const made = await call(kurz.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/', custom_code: 'm' },
    });
    expect(made.status).toBe(201);
    expect((await call(kurz.url, 'GET', '/m')).status).toBe(307);
    expect(mode(join(cwd, 'data'))).toBe(0o700);
    for (const file of ['', '-wal', '-shm', '-counts', '-counts-wal', '-counts-shm']) {
      expect([file, mode(db + file)]).toEqual([file, 0o600]);
    }
    expect(await kurz.stop()).toBe(0);
  });

  test('an existing database readable by others is tightened, and the log says so', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'kurz.db');
    expect((await runKurz(['migrate', '--db', db], { cwd })).code).toBe(0);
    chmodSync(db, 0o644);
    chmodSync(`${db}-counts`, 0o640);
    const migrated = await runKurz(['migrate', '--db', db], { cwd });
    expect(migrated.code).toBe(0);
    expect(mode(db)).toBe(0o600);
    expect(mode(`${db}-counts`)).toBe(0o600);
    expect(migrated.stdout).toContain(`${db} was readable by other users (mode 644)`);
    expect(migrated.stdout).toContain(`${db}-counts was readable by other users (mode 640)`);
  });
});

describe('kurz rotate-secret', () => {
  test('replaces the stored key: a running kurz stops accepting old tokens once sent SIGHUP', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'kurz.db');
    const kurz = await start(['--db', db], cwd);
    const ann = { email: 'ann@example.com', password: PASSWORD };
    const registered = await call(kurz.url, 'POST', '/api/auth/register', { json: ann });
    const token = registered.json.token as string;
    expect((await call(kurz.url, 'GET', '/api/links', { token })).status).toBe(200);

    const rotated = await runKurz(['rotate-secret', '--db', db], { cwd });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toContain('every token issued before is now invalid');
    expect(rotated.stdout).toContain('once it is sent SIGHUP or restarted');
    // True to its word: until the signal, the running server still has the old key.
    expect((await call(kurz.url, 'GET', '/api/links', { token })).status).toBe(200);

    kurz.proc.kill('SIGHUP');
    await waitFor(kurz, 'token key reloaded');
    const refused = await call(kurz.url, 'GET', '/api/links', { token });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual({ error: 'Unauthorized' });
    // Logging in again gives a token of the new key.
    const again = await call(kurz.url, 'POST', '/api/auth/login', { json: ann });
    expect((await call(kurz.url, 'GET', '/api/links', { token: again.json.token })).status).toBe(
      200,
    );
    expect(await kurz.stop()).toBe(0);

    // And after a restart the new key is the one in use.
    const restarted = await start(['--db', db], cwd);
    expect((await call(restarted.url, 'GET', '/api/links', { token })).status).toBe(401);
    expect(
      (await call(restarted.url, 'GET', '/api/links', { token: again.json.token })).status,
    ).toBe(200);
    expect(await restarted.stop()).toBe(0);
  });

  test('a key given by --jwt-secret-file is not affected, and the command says so', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'kurz.db');
    const keyFile = join(cwd, 'key');
    writeFileSync(keyFile, `${'k'.repeat(40)}\n`);
    const kurz = await start(['--db', db, '--jwt-secret-file', keyFile], cwd);
    const registered = await call(kurz.url, 'POST', '/api/auth/register', {
      json: { email: 'bob@example.com', password: PASSWORD },
    });
    const token = registered.json.token as string;
    const rotated = await runKurz(['rotate-secret', '--db', db, '--jwt-secret-file', keyFile], {
      cwd,
    });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toContain('takes precedence');
    kurz.proc.kill('SIGHUP');
    await waitFor(kurz, 'given by flag or file and stays');
    expect((await call(kurz.url, 'GET', '/api/links', { token })).status).toBe(200);
    expect(await kurz.stop()).toBe(0);
  });
});

describe('token headers', () => {
  const key = new TextEncoder().encode(SECRET);
  const now = () => Math.floor(Date.now() / 1000);
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

  async function signed(header: Record<string, unknown>, sub: string, alg = 'HS256') {
    return new SignJWT({ sub, iat: now(), exp: now() + 60 })
      .setProtectedHeader({ ...header, alg })
      .sign(key);
  }

  test('alg must be exactly HS256 and typ, when present, JWT in any case', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const sub = String(ann.user?.id);
    const [, payload] = (ann.token as string).split('.');
    const refused = {
      'alg none, unsigned': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'alg none with the real signature': `${b64({ alg: 'none' })}.${payload}.${(ann.token as string).split('.')[2]}`,
      'HS512 signed with the same key': await signed({ typ: 'JWT' }, sub, 'HS512'),
      'typ at+jwt': await signed({ typ: 'at+jwt' }, sub),
      'typ JWS': await signed({ typ: 'JWS' }, sub),
      'typ not a string': await signed({ typ: 1 }, sub),
      'a header that is not an object': `${b64(['HS256'])}.${payload}.x`,
    };
    for (const [what, token] of Object.entries(refused)) {
      const reply = await app.get('/api/links', { token });
      expect([what, reply.status]).toEqual([what, 401]);
      expect(reply.json).toEqual({ error: 'Unauthorized' });
    }
    const accepted = {
      'typ JWT': await signed({ typ: 'JWT' }, sub),
      'typ jwt': await signed({ typ: 'jwt' }, sub),
      'no typ': await signed({}, sub),
    };
    for (const [what, token] of Object.entries(accepted)) {
      expect([what, (await app.get('/api/links', { token })).status]).toEqual([what, 200]);
    }
  });

  test('a header alg that differs only in case is refused', async () => {
    const app = await TestApp.init();
    const ann = await app.user();
    const [, payload, signature] = (ann.token as string).split('.');
    const token = `${b64({ alg: 'hs256', typ: 'JWT' })}.${payload}.${signature}`;
    expect((await app.get('/api/links', { token })).status).toBe(401);
  });
});
