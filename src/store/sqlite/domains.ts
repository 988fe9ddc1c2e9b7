// Short domains on SQLite: a handful of rows, read whole by each registry. Only this
// process writes them, save the operator's `kurz domain` while kurz serves: its commit
// changes data_version, which watchDomains hears (as watchLinks does).

import type { Database } from 'bun:sqlite';
import { applyDomainChanges } from '../link-changes.ts';
import type { Domain, DomainChanges, DomainRemoval, NewDomain } from '../store.ts';
import { writeTransaction } from './open.ts';

const COLUMNS = `id, base_url AS baseUrl, host, root_redirect AS rootRedirect,
  not_found_redirect AS notFoundRedirect, created_at AS createdAt`;

/** The domain operations; `removeLink` removes one link inside the caller's transaction. */
export function sqliteDomains(
  sqlite: Database,
  removeLink: (id: number, now: number) => boolean,
  /** Called after each change this process commits, so its own registry reads it again. */
  changed: () => void,
) {
  const all = sqlite.prepare<Domain, []>(`SELECT ${COLUMNS} FROM domains ORDER BY id`);
  const byId = sqlite.prepare<Domain, [number]>(`SELECT ${COLUMNS} FROM domains WHERE id = ?`);
  const counts = sqlite.prepare<{ domainId: number; links: number }, []>(
    'SELECT domain_id AS domainId, count(*) AS links FROM links GROUP BY domain_id',
  );
  const insert = sqlite.prepare<Domain, [string, string, string | null, string | null, number]>(
    `INSERT INTO domains (base_url, host, root_redirect, not_found_redirect, created_at)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (host) DO NOTHING RETURNING ${COLUMNS}`,
  );
  const update = sqlite.prepare<unknown, [string | null, string | null, number]>(
    'UPDATE domains SET root_redirect = ?, not_found_redirect = ? WHERE id = ?',
  );
  const linksOf = sqlite.prepare<{ id: number }, [number]>(
    'SELECT id FROM links WHERE domain_id = ?',
  );
  const anyLinkOf = sqlite.prepare<{ id: number }, [number]>(
    'SELECT id FROM links WHERE domain_id = ? LIMIT 1',
  );
  const remove = sqlite.prepare<unknown, [number]>('DELETE FROM domains WHERE id = ?');
  /** Runs a change in a write transaction, then tells this process's registry once it has committed. */
  const announced = <A extends unknown[], R>(work: (...args: A) => R) => {
    const inTransaction = writeTransaction(sqlite, work);
    return (...args: A): R => {
      const result = inTransaction(...args);
      changed();
      return result;
    };
  };
  const operations = {
    listDomains: (): Domain[] => all.all(),
    countLinksByDomain(): Map<number, number> {
      return new Map(counts.all().map((row) => [row.domainId, row.links]));
    },
    createDomain: announced(
      (domain: NewDomain): Domain | undefined =>
        insert.get(
          domain.baseUrl,
          domain.host,
          domain.rootRedirect,
          domain.notFoundRedirect,
          domain.createdAt,
        ) ?? undefined,
    ),
    updateDomain: announced((id: number, changes: DomainChanges): Domain | undefined => {
      const current = byId.get(id);
      if (current === null) return undefined;
      const next = applyDomainChanges(current, changes);
      update.run(next.rootRedirect, next.notFoundRedirect, id);
      return next;
    }),
    deleteDomain: announced((id: number, withLinks: boolean): DomainRemoval => {
      if (byId.get(id) === null) return 'missing';
      if (!withLinks && anyLinkOf.get(id) !== null) return 'in-use';
      const now = Date.now();
      for (const { id: linkId } of linksOf.all(id)) removeLink(linkId, now);
      remove.run(id);
      return 'removed';
    }),
  };
  return {
    operations,
    finalize(): void {
      for (const s of [all, byId, counts, insert, update, linksOf, anyLinkOf, remove]) s.finalize();
    },
  };
}
