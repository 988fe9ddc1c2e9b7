// Several kurz processes on one PostgreSQL database, as a deployment behind a load
// balancer runs them: counts, custom codes, new links, the token key, paging, changes,
// deletions and click limits must agree whichever instance answers, with no instance
// remembering what another did.

import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { SQL } from 'bun';
import { embeddedMigrations } from '../../src/store/embedded-migrations.ts';
import {
  BINARY,
  call,
  eventually,
  type Running,
  runKurz,
  startKurz,
  tempDir,
} from '../support/binary.ts';
import { track } from '../support/cleanup.ts';
import { freshDatabase } from '../support/postgres.ts';

type Mode = 'accounts' | 'open';
const MODES: Mode[] = ['accounts', 'open'];
const PASSWORD = 'correct horse 42';

beforeAll(() => {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run \`bun run build\` first`);
});

/** Everything a test started, stopped after it (SIGTERM) and expected to exit 0. */
let started: Running[] = [];
/** Direct connections a test opened to look at the database. */
const inspectors: SQL[] = [];

afterEach(async () => {
  const running = started;
  started = [];
  const codes = await Promise.all(running.map((kurz) => kurz.stop('SIGTERM')));
  await Promise.all(inspectors.splice(0).map((client) => client.close({ timeout: 1 })));
  expect(codes).toEqual(running.map(() => 0));
});

/** `count` instances of kurz started together on the database `db`. */
async function instances(count: number, db: string, args: string[] = []): Promise<Running[]> {
  const nodes = await Promise.all(
    Array.from({ length: count }, () => startKurz(['--db', db, ...args])),
  );
  started.push(...nodes);
  return nodes;
}

/** A connection of the test's own, to read what the HTTP interface does not show. */
function inspect(db: string): SQL {
  const client = new SQL(db, { max: 1, connectionTimeout: 5 });
  inspectors.push(client);
  return client;
}

/** A user registered on `node`: their token (accounts mode), or undefined in open mode. */
async function userOn(node: Running, mode: Mode, email: string): Promise<string | undefined> {
  if (mode === 'open') return undefined;
  const reg = await call(node.url, 'POST', '/api/auth/register', {
    json: { email, password: PASSWORD },
  });
  expect(reg.status).toBe(200);
  return reg.json.token;
}

