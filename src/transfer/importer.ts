// Puts the entries of an export file into the store, a batch at a time (one lookup of
// the batch's codes, one insert): a link goes to the domain its row names (domain-map.ts)
// and keeps its code when it is free there; one already there (same domain, code, URL
// and owner) is skipped, so a second run imports nothing; a code held by another link of
// the domain, or one kurz does not allow, is a conflict, reported and skipped or given a
// new code. A bad row is reported with its line and never stops the others.

import { generateCode } from '../domain/codes.ts';
import { baseUrlHost, type OwnHosts, ownHostsOf } from '../domain/own-hosts.ts';
import {
  cut as cutLabel,
  REFERRER_MAX_LENGTH,
  SOURCE_MAX_LENGTH,
  storable,
  USER_AGENT_MAX_LENGTH,
} from '../domain/sources.ts';
import type { Blocklist } from '../domain/targets.ts';
import {
  type Click,
  type CodeHolder,
  DEFAULT_DOMAIN,
  type Link,
  type Store,
  type User,
} from '../store/store.ts';
import { DomainMap } from './domain-map.ts';
import type { ClickEntry, Entry, LinkEntry } from './entries.ts';
import { type Candidate, checkRow, cut } from './import-rows.ts';

export interface ImportOptions {
  /** The account every link goes to; undefined: as kurz's export says, else no one. */
  owner: User | undefined;
  /** Read and check everything, store nothing. */
  dryRun: boolean;
  /** A conflict's link is imported under a new code rather than skipped. */
  renameConflicts: boolean;
  /**
   * kurz's public address: a link to it is refused, as the API refuses it; its host is
   * the default domain's.
   */
  baseUrl: string;
  /**
   * Where each row's domain goes (--domain-map, checked before the import); without it,
   * to the domain of this kurz with its host, and a row of any other is a bad row.
   */
  domains?: DomainMap;
  blocklist: Blocklist | undefined;
  /** Links per batch: one lookup and one insert (one transaction) each. */
  batchSize?: number;
  /** The creation time of links whose row gives none (ms). */
  now?: number;
}

/** Where the import says what it does. */
export interface ImportReporter {
  /** A row that was not imported as it stood: bad, a conflict, renamed. */
  row(line: number, message: string): void;
  /** After each batch: the rows read so far. */
  progress(rows: number): void;
}

export interface ImportSummary {
  /** Link rows read, bad ones included. */
  read: number;
  imported: number;
  /** Already there: the same code, URL and owner (or, renamed before, URL and date). */
  skipped: number;
  conflicts: number;
  /** Conflicts imported under a new code (--rename-conflicts). */
  renamed: number;
  bad: number;
  clicks: { read: number; imported: number; skipped: number };
}

/** Links per batch: a transaction short enough (a few ms) not to hold a serving kurz's writes back. */
export const IMPORT_BATCH = 2000;
/** Click records per insert. */
const CLICK_BATCH = 5000;
/** New codes tried for one link before the import gives up on it (each is 62^7 to one). */
const CODE_TRIES = 5;

/** A link about to be inserted, under its own code or a new one. */
interface Planned {
  candidate: Candidate;
  code: string;
  fresh: boolean;
}

/** What a code is known to hold within this run: a row of the file, or a stored link. */
type Holder = Pick<CodeHolder, 'originalUrl' | 'userId'> & { line?: number };

/** A code on a domain, as the maps of this run hold it (no code holds a space). */
const codeKey = (domainId: number, code: string) => `${domainId} ${code}`;

/** Codes grouped by domain, each once, for one lookup per domain. */
function codesByDomain(candidates: readonly Candidate[]): Map<number, string[]> {
  const byDomain = new Map<number, Set<string>>();
  for (const { code, link } of candidates) {
    if (code === undefined) continue;
    const codes = byDomain.get(link.domainId) ?? new Set<string>();
    byDomain.set(link.domainId, codes.add(code));
  }
  return new Map([...byDomain].map(([domainId, codes]) => [domainId, [...codes]]));
}

/** A click's label as the click writer keeps it: storable, at most `max` characters. */
const label = (value: string | null, max: number) =>
  value === null ? null : cutLabel(storable(value), max);

