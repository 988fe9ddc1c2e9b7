// Who may administer: every /api/admin operation the OpenAPI document lists (whoever's
// routes they are) refuses everyone but an admin user's session token and the
// operator's admin token, in both modes, before it looks at the body or the path.

import { describe, expect, test } from 'bun:test';
import { TokenKey } from '../../src/auth/tokens.ts';
import { ADMIN_TOKEN, type Client, TestApp } from '../support/test-app.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is free-form JSON
type Json = any;

const UNAUTHORIZED = { error: 'Unauthorized' };
const FORBIDDEN = { error: 'Forbidden' };
const NO_TOKEN = { error: 'Administration needs an admin token (--admin-token)' };

/** Every /api/admin operation of the app's document, its path filled in with `values`. */
async function adminOperations(app: TestApp, values: Record<string, string>) {
  const doc: Json = (await app.get('/api/openapi.json')).json;
  const found = Object.entries(doc.paths as Record<string, Json>)
    .filter(([path]) => path.startsWith('/api/admin/'))
    .flatMap(([path, item]) =>
      Object.keys(item).map((method) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '1'),
        name: `${method.toUpperCase()} ${path}`,
      })),
    );
  return found;
}

/** Whether a status is a refusal of the credential. */
const refused = (status: number) => status === 401 || status === 403;

async function key(client: Client, scope: 'read' | 'write'): Promise<string> {
  const reply = await client.app.post('/api/keys', { name: scope, scope }, { token: client.token });
  if (reply.status !== 201) throw new Error(`no key: ${reply.status} ${reply.text}`);
  return reply.json.key;
}

/** A request to an operation with `authorization` (or none), a JSON object body for those that take one. */
function call(
  app: TestApp,
  op: { method: string; path: string },
  authorization: string | undefined,
) {
  return app.request(op.method, op.path, {
    json: op.method === 'POST' || op.method === 'PATCH' ? {} : undefined,
    headers: authorization === undefined ? {} : { authorization },
  });
}

