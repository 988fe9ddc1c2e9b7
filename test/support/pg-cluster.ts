// Throwaway PostgreSQL clusters, made with Debian's server binaries (initdb, pg_ctl in
// /usr/lib/postgresql/*/bin): trust auth, 127.0.0.1 on a free port, the socket in the
// cluster's own folder. Tests that stop and start a database use one of their own
// (never the machine's service); scripts/ensure-postgres.sh starts one for a run that
// finds no server, through the command line at the end of this file.

import { chownSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { atCleanUp, tempDir } from './cleanup.ts';

const BINARIES_ROOT = '/usr/lib/postgresql';
/** The OS user that owns and runs clusters when we are root (PostgreSQL refuses to run as root). */
const CLUSTER_USER = 'postgres';

/** The newest installed server's bin folder (with initdb and pg_ctl), or undefined. */
export function serverBinaries(): string | undefined {
  if (!existsSync(BINARIES_ROOT)) return undefined;
  const versions = readdirSync(BINARIES_ROOT)
    .filter((version) => existsSync(join(BINARIES_ROOT, version, 'bin', 'initdb')))
    .filter((version) => existsSync(join(BINARIES_ROOT, version, 'bin', 'pg_ctl')))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  return versions[0] === undefined ? undefined : join(BINARIES_ROOT, versions[0], 'bin');
}

/** Whether a server answers at `url` within a few seconds. */
export async function reachable(url: string): Promise<boolean> {
  const client = new SQL(url, { max: 1, connectionTimeout: 3 });
  try {
    await client`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await client.close({ timeout: 0 }).catch(() => {});
  }
}

/** uid and gid of an OS user, from /etc/passwd. */
function osUser(name: string): { uid: number; gid: number } {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(
    `there is no "${name}" user to run PostgreSQL as (the postgresql package makes it)`,
  );
}

/** The command, run as CLUSTER_USER when we are root, as ourselves otherwise. */
function asClusterUser(command: string[]): string[] {
  if (process.getuid?.() !== 0) return command;
  if (Bun.which('runuser') !== null) return ['runuser', '-u', CLUSTER_USER, '--', ...command];
  const quoted = command.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  return ['su', CLUSTER_USER, '-s', '/bin/sh', '-c', quoted];
}

async function exec(command: string[]): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn(asClusterUser(command), {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    // pg_ctl's server inherits this; a folder the cluster user can enter.
    cwd: '/',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, output: stdout + stderr };
}

/** A port nothing listens on at this moment. */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export type StopMode = 'smart' | 'fast' | 'immediate';

export class PgCluster {
  private up = false;
  private started = false;

  private constructor(
    /** The cluster's folder: data/, server.log and the socket. */
    readonly dir: string,
    private readonly bin: string,
    private port: number,
  ) {}

  /**
   * initdb in `dir` (made by the caller, empty); not started yet. `dir` must be reachable
   * by the postgres user when we are root: its parents must let others through (o+x).
   */
  static async create(dir: string): Promise<PgCluster> {
    const bin = serverBinaries();
    if (bin === undefined) {
      throw new Error(
        `no PostgreSQL server binaries in ${BINARIES_ROOT}/*/bin: install Debian's postgresql package`,
      );
    }
    if (process.getuid?.() === 0) {
      const { uid, gid } = osUser(CLUSTER_USER);
      chownSync(dir, uid, gid);
      const { code } = await exec(['test', '-w', dir]);
      if (code !== 0) {
        throw new Error(
          `${dir} is not writable by the ${CLUSTER_USER} user: a parent folder keeps it out`,
        );
      }
    }
    const data = join(dir, 'data');
    const init = await exec([
      join(bin, 'initdb'),
      '--pgdata',
      data,
      '--username',
      'postgres',
      '--auth',
      'trust',
      '--encoding',
      'UTF8',
      '--locale',
      'C',
      // A throwaway cluster: nothing it holds must survive a crash of the machine.
      '--no-sync',
    ]);
    if (init.code !== 0) throw new Error(`initdb failed:\n${init.output}`);
    return new PgCluster(dir, bin, freePort());
  }

  /** The cluster at `dir` made by create() earlier, by this or another process. */
  static existing(dir: string): PgCluster {
    const bin = serverBinaries();
    if (bin === undefined) throw new Error(`no PostgreSQL server binaries in ${BINARIES_ROOT}`);
    return new PgCluster(dir, bin, 0);
  }

  /** Whether start() was the last of start() and stop(). */
  get running(): boolean {
    return this.up;
  }

  /** The `postgres` database as the `postgres` user, over TCP. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /**
   * Starts the server and waits until it accepts connections; again on the same port
   * after a stop. A port taken since it was picked is replaced on the first start only
   * (a restart must keep its address).
   */
  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const result = await exec([
        join(this.bin, 'pg_ctl'),
        'start',
        '--pgdata',
        join(this.dir, 'data'),
        '--log',
        join(this.dir, 'server.log'),
        '--wait',
        '--timeout',
        '30',
        '--options',
        [
          `-c port=${this.port}`,
          "-c listen_addresses='127.0.0.1'",
          `-c unix_socket_directories='${this.dir}'`,
          // Test data: written to the OS, never forced to disk. (Commits still reach the
          // WAL before they are acknowledged, so a stop -m immediate loses none.)
          '-c fsync=off',
          '-c full_page_writes=off',
          '-c max_connections=200',
        ].join(' '),
      ]);
      if (result.code === 0) {
        this.up = true;
        this.started = true;
        return;
      }
      const log = existsSync(join(this.dir, 'server.log'))
        ? readFileSync(join(this.dir, 'server.log'), 'utf8')
        : '';
      if (attempt < 3 && !this.started && /could not bind|in use/i.test(log)) {
        this.port = freePort();
        continue;
      }
      throw new Error(`pg_ctl start failed:\n${result.output}\n${log}`);
    }
  }

  /** Stops the server: `fast` ends sessions cleanly, `immediate` kills them (a crash). */
  async stop(mode: StopMode = 'fast'): Promise<void> {
    const result = await exec([
      join(this.bin, 'pg_ctl'),
      'stop',
      '--pgdata',
      join(this.dir, 'data'),
      '--mode',
      mode,
      '--wait',
    ]);
    // Status 1 with "is the server running?" means there was nothing to stop.
    if (result.code !== 0 && !/server running/i.test(result.output)) {
      throw new Error(`pg_ctl stop failed:\n${result.output}`);
    }
    this.up = false;
  }

  /** The same as stop('immediate'), synchronously, for process exit. */
  stopNow(): void {
    if (!this.up) return;
    Bun.spawnSync(
      asClusterUser([
        join(this.bin, 'pg_ctl'),
        'stop',
        '--pgdata',
        join(this.dir, 'data'),
        '--mode',
        'immediate',
      ]),
      { cwd: '/', stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' },
    );
    this.up = false;
  }

  /** Stops the server if it runs, and removes the folder. */
  async remove(): Promise<void> {
    if (this.up || existsSync(join(this.dir, 'data', 'postmaster.pid'))) {
      await this.stop('immediate');
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A started cluster of a test's own, in a folder of the run: stopped and removed when
 * the run ends (or the process exits), whatever the test did to it.
 */
export async function throwawayCluster(): Promise<PgCluster> {
  const cluster = await PgCluster.create(tempDir('kurz-pg-'));
  atCleanUp(() => cluster.remove());
  process.on('exit', () => cluster.stopNow());
  await cluster.start();
  return cluster;
}

/**
 * Command line for scripts/ensure-postgres.sh:
 *   bun test/support/pg-cluster.ts binaries     prints the bin folder, or fails
 *   bun test/support/pg-cluster.ts reachable URL  status 0 when a server answers there
 *   bun test/support/pg-cluster.ts start DIR    initdb in DIR (empty), start, print its URL
 *   bun test/support/pg-cluster.ts remove DIR   stop the cluster in DIR and remove DIR
 *   bun test/support/pg-cluster.ts createdb URL NAME  make database NAME on the server
 *                                              at URL, print its URL
 *   bun test/support/pg-cluster.ts dropdb URL NAME    drop it (closing its connections)
 */
async function main(args: string[]): Promise<number> {
  const [command, argument, name] = args;
  switch (command) {
    case 'createdb':
    case 'dropdb': {
      if (argument === undefined || name === undefined || !/^[a-z_][a-z0-9_]*$/.test(name)) break;
      const client = new SQL(argument, { max: 1, connectionTimeout: 5 });
      try {
        if (command === 'createdb') {
          await client.unsafe(`CREATE DATABASE ${name}`);
          const url = new URL(argument);
          url.pathname = `/${name}`;
          console.log(url.toString());
        } else {
          await client.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        }
      } finally {
        await client.close({ timeout: 0 });
      }
      return 0;
    }
    case 'binaries': {
      const bin = serverBinaries();
      if (bin !== undefined) console.log(bin);
      return bin === undefined ? 1 : 0;
    }
    case 'reachable':
      return argument !== undefined && (await reachable(argument)) ? 0 : 1;
    case 'start': {
      if (argument === undefined) break;
      const cluster = await PgCluster.create(argument);
      await cluster.start();
      console.log(cluster.url);
      return 0;
    }
    case 'remove':
      if (argument === undefined) break;
      await PgCluster.existing(argument).remove();
      return 0;
  }
  console.error(
    'usage: bun test/support/pg-cluster.ts binaries | reachable URL | start DIR | remove DIR | createdb URL NAME | dropdb URL NAME',
  );
  return 2;
}

if (import.meta.main) {
  process.exit(await main(process.argv.slice(2)));
}