/** The summary of an import that has read nothing yet. */
export function emptySummary(): ImportSummary {
  return {
    read: 0,
    imported: 0,
    skipped: 0,
    conflicts: 0,
    renamed: 0,
    bad: 0,
    clicks: { read: 0, imported: 0, skipped: 0 },
  };
}

export class Importer {
  private readonly summary: ImportSummary = emptySummary();
  private readonly batchSize: number;
  private readonly now: number;
  /** kurz's own hosts (the base URL's, every registered domain's): no link may point to one. */
  private own: OwnHosts = ownHostsOf([]);
  /** Accounts by e-mail and by id (for kurz's owners and for saying whose a code is). */
  private users: { byEmail: Map<string, number>; byId: Map<number, string> } | undefined;
  /** The id of each link this run made, by codeKey of the code the file gives it (for its clicks). */

  private readonly made = new Map<string, number>();
  /** A dry run stores nothing: the codes it would have taken (codeKey), so later rows see them. */
  private readonly planned = new Map<string, Holder>();
  private domains: DomainMap | undefined;
  /** The batch's reports, told in line order once it is done. */
  private reports: { line: number; message: string }[] = [];

  constructor(
    private readonly store: Store,
    private readonly options: ImportOptions,
    private readonly reporter: ImportReporter,
  ) {
    this.batchSize = options.batchSize ?? IMPORT_BATCH;
    this.now = options.now ?? Date.now();
  }

  async run(entries: AsyncIterable<Entry>): Promise<ImportSummary> {
    this.domains = this.options.domains ?? (await DomainMap.open(this.store, this.options.baseUrl));
    const users = await this.store.listUsers();
    this.users = {
      byEmail: new Map(users.map((u) => [u.email, u.id])),
      byId: new Map(users.map((u) => [u.id, u.email])),
    };
    const base = baseUrlHost(this.options.baseUrl);
    const domains = (await this.store.listDomains()).map((domain) => domain.host);
    this.own = ownHostsOf(base === undefined ? domains : [base, ...domains]);
    let links: Candidate[] = [];
    let clicks: ClickEntry[] = [];
    for await (const entry of entries) {
      if (entry.kind === 'click') {
        this.summary.clicks.read++;
        clicks.push(entry);
      } else {
        this.summary.read++;
        const candidate =
          entry.kind === 'bad' ? this.bad(entry.line, entry.reason) : this.check(entry);
        if (candidate !== undefined) links.push(candidate);
      }
      if (links.length >= this.batchSize || clicks.length >= CLICK_BATCH) {
        await this.flush(links, clicks);
        links = [];
        clicks = [];
      }
    }
    await this.flush(links, clicks);
    return this.summary;
  }

  private report(line: number, message: string): void {
    this.reports.push({ line, message });
  }

  private bad(line: number, reason: string): undefined {
    this.summary.bad++;
    this.report(line, `${reason}; skipped`);
    return undefined;
  }

  /** A row by kurz's rules (import-rows.ts); undefined when it is bad. */
  private check(entry: LinkEntry): Candidate | undefined {
    const checked = checkRow(entry, {
      ...this.options,
      own: this.own,
      now: this.now,
      domains: this.domains as DomainMap,
      accountOf: (email) => this.users?.byEmail.get(email),
    });
    return typeof checked === 'string' ? this.bad(entry.line, checked) : checked;
  }

  /** A row's code as reports name it: quoted, with its domain unless that is the default one. */
  private codeName(candidate: Candidate): string {
    const code = `"${cut(candidate.given ?? '', 40)}"`;
    const { domainId } = candidate.link;
    return domainId === DEFAULT_DOMAIN
      ? code
      : `${code} on ${(this.domains as DomainMap).hostOf(domainId)}`;
  }

  /** What holds a code, as a conflict's report says it. */
  private describe(holder: Holder): string {
    if (holder.line !== undefined) {
      return `is taken by line ${holder.line} of this file (${cut(holder.originalUrl)})`;
    }
    const owner =
      holder.userId === null
        ? 'no one'
        : (this.users?.byId.get(holder.userId) ?? `user ${holder.userId}`);
    return `is taken by another link (${cut(holder.originalUrl)}, of ${owner})`;
  }

  /**
   * A code that cannot be kept: skipped and said, or (--rename-conflicts) left to
   * renamed(), which counts and says it once its new code is known.
   */
  private conflict(candidate: Candidate, why: string, renames: Candidate[]): void {
    candidate.conflict = why;
    if (this.options.renameConflicts) {
      renames.push(candidate);
      return;
    }
    this.summary.conflicts++;
    this.report(candidate.line, `code ${this.codeName(candidate)} ${why}; skipped`);
  }

