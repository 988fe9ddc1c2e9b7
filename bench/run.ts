// The kurz benchmark. Starts the compiled dist/kurz and, in the same run, a bare
// Bun.serve ceiling; both pinned to CPU 0, wrk pinned to CPU 1 (64 connections,
// interleaved rounds). Prints numbers and ratios; never part of the test run.
//
//   bun run build && bun bench/run.ts [redirect|create|million|domains|rules|flood|startup|rollup|all] [--rounds N] [--seconds S]
//   bun bench/run.ts redirect --before path/to/older/kurz   # that build too, in the same rounds
//   bun bench/run.ts redirect --binary path/to/kurz          # another build than dist/kurz
//
// kurz runs with its default rate limits, except where a section says it turns them off
// (one address making all the load would otherwise be refused, as it should be).

import { dlopen, FFIType, ptr } from 'bun:ffi';
import { Database } from 'bun:sqlite';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { attachCounts, ClickRollup } from '../src/store/sqlite/click-counts.ts';
import { openSqlite } from '../src/store/sqlite/sqlite-store.ts';
import type { Click, Link } from '../src/store/store.ts';
import {
  BINARY,
  clicksOf,
  createLink,
  fmt,
  KURZ_LINE,
  memoryOf,
  numberFlag,
  seededCode,
  seedLinks,
  serveArgs,
  startServer,
} from './harness.ts';
import { median, summarise, type WrkResult, wrk } from './wrk.ts';

const SERVER_CPU = 0;
const LOAD_CPU = 1;

const argv = process.argv.slice(2);
const ROUNDS = numberFlag(argv, '--rounds', 5);
const SECONDS = numberFlag(argv, '--seconds', 5);
const stringFlag = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : resolve(argv[i + 1] as string);
};
/** The build measured (default dist/kurz), and an older one to set beside it. */
const KURZ = stringFlag('--binary') ?? BINARY;
const BEFORE = stringFlag('--before');
const sections = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
const KNOWN = [
  'redirect',
  'https',
  'create',
  'million',
  'domains',
  'rules',
  'flood',
  'startup',
  'rollup',
  'all',
];
for (const s of sections)
  if (!KNOWN.includes(s)) throw new Error(`unknown section ${s}; use ${KNOWN.join(', ')}`);
const wanted = (name: string) =>
  sections.length === 0 || sections.includes('all') || sections.includes(name);
const work = mkdtempSync(join(tmpdir(), 'kurz-bench-'));

/** A server pinned to the server's CPU, in the work folder. */
function startPinned(command: string[], pattern: RegExp) {
  return startServer(['taskset', '-c', String(SERVER_CPU), ...command], pattern, { cwd: work });
}

function startKurz(db: string, mode = 'open', extra: string[] = [], binary = KURZ) {
  return startPinned([binary, ...serveArgs(db, mode, extra)], KURZ_LINE);
}

function startCeiling() {
  return startPinned(
    ['bun', join(import.meta.dir, 'ceiling.ts'), '0'],
    /listening on http:\/\/[^:]+:(\d+)/,
  );
}

const rssMiB = (pid: number) => memoryOf(pid).total;

function printRow(s: ReturnType<typeof summarise>) {
  console.log(
    `  ${s.name.padEnd(40)} ${fmt(s.rps).padStart(9)} req/s   p50 ${fmt(s.p50, 2).padStart(6)} ms   p99 ${fmt(s.p99, 2).padStart(6)} ms${Number.isNaN(s.cpu) ? '' : `   CPU ${fmt(s.cpu, 1).padStart(5)} µs/req`}${s.bad ? `   (${s.bad} errors/non-3xx)` : ''}`,
  );
}

function luaPaths(codes: string[], name: string): string {
  const list = join(work, `${name}.txt`);
  writeFileSync(list, codes.join('\n'));
  const script = join(work, `${name}.lua`);
  writeFileSync(
    script,
    `local paths = {}
for line in io.lines("${list}") do paths[#paths + 1] = "/" .. line end
local n = #paths
request = function() return wrk.format("GET", paths[math.random(n)]) end
`,
  );
  return script;
}