/** Runs job(0 … count-1) with at most `width` in flight; the results in order. */
async function inParallel<T>(
  count: number,
  width: number,
  job: (i: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  return results;
}

/** Counts how often each value occurs. */
function tally(values: readonly (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** The link list as `node` shows it to `token` (or to anyone in open mode). */
async function list(node: Running, token: string | undefined, query = '') {
  const listed = await call(node.url, 'GET', `/api/links${query}`, { token });
  expect(listed.status).toBe(200);
  return listed;
}

/** The clicks of each code as `node` lists them. */
async function clicksOn(node: Running, token: string | undefined): Promise<Record<string, number>> {
  const listed = await list(node, token);
  return Object.fromEntries(
    listed.json.map((link: { short_code: string; clicks: number }) => [
      link.short_code,
      link.clicks,
    ]),
  );
}

describe.each(MODES)('%s mode, two instances on one database', (mode) => {
  test('redirects split over both are all counted, exactly, as soon as the last 307 is in', async () => {
    const db = await freshDatabase();
    const nodes = await instances(2, db, ['--mode', mode, '--rate-limits', 'off']);
    const [a, b] = nodes as [Running, Running];
    const token = await userOn(a, mode, 'clicks@example.com');

    const one = await call(a.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/one', custom_code: 'one' },
      token,
    });
    expect(one.status).toBe(201);
    const N = 2000;
    const statuses = await inParallel(N, 64, async (i) => {
      const node = nodes[i % 2] as Running;
      return (await call(node.url, 'GET', '/one')).status;
    });
    expect(tally(statuses)).toEqual({ 307: N });
    // Read at once: every 307 left after its click was committed.
    expect(await clicksOn(b, token)).toEqual({ one: N });
    expect(await clicksOn(a, token)).toEqual({ one: N });

    // Several links at once, each created on either instance and followed on both.
    const codes = ['m0', 'm1', 'm2', 'm3', 'm4'];
    for (const [i, code] of codes.entries()) {
      const made = await call((nodes[i % 2] as Running).url, 'POST', '/api/shorten', {
        json: { url: `https://example.com/${code}`, custom_code: code },
        token,
      });
      expect(made.status).toBe(201);
    }
    // Link k gets 100·(k+1) clicks, interleaved over links and instances.
    const plan: string[] = [];
    for (let round = 0; round < 100 * codes.length; round++) {
      for (const [k, code] of codes.entries()) if (round < 100 * (k + 1)) plan.push(code);
    }
    const answers = await inParallel(plan.length, 64, async (i) => {
      const node = nodes[i % 2] as Running;
      const followed = await call(node.url, 'GET', `/${plan[i]}`);
      return `${followed.status} ${followed.headers.get('location')}`;
    });
    expect(tally(answers)).toEqual(
      Object.fromEntries(
        codes.map((code, k) => [`307 https://example.com/${code}`, 100 * (k + 1)]),
      ),
    );
    const expected = {
      one: N,
      ...Object.fromEntries(codes.map((code, k) => [code, 100 * (k + 1)])),
    };
    expect(await clicksOn(a, token)).toEqual(expected);
    expect(await clicksOn(b, token)).toEqual(expected);
  }, 60_000);

  test('one custom code asked for on both at once: exactly one 201, every other "taken"', async () => {
    const db = await freshDatabase();
    const nodes = await instances(2, db, ['--mode', mode, '--rate-limits', 'off']);
    const [a, b] = nodes as [Running, Running];
    // In accounts mode each instance's requests come from a user of its own.
    const tokens = [
      await userOn(a, mode, 'ann@example.com'),
      await userOn(b, mode, 'bob@example.com'),
    ];
    const PER_CODE = 40;
    for (const code of ['race', 'Race', 'r-1', 'r_2', 'x'.repeat(32)]) {
      const answers = await Promise.all(
        Array.from({ length: PER_CODE }, (_, i) =>
          call((nodes[i % 2] as Running).url, 'POST', '/api/shorten', {
            json: { url: `https://example.com/${code}/${i}`, custom_code: code },
            token: tokens[i % 2],
          }),
        ),
      );
      expect(tally(answers.map((answer) => answer.status))).toEqual({ 201: 1, 400: PER_CODE - 1 });
      for (const answer of answers.filter((answer) => answer.status === 400)) {
        expect(answer.json).toEqual({ error: 'Custom code already taken' });
      }
      const winner = answers.find((answer) => answer.status === 201)?.json;
      expect(winner.short_code).toBe(code);
      for (const node of nodes) {
        const followed = await call(node.url, 'GET', `/${code}`);
        expect(followed.status).toBe(307);
        expect(followed.headers.get('location')).toBe(winner.original_url);
      }
    }
    // Each code is held by one link, whichever list shows it.
    const held = [
      ...(await list(a, tokens[0])).json,
      ...(mode === 'accounts' ? (await list(b, tokens[1])).json : []),
    ].map((link: { short_code: string }) => link.short_code);
    expect(held.sort()).toEqual(['Race', 'r-1', 'r_2', 'race', 'x'.repeat(32)].sort());
  }, 60_000);

  test('a code created on A redirects on B at once, even right after B found it unknown', async () => {
    const db = await freshDatabase();
    const [a, b] = (await instances(2, db, ['--mode', mode])) as [Running, Running];
    const token = await userOn(a, mode, 'fresh@example.com');
    for (let i = 0; i < 20; i++) {
      const code = `fresh${i}`;
      // B has just been asked for the code and believes it unknown (for 2 s).
      expect((await call(b.url, 'GET', `/${code}`)).status).toBe(404);
      const made = await call(a.url, 'POST', '/api/shorten', {
        json: { url: `https://example.com/${code}`, custom_code: code },
        token,
      });
      expect(made.status).toBe(201);
      const followed = await call(b.url, 'GET', `/${code}`);
      expect(`${followed.status} ${followed.headers.get('location')}`).toBe(
        `307 https://example.com/${code}`,
      );
    }
    // And with no miss before: B asks the database.
    for (let i = 0; i < 20; i++) {
      const made = await call(a.url, 'POST', '/api/shorten', {
        json: { url: `https://example.com/new/${i}` },
        token,
      });
      expect(made.status).toBe(201);
      const followed = await call(b.url, 'GET', `/${made.json.short_code}`);
      expect(`${followed.status} ${followed.headers.get('location')}`).toBe(
        `307 https://example.com/new/${i}`,
      );
    }
  }, 30_000);

  test('paging agrees: the same pages, totals and next links on both instances', async () => {
    const db = await freshDatabase();
    const nodes = await instances(2, db, ['--mode', mode]);
    const [a, b] = nodes as [Running, Running];
    const ann = await userOn(a, mode, 'ann@example.com');
    const bob = await userOn(b, mode, 'bob@example.com');
    // 23 links of Ann's and 7 of Bob's, made on both instances, some at the same moment.
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call((nodes[i % 2] as Running).url, 'POST', '/api/shorten', {
          json: { url: `https://example.com/page/${i}` },
          token: i % 4 === 3 && i < 28 ? bob : ann,
        }),
      ),
    );
    expect(made.every((answer) => answer.status === 201)).toBe(true);

    const viewers = mode === 'accounts' ? [ann, bob] : [undefined];
    const totals = mode === 'accounts' ? [23, 7] : [30];
    for (const [v, token] of viewers.entries()) {
      const whole = await list(a, token);
      expect(whole.json).toHaveLength(totals[v] as number);
      expect((await list(b, token)).json).toEqual(whole.json);
      for (const query of [
        '?limit=5&offset=0',
        '?limit=5&offset=5',
        '?limit=7&offset=20',
        '?limit=1000&offset=0',
        '?offset=3',
        '?limit=3&offset=40',
      ]) {
        const [onA, onB] = [await list(a, token, query), await list(b, token, query)];
        expect(onA.headers.get('x-total-count')).toBe(String(totals[v]));
        expect(onB.headers.get('x-total-count')).toBe(onA.headers.get('x-total-count'));
        expect(onB.headers.get('link')).toBe(onA.headers.get('link'));
        expect(onB.json).toEqual(onA.json);
      }
      // Walking the pages on alternate instances gives the whole list once, in order.
      const walked: unknown[] = [];
      let next: string | undefined = '/api/links?limit=4&offset=0';
      for (let page = 0; next !== undefined; page++) {
        const answer = await call((nodes[page % 2] as Running).url, 'GET', next, { token });
        walked.push(...answer.json);
        next = /<([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
      }
      expect(walked).toEqual(whole.json);
    }
  }, 30_000);
});

/** Open mode's link management token, given to every instance (--admin-token). */
const ADMIN_TOKEN = 'instances-admin-token-0123456789abcdef';

/** `status location` of a follow of `code` on `node` (`status error` when not sent on). */
async function follows(node: Running, code: string, method = 'GET'): Promise<string> {
  const answer = await call(node.url, method, `/${code}`);
  if (answer.status === 307) return `307 ${answer.headers.get('location')}`;
  return `${answer.status} ${answer.json?.error ?? ''}`.trim();
}

/** Waits at most a second (the interface's promise) for `node` to answer `expected` for `code`. */
async function withinASecond(node: Running, code: string, expected: string, after: string) {
  let last = '';
  await eventually(
    async () => {
      last = await follows(node, code);
      return last === expected;
    },
    () => `"${expected}" within 1 s after ${after}; the last answer was "${last}"`,
    1000,
  );
}

describe.each(MODES)('%s mode, links managed and expiring on two instances', (mode) => {
  /** Two instances on a fresh database; `token` manages links (the owner's, or the admin token). */
  async function pair() {
    const db = await freshDatabase();
    const args = ['--mode', mode, '--rate-limits', 'off'];
    if (mode === 'open') args.push('--admin-token', ADMIN_TOKEN);
    const [a, b] = (await instances(2, db, args)) as [Running, Running];
    const owner = await userOn(a, mode, 'manager@example.com');
    return { a, b, owner, token: mode === 'accounts' ? owner : ADMIN_TOKEN };
  }

  test('max_clicks is exact across instances: of 200 visitors at once, half on each, 10 are sent on', async () => {
    const { a, b, owner, token } = await pair();
    const made = await call(a.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/rush', custom_code: 'rush', max_clicks: 10 },
      token: owner,
    });
    expect(made.status).toBe(201);
    // Both instances have the link cached (a HEAD counts nothing) before the rush.
    expect(await follows(a, 'rush', 'HEAD')).toBe('307 https://example.com/rush');
    expect(await follows(b, 'rush', 'HEAD')).toBe('307 https://example.com/rush');

    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => follows(i % 2 === 0 ? a : b, 'rush')),
    );
    expect(tally(answers)).toEqual({ '307 https://example.com/rush': 10, '410 Link expired': 190 });
    expect(await clicksOn(a, owner)).toEqual({ rush: 10 });
    expect(await clicksOn(b, owner)).toEqual({ rush: 10 });
    const detail = await call(b.url, 'GET', '/api/links/rush', { token });
    expect(detail.json).toMatchObject({ clicks: 10, max_clicks: 10, status: 'expired' });
  }, 30_000);

  test('a change made on A is followed by B within a second, though B had the link cached', async () => {
    const { a, b, owner, token } = await pair();
    const made = await call(a.url, 'POST', '/api/shorten', {
      json: { url: 'https://example.com/old', custom_code: 'moving' },
      token: owner,
    });
    expect(made.status).toBe(201);
    expect(await follows(b, 'moving')).toBe('307 https://example.com/old');

    /** PATCHes the link on A, then waits (at most a second) for B to answer `expected`. */
    const changeOnA = async (body: Record<string, unknown>, expected: string) => {
      const changed = await call(a.url, 'PATCH', '/api/links/moving', { json: body, token });
      expect(changed.status).toBe(200);
      await withinASecond(b, 'moving', expected, `PATCH ${JSON.stringify(body)} on A`);
    };
    await changeOnA({ url: 'https://example.com/new' }, '307 https://example.com/new');
    await changeOnA({ password: 'let me in' }, '200');
    await changeOnA({ password: null }, '307 https://example.com/new');
    await changeOnA({ expires_at: '2020-01-01T00:00:00Z' }, '410 Link expired');
    await changeOnA({ expires_at: null }, '307 https://example.com/new');
    // Rules too: one that every visit from now on meets, then none.
    const always = [
      {
        url: 'https://example.com/ruled',
        conditions: [{ type: 'after', value: '2020-01-01T00:00:00Z' }],
      },
    ];
    await changeOnA({ rules: always }, '307 https://example.com/ruled');
    await changeOnA({ rules: [] }, '307 https://example.com/new');
  }, 30_000);

  test('a domain added on A is served by B within a second; a link on it changed on A is followed by B', async () => {
    const db = await freshDatabase();
    // The admin token manages domains in both modes.
    const args = ['--mode', mode, '--rate-limits', 'off', '--admin-token', ADMIN_TOKEN];
    const [a, b] = (await instances(2, db, args)) as [Running, Running];
    const owner = await userOn(a, mode, 'domains@example.com');
    const token = mode === 'accounts' ? owner : ADMIN_TOKEN;
    /** `code` as a visitor of `host` on `node` follows it. */
    const on = async (node: Running, host: string, code: string) => {
      const answer = await call(node.url, 'GET', `/${code}`, { headers: { host } });
      return answer.status === 307
        ? `307 ${answer.headers.get('location')}`
        : String(answer.status);
    };
    const viaHost = async (host: string, code: string, expected: string, after: string) => {
      let last = '';
      await eventually(
        async () => {
          last = await on(b, host, code);
          return last === expected;
        },
        () => `"${expected}" on B within 1 s after ${after}; the last answer was "${last}"`,
        1000,
      );
    };
    // B has found the code unknown on the domain it does not know yet (the default one).
    expect(await on(b, 'go.example.com', 'promo')).toBe('404');
    const added = await call(a.url, 'POST', '/api/domains', {
      json: { base_url: 'https://go.example.com' },
      token: ADMIN_TOKEN,
    });
    expect(added.status).toBe(201);
    for (const [url, domain] of [
      ['https://example.com/default', undefined],
      ['https://example.com/go', 'go.example.com'],
    ] as const) {
      const made = await call(a.url, 'POST', '/api/shorten', {
        json: { url, custom_code: 'promo', domain },
        token: owner,
      });
      expect(made.status).toBe(201);
    }
    await viaHost(
      'go.example.com',
      'promo',
      '307 https://example.com/go',
      'the domain and link on A',
    );
    expect(await on(b, 'localhost', 'promo')).toBe('307 https://example.com/default');
    const changed = await call(a.url, 'PATCH', '/api/links/promo?domain=go.example.com', {
      json: { url: 'https://example.com/go2' },
      token,
    });
    expect(changed.status).toBe(200);
    await viaHost('go.example.com', 'promo', '307 https://example.com/go2', 'the PATCH on A');
    expect(await on(b, 'localhost', 'promo')).toBe('307 https://example.com/default');
    const removed = await call(a.url, 'DELETE', '/api/domains/go.example.com?with_links=true', {
      token: ADMIN_TOKEN,
    });
    expect(removed.status).toBe(204);
    // Its Host is the default domain's again, where promo is another link.
    await viaHost('go.example.com', 'promo', '307 https://example.com/default', 'the removal on A');
  }, 30_000);

  test('a delete on A makes B answer 404 within a second, though B had the link cached', async () => {
    const { a, b, owner, token } = await pair();
    for (const code of ['doomed', 'kept']) {
      const made = await call(a.url, 'POST', '/api/shorten', {
        json: { url: `https://example.com/${code}`, custom_code: code },
        token: owner,
      });
      expect(made.status).toBe(201);
      expect(await follows(b, code)).toBe(`307 https://example.com/${code}`);
    }
    const removed = await call(a.url, 'DELETE', '/api/links/doomed', { token });
    expect(removed.status).toBe(204);
    await withinASecond(b, 'doomed', '404 Not found', 'the DELETE on A');
    expect((await call(b.url, 'GET', '/api/links/doomed', { token })).status).toBe(404);
    expect(await clicksOn(b, owner)).toEqual({ kept: 1 });
    expect(await follows(b, 'kept')).toBe('307 https://example.com/kept');
  }, 30_000);
});