  /** A conflict's link, imported (or in a dry run, to be) under a new code. */
  private renamed(candidate: Candidate, outcome: string): void {
    this.summary.conflicts++;
    this.summary.renamed++;
    this.report(
      candidate.line,
      `code ${this.codeName(candidate)} ${candidate.conflict}; ${outcome}`,
    );
  }

  private async flush(batch: Candidate[], clicks: ClickEntry[]): Promise<void> {
    const plans: Planned[] = [];
    const renames: Candidate[] = [];
    const holders = await this.holders(batch);
    for (const candidate of batch) {
      const { code } = candidate;
      if (code === undefined) {
        if (candidate.conflict === undefined) renames.push(candidate);
        else this.conflict(candidate, candidate.conflict, renames);
        continue;
      }
      const key = codeKey(candidate.link.domainId, code);
      const holder = holders.get(key) ?? this.planned.get(key);
      if (holder === undefined) {
        holders.set(key, { ...candidate.link, line: candidate.line });
        plans.push({ candidate, code, fresh: false });
      } else if (
        holder.originalUrl === candidate.link.originalUrl &&
        holder.userId === candidate.link.userId
      ) {
        this.summary.skipped++;
      } else {
        this.conflict(candidate, this.describe(holder), renames);
      }
    }
    for (const candidate of await this.notYetImported(renames)) {
      plans.push({ candidate, code: generateCode(), fresh: true });
    }
    if (this.options.dryRun) this.pretend(plans);
    else await this.insert(plans);
    await this.importClicks(clicks);
    for (const { line, message } of this.reports.sort((a, b) => a.line - b.line)) {
      this.reporter.row(line, message);
    }
    this.reports = [];
    this.reporter.progress(this.summary.read);
  }

  /** The stored links holding the candidates' codes, by codeKey: one lookup per domain. */
  private async holders(candidates: readonly Candidate[]): Promise<Map<string, Holder>> {
    const holders = new Map<string, Holder>();
    for (const [domainId, codes] of codesByDomain(candidates)) {
      for (const holder of await this.store.findLinksByCodes(codes, domainId)) {
        holders.set(codeKey(domainId, holder.shortCode), holder);
      }
    }
    return holders;
  }