/** CPU time (user + system, clock ticks) of a process's threads other than its main one. */
function otherThreadsTicks(pid: number): number {
  let ticks = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ticks;
}

/** A kurz with one link, `bench`, clicked through wrk; its 307s received are counted. */
async function startRedirecting(name: string, binary: string) {
  const server = await startKurz(join(work, `${name}.db`), 'open', [], binary);
  const { short_code } = await createLink(server.url, {
    url: 'https://example.com/bench',
    custom_code: 'bench',
  });
  const url = `${server.url}/${short_code}`;
  // Warm-up: JIT, caches, WAL.
  const received = (await wrk({ url, seconds: 2, cpu: LOAD_CPU })).requests;
  return {
    server,
    url,
    code: short_code,
    received,
    runs: [] as WrkResult[],
    others: [] as number[],
  };
}

async function benchRedirect() {
  console.log(
    `\n# Redirect with durable click vs bare Bun.serve (${ROUNDS} interleaved rounds of ${SECONDS}s, 64 connections)`,
  );
  const ceiling = await startCeiling();
  await wrk({ url: `${ceiling.url}/bench`, seconds: 2, cpu: LOAD_CPU });
  const builds = [{ label: 'kurz GET /{code} (click committed)', binary: KURZ }];
  if (BEFORE) builds.push({ label: `before: ${BEFORE}`, binary: BEFORE });
  const servers = [];
  for (const [i, build] of builds.entries()) {
    servers.push({ ...build, ...(await startRedirecting(`redirect-${i}`, build.binary)) });
  }
  const base: WrkResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    base.push(
      await wrk({ url: `${ceiling.url}/bench`, seconds: SECONDS, cpu: LOAD_CPU, pid: ceiling.pid }),
    );
    // The builds in turn, the first one first in even rounds, last in odd ones.
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) {
      const ticks = otherThreadsTicks(s.server.pid);
      const r = await wrk({ url: s.url, seconds: SECONDS, cpu: LOAD_CPU, pid: s.server.pid });
      s.others.push(((otherThreadsTicks(s.server.pid) - ticks) * 10_000) / r.requests);
      s.received += r.requests;
      s.runs.push(r);
    }
  }
  const c = summarise('ceiling (Bun.serve + Map, 307)', base);
  printRow(c);
  const results = [];
  for (const s of servers) {
    const k = summarise(s.label, s.runs);
    printRow(k);
    results.push(k);
  }
  for (const [i, s] of servers.entries()) {
    const k = results[i] as ReturnType<typeof summarise>;
    console.log(
      `  ${i === 0 ? 'ratio kurz/ceiling' : 'ratio before/ceiling'}: throughput ${(k.rps / c.rps).toFixed(3)} (target ≥ 0.90), by CPU per request ${(c.cpu / k.cpu).toFixed(3)}; p99 ${(k.p99 / c.p99).toFixed(2)}x (target ≤ 1.5x)`,
    );
    console.log(
      `  CPU per request outside the event loop's thread (checkpoints, Bun's own threads): ${fmt(median(s.others), 2)} µs; RSS after load: ${fmt(rssMiB(s.server.pid), 1)} MiB (ceiling ${fmt(rssMiB(ceiling.pid), 1)} MiB)`,
    );
    const clicks = await clicksOf(s.server.url, s.code);
    // wrk does not count responses still in flight when it stops, so clicks may exceed
    // the 307s it read by at most the number of connections.
    const ok = clicks >= s.received && clicks - s.received <= 64 * (ROUNDS + 1);
    console.log(
      `  clicks recorded ${fmt(clicks)} vs 307s received ${fmt(s.received)}: ${ok ? 'OK' : 'MISMATCH'}`,
    );
    await s.server.stop();
  }
  await ceiling.stop();
}

