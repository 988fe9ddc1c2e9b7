// `kurz copy` on a PostgreSQL database: its snapshot is one REPEATABLE READ transaction,
// its writes one statement per chunk (the rows go in as arrays, unnest), and the click
// counts (link_clicks) are built from the copied clicks once they are all in.

import type { SQL } from 'bun';
import { describeDatabase } from '../store/database-url.ts';
import type { PostgresStore } from '../store/postgres/postgres-store.ts';
import {
  COLUMNS,
  type Contents,
  type CopySide,
  HEALTH_PROBE_KEY,
  type HighWater,
  type LinkCount,
  type Row,
  type Snapshot,
  TABLES,
  type Table,
  type Target,
} from './tables.ts';

/** Link counts read at a time by linkCounts(). */
const COUNTS_CHUNK = 5000;

/** What each column is read as: bigints as float8, so they come as numbers, not strings. */
const READ: Record<Table, string> = {
  users: 'id, email, password_hash, created_at::float8',
  links: 'id, user_id, original_url, short_code, source, created_at::float8',
  clicks: 'id::float8, link_id, source, query_source, referrer, user_agent, created_at::float8',
};

/** The array type each column goes in as. */
const TYPES: Record<Table, readonly string[]> = {
  users: ['int', 'text', 'text', 'bigint'],
  links: ['int', 'int', 'text', 'text', 'text', 'bigint'],
  clicks: ['bigint', 'int', 'text', 'text', 'text', 'text', 'bigint'],
};

function insertStatement(table: Table): string {
  const columns = COLUMNS[table].join(', ');
  const arrays = TYPES[table].map((type, i) => `$${i + 1}::${type}[]`).join(', ');
  return `INSERT INTO ${table} (${columns}) SELECT * FROM unnest(${arrays})`;
}

/** The rows as one array per column, as unnest takes them. */
function byColumn(rows: readonly Row[], width: number): Row[] {
  const columns: Row[] = Array.from({ length: width }, () => new Array(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Row;
    for (let c = 0; c < width; c++) (columns[c] as Row)[r] = row[c] as Row[number];
  }
  return columns;
}

export class PostgresSide implements CopySide {
  readonly label: string;
  readonly target: Target;
  private readonly client: SQL;

  constructor(
    private readonly store: PostgresStore,
    url: string,
  ) {
    this.client = store.client;
    this.label = `PostgreSQL ${describeDatabase(url)}`;
    const client = this.client;
    this.target = {
      async resetDerived() {
        await client.begin(async (tx) => {
          await tx`DELETE FROM link_totals`;
          await tx`DELETE FROM link_clicks`;
        });
      },
      async insert(table, rows) {
        await client.unsafe(insertStatement(table), byColumn(rows, COLUMNS[table].length));
      },
      // One row per link, in shard 0: one aggregate over the copied log. Counting each
      // chunk's clicks as it went in cost an upsert per link per chunk (copying 1M clicks
      // took 32 s instead of 14).
      async countClicks() {
        await client`
          INSERT INTO link_clicks (link_id, shard, clicks)
          SELECT link_id, 0, count(*) FROM clicks GROUP BY link_id`;
      },
      async insertSettings(settings) {
        const keys = settings.map(([key]) => key);
        const values = settings.map(([, value]) => value);
        await client`INSERT INTO settings (key, value) SELECT * FROM unnest(${keys}::text[], ${values}::text[])`;
      },
      // The next id of each table goes past both the copied ids and every id the source
      // ever handed out (a token names its user by id: a deleted user's must not return).
      async moveSequences(highWater) {
        await client.begin(async (tx) => {
          for (const table of TABLES) {
            await tx.unsafe(
              `SELECT setval(pg_get_serial_sequence('${table}', 'id'), greatest(n, 1), n > 0)
               FROM (SELECT greatest($1::bigint, coalesce(max(id), 0)) AS n FROM ${table}) high`,
              [highWater[table]],
            );
          }
        });
      },
    };
  }

  async withSnapshot<T>(work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    return (await this.client.begin('isolation level repeatable read read only', (tx) =>
      work(snapshotOf(tx)),
    )) as T;
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

function snapshotOf(tx: SQL): Snapshot {
  const sequenced = (table: Table) =>
    `greatest(coalesce(pg_sequence_last_value(pg_get_serial_sequence('${table}', 'id')::regclass), 0),
              coalesce((SELECT max(id) FROM ${table}), 0))::float8 AS ${table}`;
  return {
    async contents() {
      const [row]: Contents[] = await tx`
        SELECT (SELECT count(*) FROM users)::float8 AS users,
               (SELECT count(*) FROM links)::float8 AS links,
               (SELECT count(*) FROM clicks)::float8 AS clicks,
               (SELECT count(*) FROM settings WHERE key <> ${HEALTH_PROBE_KEY})::float8 AS settings`;
      return row as Contents;
    },
    // `ORDER BY ${table}.id`: a bare `id` would name the float8 output column, and sort
    // the whole rest of the table instead of walking the primary key.
    async rows(table, after, limit) {
      return (await tx
        .unsafe(`SELECT ${READ[table]} FROM ${table} WHERE id > $1 ORDER BY ${table}.id LIMIT $2`, [
          after,
          limit,
        ])
        .values()) as Row[];
    },
    async settings() {
      return (await tx`SELECT key, value FROM settings WHERE key <> ${HEALTH_PROBE_KEY} ORDER BY key`.values()) as [
        string,
        string,
      ][];
    },
    async highWater() {
      const [row]: HighWater[] = await tx.unsafe(`SELECT ${TABLES.map(sequenced).join(', ')}`);
      return row as HighWater;
    },
    async *linkCounts() {
      let after = 0;
      for (;;) {
        const chunk = (await tx`
          SELECT l.id, (SELECT coalesce(sum(c.clicks), 0) FROM link_clicks c WHERE c.link_id = l.id)::float8
          FROM links l WHERE l.id > ${after} ORDER BY l.id LIMIT ${COUNTS_CHUNK}`.values()) as LinkCount[];
        if (chunk.length === 0) return;
        yield chunk;
        after = (chunk.at(-1) as LinkCount)[0];
      }
    },
    async linkTotals() {
      const rows =
        (await tx`SELECT owner, links::float8 FROM link_totals WHERE links <> 0`.values()) as [
          number,
          number,
        ][];
      return new Map(rows);
    },
  };
}