describe('instances starting together on an empty database', () => {
  test('all three serve, the migrations are applied once, and tokens of one are good on all', async () => {
    const db = await freshDatabase();
    const nodes = await instances(3, db);
    for (const node of nodes) {
      const health = await call(node.url, 'GET', '/health');
      expect(`${health.status} ${health.text}`).toBe('200 "Healthy"');
    }

    const pg = inspect(db);
    const applied: { hash: string }[] =
      await pg`SELECT hash FROM drizzle.__drizzle_migrations ORDER BY id`;
    expect(applied.map((row) => row.hash)).toEqual(
      embeddedMigrations('postgres').map((migration) => migration.hash),
    );
    const secrets: unknown[] = await pg`SELECT key FROM settings WHERE key = 'jwt_secret'`;
    expect(secrets).toHaveLength(1);

    // A user registered on each instance; every token is accepted by every instance.
    const tokens = await Promise.all(
      nodes.map((node, i) => userOn(node, 'accounts', `user${i}@example.com`)),
    );
    for (const [i, token] of tokens.entries()) {
      const made = await call((nodes[i] as Running).url, 'POST', '/api/shorten', {
        json: { url: `https://example.com/user/${i}` },
        token,
      });
      expect(made.status).toBe(201);
      for (const node of nodes) {
        const listed = await call(node.url, 'GET', '/api/links', { token });
        expect(listed.status).toBe(200);
        expect(listed.json).toEqual([made.json]);
      }
    }
  }, 30_000);
});