describe('accounts mode', () => {
  test('every /api/admin operation refuses everyone but admin users and the admin token', async () => {
    const app = await TestApp.init('accounts', { adminToken: ADMIN_TOKEN });
    const admin = await app.admin('admin@example.com');
    const ann = await app.user('ann@example.com');
    const bob = await app.user('bob@example.com');
    const fallen = await app.admin('fallen@example.com');
    await app.store.setUserDisabled(fallen.user?.id as number, Date.now());
    const victim = await app.user('victim@example.com');
    const link = await ann.link('https://example.com/a');
    const operations = await adminOperations(app, {
      code: link.short_code,
      id: String(victim.user?.id),
      host: 'evil.example',
    });
    expect(operations.length).toBeGreaterThanOrEqual(11);
    // A token kurz never signed, and one of a key that is not kurz's.
    const forged = await new TokenKey('another-secret-another-secret-0123456').sign({
      sub: String(admin.user?.id),
      exp: Math.floor(Date.now() / 1000) + 3600,
      ver: 0,
    });
    const refusals: [string, string | undefined, number, unknown][] = [
      ['no credential', undefined, 401, UNAUTHORIZED],
      ['a malformed token', 'Bearer abc.def.ghi', 401, UNAUTHORIZED],
      ['a token signed with another key', `Bearer ${forged}`, 401, UNAUTHORIZED],
      ['Basic credentials', 'Basic dXNlcjpwYXNz', 401, UNAUTHORIZED],
      ['a wrong admin token', `Bearer ${ADMIN_TOKEN}x`, 401, UNAUTHORIZED],
      ['a disabled admin', `Bearer ${fallen.token}`, 401, UNAUTHORIZED],
      ['a user who is no admin', `Bearer ${ann.token}`, 403, FORBIDDEN],
      ["another user's token", `Bearer ${bob.token}`, 403, FORBIDDEN],
      ["a user's read key", `Bearer ${await key(ann, 'read')}`, 403, FORBIDDEN],
      ["a user's write key", `Bearer ${await key(ann, 'write')}`, 403, FORBIDDEN],
      ["an admin's read key", `Bearer ${await key(admin, 'read')}`, 403, FORBIDDEN],
      ["an admin's write key", `Bearer ${await key(admin, 'write')}`, 403, FORBIDDEN],
    ];
    for (const op of operations) {
      for (const [who, authorization, status, body] of refusals) {
        const reply = await call(app, op, authorization);
        expect([op.name, who, reply.status, reply.json]).toEqual([op.name, who, status, body]);
        if (status === 401) expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
    // Let through (whatever the answer then is: 200, 400 for the empty body, 404…).
    for (const authorization of [`Bearer ${admin.token}`, `Bearer ${ADMIN_TOKEN}`]) {
      for (const op of operations) {
        const reply = await call(app, op, authorization);
        expect([op.name, reply.status, refused(reply.status)]).toEqual([
          op.name,
          reply.status,
          false,
        ]);
      }
    }
  });

  test('without --admin-token, admin users still administer and no token stands for the operator', async () => {
    const app = await TestApp.init('accounts');
    const admin = await app.admin();
    const operations = await adminOperations(app, { code: 'nope', host: 'evil.example' });
    for (const op of operations) {
      const token = await call(app, op, `Bearer ${ADMIN_TOKEN}`);
      expect([op.name, token.status, token.json]).toEqual([op.name, 401, UNAUTHORIZED]);
      const user = await call(app, op, `Bearer ${admin.token}`);
      expect([op.name, user.status, refused(user.status)]).toEqual([op.name, user.status, false]);
    }
  });

  test('a user made admin or no more is told so on the next request, as a disabled one is', async () => {
    const app = await TestApp.init('accounts');
    const ann = await app.user();
    const overview = () => app.get('/api/admin/overview', { token: ann.token });
    expect((await overview()).status).toBe(403);
    await app.store.setUserAdmin(ann.user?.id as number, true);
    expect((await overview()).status).toBe(200);
    await app.store.setUserDisabled(ann.user?.id as number, Date.now());
    expect((await overview()).status).toBe(401);
    await app.store.setUserDisabled(ann.user?.id as number, null);
    expect((await overview()).status).toBe(200);
  });
});

describe('open mode', () => {
  test('without an admin token configured, every /api/admin operation is 403, whatever is sent', async () => {
    const app = await TestApp.init('open');
    const operations = await adminOperations(app, { code: 'nope', host: 'evil.example' });
    expect(operations.length).toBeGreaterThanOrEqual(8);
    for (const op of operations) {
      for (const authorization of [undefined, `Bearer ${ADMIN_TOKEN}`, 'Bearer x']) {
        const reply = await call(app, op, authorization);
        expect([op.name, reply.status, reply.json]).toEqual([op.name, 403, NO_TOKEN]);
      }
    }
  });

  test('with one, a missing or wrong token is 401; the token is let through', async () => {
    const app = await TestApp.init('open', { adminToken: ADMIN_TOKEN });
    const link = await app.anonymous().link('https://example.com/');
    const operations = await adminOperations(app, {
      code: link.short_code,
      host: 'evil.example',
    });
    for (const op of operations) {
      for (const authorization of [undefined, `Bearer ${ADMIN_TOKEN}x`, 'Bearer abc.def.ghi']) {
        const reply = await call(app, op, authorization);
        expect([op.name, reply.status, reply.json]).toEqual([op.name, 401, UNAUTHORIZED]);
        expect(reply.headers.get('www-authenticate')).toBe('Bearer');
      }
      const reply = await call(app, op, `Bearer ${ADMIN_TOKEN}`);
      expect([op.name, reply.status, refused(reply.status)]).toEqual([
        op.name,
        reply.status,
        false,
      ]);
    }
    expect((await app.get('/api/admin/users', { token: ADMIN_TOKEN })).status).toBe(404);
  });
});
