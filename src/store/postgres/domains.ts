// Short domains on PostgreSQL: a handful of rows every instance keeps in memory; each
// change is announced on LINKS_CHANNEL (DOMAINS_NOTICE) in its own transaction, so every
// instance reads them again once it commits.

import type { SQL } from 'bun';
import { applyDomainChanges } from '../link-changes.ts';
import type { Domain, DomainChanges, DomainRemoval, NewDomain } from '../store.ts';
import { removeLink } from './links.ts';
import { DOMAINS_NOTICE, LINKS_CHANNEL } from './notices.ts';

const COLUMNS = `id, base_url AS "baseUrl", host, root_redirect AS "rootRedirect",
  not_found_redirect AS "notFoundRedirect", created_at::float8 AS "createdAt"`;

export class PostgresDomains {
  constructor(private readonly client: SQL) {}

  async listDomains(): Promise<Domain[]> {
    return await this.client.unsafe(`SELECT ${COLUMNS} FROM domains ORDER BY id`);
  }

  async countLinksByDomain(): Promise<Map<number, number>> {
    const rows: { domainId: number; links: number }[] = await this.client`
      SELECT domain_id AS "domainId", count(*)::float8 AS links FROM links GROUP BY domain_id`;
    return new Map(rows.map((row) => [row.domainId, row.links]));
  }

  async createDomain(domain: NewDomain): Promise<Domain | undefined> {
    return this.client.begin(async (tx) => {
      const [row]: Domain[] = await tx.unsafe(
        `INSERT INTO domains (base_url, host, root_redirect, not_found_redirect, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (host) DO NOTHING RETURNING ${COLUMNS}`,
        [
          domain.baseUrl,
          domain.host,
          domain.rootRedirect,
          domain.notFoundRedirect,
          domain.createdAt,
        ],
      );
      if (row !== undefined) await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${DOMAINS_NOTICE})`;
      return row;
    });
  }

  async updateDomain(id: number, changes: DomainChanges): Promise<Domain | undefined> {
    return this.client.begin(async (tx) => {
      const [current]: Domain[] = await tx.unsafe(
        `SELECT ${COLUMNS} FROM domains WHERE id = $1 FOR UPDATE`,
        [id],
      );
      if (current === undefined) return undefined;
      const next = applyDomainChanges(current, changes);
      await tx`UPDATE domains SET root_redirect = ${next.rootRedirect},
                 not_found_redirect = ${next.notFoundRedirect} WHERE id = ${id}`;
      await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${DOMAINS_NOTICE})`;
      return next;
    });
  }

  /**
   * The domain's row is locked first, so a link created on it meanwhile either commits
   * before (and is counted, or removed with it) or finds no domain once this commits.
   */
  async deleteDomain(id: number, withLinks: boolean): Promise<DomainRemoval> {
    return this.client.begin(async (tx) => {
      const [domain]: { id: number }[] =
        await tx`SELECT id FROM domains WHERE id = ${id} FOR UPDATE`;
      if (domain === undefined) return 'missing';
      const links: { id: number }[] = await tx`SELECT id FROM links WHERE domain_id = ${id}`;
      if (links.length > 0 && !withLinks) return 'in-use';
      const now = Date.now();
      for (const link of links) await removeLink(tx, link.id, now);
      await tx`DELETE FROM domains WHERE id = ${id}`;
      await tx`SELECT pg_notify(${LINKS_CHANNEL}, ${DOMAINS_NOTICE})`;
      return 'removed';
    });
  }
}