describe('kurz migrate, and a URL with a password', () => {
  /** The database's URL with a password (trust auth lets any password in). */
  async function withPassword(): Promise<{ url: string; password: string; shown: string }> {
    const url = new URL(await freshDatabase());
    if (url.password === '') url.password = 'S3cret-pw-42';
    const shown = new URL(url);
    shown.password = '***';
    return { url: url.toString(), password: decodeURIComponent(url.password), shown: shown.href };
  }

  /** What `kurz migrate` made: the bookkeeping rows and every column and index. */
  async function schemaOf(pg: SQL) {
    return {
      migrations:
        await pg`SELECT id, hash, created_at FROM drizzle.__drizzle_migrations ORDER BY id`,
      columns: await pg`
        SELECT table_name, column_name, data_type, is_nullable, column_default
        FROM information_schema.columns WHERE table_schema = 'public'
        ORDER BY table_name, column_name`,
      indexes: await pg`
        SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`,
    };
  }

  test('migrate exits 0, a second run changes nothing, and no output shows the password', async () => {
    const { url, password, shown } = await withPassword();
    const first = await runKurz(['migrate', '--db', url]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`kurz: database ${shown} is up to date`);
    const pg = inspect(url);
    const before = await schemaOf(pg);
    expect(before.migrations).toHaveLength(embeddedMigrations('postgres').length);

    const second = await runKurz(['migrate', '--db', url]);
    expect(second.code).toBe(0);
    expect(await schemaOf(pg)).toEqual(before);
    for (const run of [first, second]) {
      expect(run.stdout + run.stderr).not.toContain(password);
    }
  }, 30_000);

  test('serve shows the URL with *** and never the password; nor does a failing migrate', async () => {
    const { url, password, shown } = await withPassword();
    const starts: [string[], Record<string, string>, string][] = [
      [['--db', url, '--mode', 'accounts'], {}, `(mode: accounts, db: ${shown})`],
      [['--db', url, '--mode', 'open'], {}, `(mode: open, db: ${shown})`],
      [[], { DATABASE_URL: url }, `(mode: accounts, db: ${shown})`],
    ];
    for (const [args, env, line] of starts) {
      const kurz = await startKurz(args, { env });
      expect(kurz.output()).toContain(line);
      expect((await call(kurz.url, 'GET', '/health')).status).toBe(200);
      expect(await kurz.stop()).toBe(0);
      expect(kurz.output()).not.toContain(password);
    }

    // A database that does not exist: migrate fails, and says so without the password.
    const missing = new URL(url);
    missing.pathname = '/kurz_no_such_database';
    const failed = await runKurz(['migrate', '--db', missing.toString()]);
    expect(failed.code).not.toBe(0);
    expect(failed.stdout + failed.stderr).not.toContain(password);
    expect(failed.stdout + failed.stderr).toContain('kurz_no_such_database');
  }, 30_000);

  test('waiting for a server that is not there, serve says so without the password, and stops on SIGTERM with 0', async () => {
    const { url, password } = await withPassword();
    const nowhere = new URL(url);
    nowhere.port = '1'; // nothing listens there
    const waiting = await startKurzUntil(['--db', nowhere.toString()], /cannot be reached/);
    const shown = new URL(nowhere);
    shown.password = '***';
    expect(waiting.output()).toContain(`kurz: database ${shown.href} cannot be reached`);
    const code = await waiting.stop('SIGTERM');
    expect(waiting.output()).not.toContain(password);
    expect(code).toBe(0);
  }, 30_000);
});

/** Starts `kurz serve` and resolves once its output matches `expected`. */
async function startKurzUntil(args: string[], expected: RegExp) {
  const proc = track(
    Bun.spawn([BINARY, 'serve', '--port', '0', ...args], {
      cwd: tempDir(),
      env: { PATH: process.env.PATH ?? '' },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  );
  let output = '';
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += decoder.decode(chunk);
  };
  const pumped = Promise.all([pump(proc.stdout), pump(proc.stderr)]);
  await eventually(
    () => expected.test(output) || proc.exitCode !== null,
    () => `output matching ${expected}, got: ${output}`,
  );
  return {
    output: () => output,
    async stop(signal: NodeJS.Signals) {
      proc.kill(signal);
      const code = await proc.exited;
      await pumped;
      return code;
    },
  };
}