/**
 * The redirect over HTTPS: dist/kurz with --tls-cert against the bare Bun.serve of
 * ceiling.ts over HTTPS with the same certificate, in the same interleaved rounds. wrk
 * keeps its connections, so the handshakes are few and the figure is the encrypted
 * request's cost.
 */
async function benchHttps() {
  console.log(
    `\n# Redirect over HTTPS (--tls-cert) vs bare Bun.serve over HTTPS, same certificate (${ROUNDS} interleaved rounds of ${SECONDS}s, 64 connections)`,
  );
  const [cert, key] = [join(work, 'bench-cert.pem'), join(work, 'bench-key.pem')];
  const made = Bun.spawnSync(
    ['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'].concat([
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ]),
  );
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  const ceiling = await startPinned(
    ['bun', join(import.meta.dir, 'ceiling.ts'), '0', cert, key],
    /listening on https:\/\/[^:]+:(\d+)/,
  );
  const kurz = await startPinned(
    [KURZ, 'serve', '--mode', 'open', '--host', '127.0.0.1', '--db', join(work, 'https.db')].concat(
      ['--tls-cert', cert, '--tls-key', key, '--https-port', '0', '--http-port', 'off'],
    ),
    /kurz listening on https:\/\/[^:]+:(\d+) /,
  );
  const kurzBase = `https://127.0.0.1:${kurz.port}`;
  const ceilingUrl = `https://127.0.0.1:${ceiling.port}/bench`;
  const insecure = { tls: { rejectUnauthorized: false } };
  const created = await fetch(`${kurzBase}/api/shorten`, {
    method: 'POST',
    body: JSON.stringify({ url: 'https://example.com/bench', custom_code: 'bench' }),
    ...insecure,
  });
  if (created.status !== 201) throw new Error(`create failed: ${created.status}`);
  const kurzUrl = `${kurzBase}/bench`;
  let received = 0;
  await wrk({ url: ceilingUrl, seconds: 2, cpu: LOAD_CPU });
  received += (await wrk({ url: kurzUrl, seconds: 2, cpu: LOAD_CPU })).requests;
  const base: WrkResult[] = [];
  const runs: WrkResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    base.push(await wrk({ url: ceilingUrl, seconds: SECONDS, cpu: LOAD_CPU, pid: ceiling.pid }));
    const r = await wrk({ url: kurzUrl, seconds: SECONDS, cpu: LOAD_CPU, pid: kurz.pid });
    received += r.requests;
    runs.push(r);
  }
  const c = summarise('ceiling over HTTPS (Bun.serve + Map)', base);
  const k = summarise('kurz GET /{code} over HTTPS', runs);
  printRow(c);
  printRow(k);
  console.log(
    `  ratio kurz/ceiling over HTTPS: throughput ${(k.rps / c.rps).toFixed(3)}, by CPU per request ${(c.cpu / k.cpu).toFixed(3)}; p99 ${(k.p99 / c.p99).toFixed(2)}x`,
  );
  const links = (await (await fetch(`${kurzBase}/api/links`, insecure)).json()) as {
    short_code: string;
    clicks: number;
  }[];
  const clicks = links.find((l) => l.short_code === 'bench')?.clicks ?? -1;
  // As for the plain redirect: clicks may exceed the 307s wrk read by the connections.
  const ok = clicks >= received && clicks - received <= 64 * (ROUNDS + 1);
  console.log(
    `  clicks recorded ${fmt(clicks)} vs 307s received ${fmt(received)}: ${ok ? 'OK' : 'MISMATCH'}`,
  );
  await kurz.stop();
  await ceiling.stop();
}