  /**
   * The links to give a new code, less those a run before gave one: the owner has a link
   * on the same domain with the same URL made at the same time (so --rename-conflicts
   * stays idempotent).
   */
  private async notYetImported(renames: Candidate[]): Promise<Candidate[]> {
    const byOwner = new Map<number | null, Candidate[]>();
    for (const candidate of renames) {
      if (!candidate.dated) continue;
      const owner = candidate.link.userId;
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), candidate]);
    }
    const found = new Map<Candidate, string>();
    for (const [owner, candidates] of byOwner) {
      const times = [...new Set(candidates.map((c) => c.link.createdAt))];
      const links = await this.store.findLinksCreatedAt(owner, times);
      const codes = new Map(
        links.map((l) => [`${l.domainId} ${l.createdAt} ${l.originalUrl}`, l.shortCode]),
      );
      for (const candidate of candidates) {
        const { domainId, createdAt, originalUrl } = candidate.link;
        const code = codes.get(`${domainId} ${createdAt} ${originalUrl}`);
        if (code !== undefined) found.set(candidate, code);
      }
    }
    return renames.filter((candidate) => {
      const code = found.get(candidate);
      if (code === undefined) return true;
      this.summary.skipped++;
      if (candidate.conflict !== undefined) {
        this.report(
          candidate.line,
          `code ${this.codeName(candidate)} ${candidate.conflict}; already imported as "${code}"`,
        );
      }
      return false;
    });
  }

  /** A dry run: what would be imported is counted, and its codes held for later rows. */
  private pretend(plans: Planned[]): void {
    for (const { candidate, code, fresh } of plans) {
      this.summary.imported++;
      this.madeLink(candidate, -1);
      if (!fresh) {
        this.planned.set(codeKey(candidate.link.domainId, code), {
          ...candidate.link,
          line: candidate.line,
        });
      } else if (candidate.conflict !== undefined) {
        this.renamed(candidate, 'would be imported under a new code');
      }
    }
  }

  /**
   * Inserts the batch in one transaction. A code taken since the lookup (by a kurz
   * serving the database, or a second import) is looked at again; a new code that was
   * taken is drawn again.
   */
  private async insert(plans: Planned[]): Promise<void> {
    let pending = plans;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const results = await this.store.createLinks(
        pending.map(({ candidate, code }) => ({ ...candidate.link, shortCode: code })),
      );
      const again: Planned[] = [];
      const lost: Candidate[] = [];
      pending.forEach((plan, i) => {
        const made = results[i];
        if (made !== undefined && typeof made === 'object') this.imported(plan, made);
        else if (!plan.fresh) lost.push(plan.candidate);
        else if (attempt < CODE_TRIES) again.push({ ...plan, code: generateCode() });
        else this.bad(plan.candidate.line, `no free code was found in ${CODE_TRIES} tries`);
      });
      if (lost.length > 0) {
        const holders = await this.holders(lost);
        const renames: Candidate[] = [];
        for (const candidate of lost) {
          const holder = holders.get(codeKey(candidate.link.domainId, candidate.code as string));
          if (
            holder !== undefined &&
            holder.originalUrl === candidate.link.originalUrl &&
            holder.userId === candidate.link.userId
          ) {
            this.summary.skipped++;
          } else {
            // No holder: the link that took the code was deleted since; a conflict all the same.
            this.conflict(
              candidate,
              holder === undefined ? 'was taken while importing' : this.describe(holder),
              renames,
            );
          }
        }
        for (const candidate of renames)
          again.push({ candidate, code: generateCode(), fresh: true });
      }
      pending = again;
    }
  }

  /** Remembers a link this run made (-1 in a dry run), for its click records. */
  private madeLink(candidate: Candidate, id: number): void {
    if (candidate.given !== undefined) {
      this.made.set(codeKey(candidate.link.domainId, candidate.given), id);
    }
  }

  private imported({ candidate, fresh }: Planned, link: Link): void {
    this.summary.imported++;
    this.madeLink(candidate, link.id);
    if (fresh && candidate.conflict !== undefined) {
      this.renamed(candidate, `imported as "${link.shortCode}"`);
    }
  }

  /**
   * The click records of links this run made (kurz's export with --clicks). Those of a
   * link that was already there are not imported again: it has them.
   */
  private async importClicks(entries: ClickEntry[]): Promise<void> {
    const clicks: Click[] = [];
    for (const entry of entries) {
      const placement = (this.domains as DomainMap).place(entry.domain);
      const linkId =
        placement.kind === 'placed'
          ? this.made.get(codeKey(placement.domainId, entry.code))
          : undefined;
      if (linkId === undefined) {
        this.summary.clicks.skipped++;
        continue;
      }
      this.summary.clicks.imported++;
      clicks.push({
        linkId,
        createdAt: entry.createdAt,
        source: label(entry.source, SOURCE_MAX_LENGTH),
        querySource: label(entry.querySource, SOURCE_MAX_LENGTH),
        referrer: label(entry.referrer, REFERRER_MAX_LENGTH),
        userAgent: label(entry.userAgent, USER_AGENT_MAX_LENGTH),
        country: entry.country !== null && /^[A-Z]{2}$/.test(entry.country) ? entry.country : null,
        address: null,
        limited: false,
      });
    }
    if (!this.options.dryRun && clicks.length > 0) await this.store.importClicks(clicks);
  }
}

/** The summary's line, e.g. `read 100000 rows, imported 99990, skipped 5 (already there), …`. */
export function describeSummary(summary: ImportSummary, dryRun: boolean): string {
  const { read, imported, skipped, conflicts, renamed, bad, clicks } = summary;
  const renamedPart = renamed > 0 ? ` (${renamed} under new codes)` : '';
  let text = `read ${read} ${read === 1 ? 'row' : 'rows'}, ${dryRun ? 'would import' : 'imported'} ${imported}, skipped ${skipped} (already there), conflicts ${conflicts}${renamedPart}, bad rows ${bad}`;
  if (clicks.read > 0) {
    text += `; click records: ${dryRun ? 'would import' : 'imported'} ${clicks.imported}, skipped ${clicks.skipped} (their link was not imported now)`;
  }
  return dryRun ? `dry run, nothing stored: ${text}` : text;
}