async function benchCreate() {
  console.log(
    `\n# Create in open mode (POST /api/shorten, ${ROUNDS} rounds of ${SECONDS}s; --rate-limits off, since one address makes every create)`,
  );
  const kurz = await startKurz(join(work, 'create.db'), 'open', ['--rate-limits', 'off']);
  const script = join(work, 'create.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"
wrk.body = '{"url": "https://example.com/a/fairly/typical/path?utm_source=bench"}'
wrk.headers["Content-Type"] = "application/json"
`,
  );
  await wrk({ url: `${kurz.url}/api/shorten`, seconds: 2, cpu: LOAD_CPU, script });
  const runs: WrkResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    runs.push(
      await wrk({
        url: `${kurz.url}/api/shorten`,
        seconds: SECONDS,
        cpu: LOAD_CPU,
        script,
        pid: kurz.pid,
      }),
    );
  }
  const s = summarise('kurz POST /api/shorten', runs);
  printRow(s);
  const total = Number((await fetch(`${kurz.url}/api/links?limit=1`)).headers.get('x-total-count'));
  console.log(
    `  links created ${fmt(s.rps)}/s (target ≥ 10,000); ${fmt(total)} links in the database`,
  );
  await kurz.stop();
}

async function benchMillion() {
  const N = 1_000_000;
  console.log(`\n# ${fmt(N)} links (${ROUNDS} rounds of ${SECONDS}s each)`);
  const t0 = performance.now();
  const codes = seedLinks(join(work, 'million.db'), N);
  console.log(`  seeded ${fmt(N)} links in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  // Hot sets spread evenly over the whole table, picked at random by wrk: 1,000 codes
  // (a working set that fits CPU caches) and 50,000 (one that does not).
  const hotSet = (size: number) =>
    Array.from({ length: size }, (_, i) => codes[Math.floor((i * N) / size)] as string);
  const scripts = {
    small: luaPaths(hotSet(1_000), 'hot1k'),
    large: luaPaths(hotSet(50_000), 'hot50k'),
  };

  const one = await startKurz(join(work, 'one.db'));
  const { short_code } = await createLink(one.url, {
    url: 'https://example.com/bench',
    custom_code: 'bench',
  });
  const oneScript = luaPaths([short_code], 'one');
  await wrk({ url: one.url, seconds: 2, cpu: LOAD_CPU, script: oneScript });

  // Each working set on its own server (copies of one database), so that one's cache
  // and heap do not weigh on the other's figures.
  copyFileSync(join(work, 'million.db'), join(work, 'million-b.db'));
  const big = await startKurz(join(work, 'million.db'));
  const wide = await startKurz(join(work, 'million-b.db'));
  const cold = await wrk({ url: wide.url, seconds: SECONDS, cpu: LOAD_CPU, script: scripts.large });
  await wrk({ url: big.url, seconds: 2, cpu: LOAD_CPU, script: scripts.small });
  const runs: Record<'one' | 'small' | 'large', WrkResult[]> = { one: [], small: [], large: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.one.push(
      await wrk({ url: one.url, seconds: SECONDS, cpu: LOAD_CPU, script: oneScript, pid: one.pid }),
    );
    runs.small.push(
      await wrk({
        url: big.url,
        seconds: SECONDS,
        cpu: LOAD_CPU,
        script: scripts.small,
        pid: big.pid,
      }),
    );
    runs.large.push(
      await wrk({
        url: wide.url,
        seconds: SECONDS,
        cpu: LOAD_CPU,
        script: scripts.large,
        pid: wide.pid,
      }),
    );
  }
  const o = summarise('1 link (same wrk script)', runs.one);
  const s = summarise('1M links, 1k hot codes, warm', runs.small);
  const l = summarise('1M links, 50k hot codes, warm', runs.large);
  printRow(o);
  printRow(summarise(`1M links, 50k hot codes, cold (first ${SECONDS}s)`, [cold]));
  printRow(s);
  printRow(l);
  console.log(
    `  ratio warm / 1 link: 1k hot ${(s.rps / o.rps).toFixed(3)} (by CPU ${(o.cpu / s.cpu).toFixed(3)}), 50k hot ${(l.rps / o.rps).toFixed(3)} (by CPU ${(o.cpu / l.cpu).toFixed(3)}) (target ≥ 0.90)`,
  );
  console.log(
    `  RSS: 1k hot ${fmt(rssMiB(big.pid), 1)} MiB, 50k hot ${fmt(rssMiB(wide.pid), 1)} MiB`,
  );
  await wide.stop();

  const listRuns: WrkResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    listRuns.push(
      await wrk({
        url: `${big.url}/api/links?limit=100`,
        seconds: SECONDS,
        cpu: LOAD_CPU,
        connections: 8,
      }),
    );
  }
  printRow(summarise('GET /api/links?limit=100, 1M links', listRuns));
  const deep = await wrk({
    url: `${big.url}/api/links?limit=100&offset=500000`,
    seconds: SECONDS,
    cpu: LOAD_CPU,
    connections: 8,
  });
  printRow(summarise('  … at offset=500000', [deep]));
  await big.stop();
  await one.stop();
}

/**
 * ROUNDS rounds of wrk against one server with each of two scripts, the order swapped
 * every round so that drift hits both alike; each script's runs.
 */
async function interleaved<K extends string>(
  server: { url: string; pid: number },
  scripts: Record<K, string>,
): Promise<Record<K, WrkResult[]>> {
  const [a, b] = Object.keys(scripts) as [K, K];
  const runs = { [a]: [], [b]: [] } as unknown as Record<K, WrkResult[]>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const which of round % 2 === 0 ? [a, b] : [b, a]) {
      runs[which].push(
        await wrk({
          url: server.url,
          seconds: SECONDS,
          cpu: LOAD_CPU,
          script: scripts[which],
          pid: server.pid,
        }),
      );
    }
  }
  return runs;
}

/**
 * Several short domains: 10 domains (the default one and 9 added) of 100,000 links each,
 * the same codes on every domain. One server; wrk asks for 1,000 hot codes either on the
 * default domain (Host: localhost) or on a domain picked at random per request (Host:
 * d1.example … d9.example, or localhost): a redirect on any domain should cost what one on
 * the default domain does.
 */
async function benchDomains() {
  const DOMAINS = 10;
  const PER_DOMAIN = 100_000;
  console.log(
    `\n# ${DOMAINS} domains x ${fmt(PER_DOMAIN)} links (${ROUNDS} interleaved rounds of ${SECONDS}s each)`,
  );
  const db = join(work, 'domains.db');
  const t0 = performance.now();
  const codes = seedDomainLinks(db, DOMAINS - 1, PER_DOMAIN);
  console.log(
    `  seeded ${fmt(DOMAINS * PER_DOMAIN)} links in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );
  const hot = Array.from(
    { length: 1_000 },
    (_, i) => codes[Math.floor((i * PER_DOMAIN) / 1_000)] as string,
  );
  const hosts = [
    'localhost',
    ...Array.from({ length: DOMAINS - 1 }, (_, i) => `d${i + 1}.example`),
  ];
  const script = (name: string, pool: string[]) => {
    const list = join(work, `${name}.txt`);
    writeFileSync(list, hot.join('\n'));
    const path = join(work, `${name}.lua`);
    writeFileSync(
      path,
      `local paths = {}
for line in io.lines("${list}") do paths[#paths + 1] = "/" .. line end
local hosts = { ${pool.map((h) => `"${h}"`).join(', ')} }
local n, m = #paths, #hosts
request = function()
  return wrk.format("GET", paths[math.random(n)], { Host = hosts[math.random(m)] })
end
`,
    );
    return path;
  };
  const scripts = { one: script('default-host', ['localhost']), any: script('any-host', hosts) };
  const server = await startKurz(db);
  await wrk({ url: server.url, seconds: 2, cpu: LOAD_CPU, script: scripts.any });
  const runs = await interleaved(server, scripts);
  const one = summarise('default domain (Host: localhost)', runs.one);
  const any = summarise(`any of ${DOMAINS} domains (Host at random)`, runs.any);
  printRow(one);
  printRow(any);
  console.log(
    `  ratio any domain / default domain: throughput ${(any.rps / one.rps).toFixed(3)}, by CPU per request ${(one.cpu / any.cpu).toFixed(3)} (target: within noise, ≥ 0.95)`,
  );
  await server.stop();
}

/**
 * Redirect rules on the hot path: one server, a plain link and a link of 10 rules of 3
 * conditions each, the visitor meeting the first two conditions of every rule and not
 * the third (a query parameter it lacks), so all 30 are checked and the visit falls
 * through to the link's target. wrk sends a phone's User-Agent and Accept-Language to
 * both, in interleaved rounds; the aim is at least 0.8 of the plain link's rate.
 */
async function benchRules() {
  console.log(
    `\n# A link with 10 rules of 3 conditions vs a plain link (${ROUNDS} interleaved rounds of ${SECONDS}s each)`,
  );
  const server = await startKurz(join(work, 'rules.db'));
  await createLink(server.url, { url: 'https://example.com/bench', custom_code: 'plain' });
  const rules = Array.from({ length: 10 }, (_, i) => ({
    url: `https://example.com/rule-${i}`,
    conditions: [
      { type: 'device', value: 'mobile' },
      { type: 'language', value: 'en' },
      { type: 'query', name: `campaign${i}` },
    ],
  }));
  await createLink(server.url, { url: 'https://example.com/bench', custom_code: 'ruled', rules });
  const script = (code: string) => {
    const path = join(work, `rules-${code}.lua`);
    writeFileSync(
      path,
      `local headers = {
  ["User-Agent"] = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  ["Accept-Language"] = "en-GB,en;q=0.9,de;q=0.5"
}
request = function() return wrk.format("GET", "/${code}?ref=mail", headers) end
`,
    );
    return path;
  };
  const scripts = { plain: script('plain'), ruled: script('ruled') };
  for (const which of ['plain', 'ruled'] as const) {
    await wrk({ url: server.url, seconds: 2, cpu: LOAD_CPU, script: scripts[which] });
  }
  const runs = await interleaved(server, scripts);
  const plain = summarise('plain link', runs.plain);
  const ruled = summarise('10 rules x 3 conditions, none met', runs.ruled);
  printRow(plain);
  printRow(ruled);
  console.log(
    `  ratio ruled / plain: throughput ${(ruled.rps / plain.rps).toFixed(3)}, by CPU per request ${(plain.cpu / ruled.cpu).toFixed(3)} (target ≥ 0.8)`,
  );
  await server.stop();
}

/** `added` domains besides the default one, each with `perDomain` links of the same codes. */
function seedDomainLinks(db: string, added: number, perDomain: number): string[] {
  const migrate = Bun.spawnSync([KURZ, 'migrate', '--db', db]);
  if (migrate.exitCode !== 0) throw new Error(migrate.stderr.toString());
  const sqlite = new Database(db);
  sqlite.run('PRAGMA synchronous = OFF');
  const codes = Array.from({ length: perDomain }, (_, i) => seededCode(i));
  const domain = sqlite.prepare(
    'INSERT INTO domains (id, base_url, host, created_at) VALUES (?, ?, ?, 0)',
  );
  const insert = sqlite.prepare(
    'INSERT INTO links (domain_id, original_url, short_code, created_at) VALUES (?, ?, ?, ?)',
  );
  sqlite.transaction(() => {
    for (let d = 1; d <= added; d++) domain.run(d, `http://d${d}.example`, `d${d}.example`);
    for (let d = 0; d <= added; d++) {
      for (let i = 0; i < perDomain; i++) {
        insert.run(d, `https://example.com/${d}/${i}`, codes[i] as string, d * perDomain + i);
      }
    }
  })();
  sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)');
  sqlite.close();
  return codes;
}

/**
 * Redirect throughput while a password-guessing script floods /api/auth/login from one
 * address, with rate limits on (the default) and off: with them, the flood is refused
 * before any argon2 work, so redirects keep their pace.
 */
async function benchFlood() {
  console.log(
    `\n# Redirects during a login flood (${ROUNDS} rounds of ${SECONDS}s; flood: wrong passwords from one address, 16 connections, up to 1,600/s)`,
  );
  const script = join(work, 'login.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"
wrk.body = '{"email": "victim@example.com", "password": "wrong guess 123"}'
wrk.headers["Content-Type"] = "application/json"
-- A script at a steady pace, as a guesser runs: each connection waits 10 ms between
-- attempts (at most 1,600 a second in all), so both runs face the same flood.
function delay() return 10 end
`,
  );
  for (const [label, extra] of [
    ['limits on (default)', []],
    ['limits off', ['--rate-limits', 'off']],
  ] as const) {
    const kurz = await startKurz(join(work, `flood-${extra.length}.db`), 'accounts', [...extra]);
    const token = (await (
      await fetch(`${kurz.url}/api/auth/register`, {
        method: 'POST',
        body: JSON.stringify({ email: 'victim@example.com', password: 'correct horse 42' }),
      })
    ).json()) as { token: string };
    const r = await fetch(`${kurz.url}/api/shorten`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.token}` },
      body: JSON.stringify({ url: 'https://example.com/flood', custom_code: 'flood' }),
    });
    if (r.status !== 201) throw new Error(`create failed: ${r.status}`);
    await wrk({ url: `${kurz.url}/flood`, seconds: 2, cpu: LOAD_CPU });
    const quiet: WrkResult[] = [];
    const flooded: WrkResult[] = [];
    let loginAnswers = 0;
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(await wrk({ url: `${kurz.url}/flood`, seconds: SECONDS, cpu: LOAD_CPU }));
      const flood = wrk({
        url: `${kurz.url}/api/auth/login`,
        seconds: SECONDS,
        cpu: LOAD_CPU,
        connections: 16,
        script,
      });
      flooded.push(await wrk({ url: `${kurz.url}/flood`, seconds: SECONDS, cpu: LOAD_CPU }));
      loginAnswers += (await flood).requests;
    }
    const q = summarise(`${label}: redirects alone`, quiet);
    const f = summarise(`${label}: redirects during the flood`, flooded);
    printRow(q);
    printRow(f);
    console.log(
      `  ${label}: throughput kept ${(f.rps / q.rps).toFixed(3)}; ${fmt(loginAnswers)} login attempts answered`,
    );
    await kurz.stop();
  }
}

async function benchStartup() {
  const RUNS = 20;
  console.log(`\n# Exec to first answered request (GET /health), median of ${RUNS}`);
  // The request goes out as soon as kurz prints its listening line: a client polling the
  // port in a tight loop would steal the CPU the starting server needs, and time itself.
  for (const [label, fresh] of [
    ['existing database', false],
    ['new database', true],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const db = join(work, fresh ? `fresh-${i}.db` : 'startup.db');
      const t0 = performance.now();
      const proc = Bun.spawn([BINARY, ...serveArgs(db)], {
        stdout: 'pipe',
        stderr: 'ignore',
        cwd: work,
      });
      const reader = proc.stdout.getReader();
      let out = '';
      while (!KURZ_LINE.test(out)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`kurz exited: ${out}`);
        out += new TextDecoder().decode(value);
      }
      const response = await fetch(`http://127.0.0.1:${KURZ_LINE.exec(out)?.[1]}/health`);
      if (response.status !== 200) throw new Error(`health: ${response.status}`);
      times.push(performance.now() - t0);
      proc.kill('SIGTERM');
      await proc.exited;
    }
    console.log(
      `  ${label.padEnd(18)} median ${fmt(median(times), 1)} ms, max ${fmt(Math.max(...times), 1)} ms (target ≤ 50 ms)`,
    );
  }
}

/**
 * CPU time of the calling thread (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), in ms: on a
 * shared machine the wall time of a short slice includes whatever ran instead of it.
 */
const threadCpuMs = (() => {
  const { symbols } = dlopen('libc.so.6', {
    clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
  });
  const time = new BigInt64Array(2);
  const at = ptr(time);
  return () => {
    symbols.clock_gettime(3, at);
    return Number(time[0]) * 1000 + Number(time[1]) / 1e6;
  };
})();

/**
 * The click rollup's slices, timed in this process (from the source tree, not the
 * binary): a second of clicks at ~90,000/s, committed in batches of 45 through the store
 * as the click writer commits them, then folded the way kurz folds them (one slice per
 * event-loop turn: the longest slice is the longest the event loop waits for the
 * rollup), and the way it did before (one transaction reading the second's clicks back
 * from the log: what the maintenance thread held the CPU for, in one burst).
 */
async function benchRollup() {
  console.log(
    '\n# Click rollup: one second of clicks (90,000 in batches of 45); CPU time of the thread',
  );
  const clickOf = (id: number): Click => ({
    linkId: id,
    source: null,
    querySource: null,
    referrer: 'https://referrer.example/page',
    address: null,
    country: null,
    limited: false,
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) bench',
    createdAt: Date.now(),
  });
  for (const links of [1, 1_000, 50_000]) {
    const path = join(work, `rollup-${links}.db`);
    const store = openSqlite({ path, durability: 'normal', rollup: { intervalMs: 0 } });
    const made = await store.createLinks(
      Array.from({ length: links }, (_, i) => ({
        userId: null,
        originalUrl: `https://example.com/${i}`,
        shortCode: `r${i}`,
        source: null,
        createdAt: i,
      })),
    );
    const ids = made.map((l) => (l as Link).id);
    const aSecondOfClicks = async () => {
      for (let b = 0; b < 2_000; b++) {
        await store.recordClicks(
          Array.from({ length: 45 }, () => clickOf(ids[(Math.random() * links) | 0] as number)),
        );
      }
    };
    const timed = (rollup: ClickRollup) => {
      const cpu: number[] = [];
      let wall = 0;
      for (;;) {
        const t0 = performance.now();
        const c0 = threadCpuMs();
        const more = rollup.step();
        cpu.push(threadCpuMs() - c0);
        wall = Math.max(wall, performance.now() - t0);
        if (!more) return { cpu, wall };
      }
    };
    const print = (how: string, { cpu, wall }: { cpu: number[]; wall: number }) => {
      const sorted = [...cpu].sort((a, b) => a - b);
      const at = (q: number) =>
        sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
      const all = cpu.reduce((a, b) => a + b, 0);
      console.log(
        `  ${fmt(links).padStart(6)} links, ${how.padEnd(32)} ${fmt(cpu.length).padStart(3)} slice(s), ${fmt(all, 1).padStart(5)} ms in all; longest ${fmt(at(1), 2)} ms, p99 ${fmt(at(0.99), 2)}, median ${fmt(at(0.5), 3)} (wall: longest ${fmt(wall, 2)} ms)`,
      );
    };
    await aSecondOfClicks();
    timed(store.rollup); // warm-up
    await aSecondOfClicks();
    print('tallied, in slices (now):', timed(store.rollup));
    await aSecondOfClicks();
    // A rollup that has seen no commit reads the whole second back from the log.
    const counts = new Database(':memory:');
    attachCounts(counts, `${path}-counts`);
    const before = new ClickRollup(store.sqlite, counts, { sliceMs: Number.POSITIVE_INFINITY });
    print('from the log, in one go (before):', timed(before));
    before.close();
    store.rollup.cancel();
    await store.close();
  }
}

console.log(
  `kurz benchmark — ${new Date().toISOString()} — ${require('node:os').cpus()[0]?.model}, ${require('node:os').cpus().length} CPUs, Bun ${Bun.version}`,
);
if (wanted('redirect')) await benchRedirect();
if (wanted('https')) await benchHttps();
if (wanted('create')) await benchCreate();
if (wanted('million')) await benchMillion();
if (wanted('domains')) await benchDomains();
if (wanted('rules')) await benchRules();
if (wanted('flood')) await benchFlood();
if (wanted('startup')) await benchStartup();
if (wanted('rollup')) await benchRollup();
rmSync(work, { recursive: true, force: true });
