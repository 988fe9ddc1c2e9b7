// Which domain of this kurz each row of an import goes to. A file names its links'
// domains (kurz's export by host, null for the default one; Shlink by its domain column;
// Bitly by its short links' host): each goes to the domain of this kurz with that host,
// or where --domain-map FROM=TO says. A domain that matches none is never made, and its
// links are never put on another one unasked: the import names such domains, with their
// rows, and stops before it stores anything.

import { domainHostOf } from '../domain/short-domains.ts';
import { defaultDomain } from '../domains/registry.ts';
import { DEFAULT_DOMAIN, type Store } from '../store/store.ts';

/** How --domain-map names a default domain: the file's (as FROM) or this kurz's (as TO). */
export const DEFAULT_NAME = 'default';

/** A --domain-map that cannot be used; `usage`: a command line that is wrong as written. */
export class DomainMapError extends Error {
  constructor(
    message: string,
    readonly usage: boolean,
  ) {
    super(message);
  }
}

/** --domain-map's pairs: the file's domain (its host, or DEFAULT_NAME) → a domain's name here. */

export type DomainPairs = Map<string, { given: string; to: string }>;

/** Reads each --domain-map FROM=TO; FROM is a host, a base URL or `default`. */
export function parseDomainMap(values: readonly string[]): DomainPairs {
  const pairs: DomainPairs = new Map();
  for (const given of values) {
    const at = given.indexOf('=');
    const from = given.slice(0, Math.max(at, 0)).trim();
    const to = given.slice(at + 1).trim();
    if (at === -1 || from === '' || to === '') {
      throw new DomainMapError(
        `--domain-map "${given}": give FROM=TO, the file's domain and one of this kurz's (or default), e.g. bit.ly=default`,
        true,
      );
    }
    const key = from.toLowerCase() === DEFAULT_NAME ? DEFAULT_NAME : domainHostOf(from);
    if (key === undefined) {
      throw new DomainMapError(`--domain-map "${given}": ${from} is not a host or base URL`, true);
    }
    const before = pairs.get(key);
    if (before !== undefined && before.to !== to) {
      throw new DomainMapError(
        `--domain-map maps ${from} twice ("${before.given}" and "${given}")`,
        true,
      );
    }
    pairs.set(key, { given, to });
  }
  return pairs;
}

/** Where a row's domain goes: a domain of this kurz, a host it does not have, or no host at all. */
export type Placement =
  | { kind: 'placed'; domainId: number }
  | { kind: 'unknown'; host: string }
  | { kind: 'invalid' };

export class DomainMap {
  private constructor(
    /** The host of each domain of this kurz, the default one's included, → its id. */
    private readonly ids: Map<string, number>,
    /** The host of each domain by id; the default one's is its --base-url host. */
    private readonly hosts: Map<number, string>,
    /** --domain-map: the file's host (or DEFAULT_NAME) → the domain it goes to. */
    private readonly mapped: Map<string, number>,
  ) {}

  /**
   * This kurz's domains (the default one as `baseUrl` names it) and --domain-map's
   * pairs, each TO checked against them. Throws DomainMapError for a TO that is not one.
   */
  static async open(
    store: Pick<Store, 'listDomains'>,
    baseUrl: string,
    pairs: DomainPairs = new Map(),
  ): Promise<DomainMap> {
    const main = defaultDomain(baseUrl);
    const domains = await store.listDomains();
    const ids = new Map(domains.map((d) => [d.host, d.id]));
    ids.set(main.host, DEFAULT_DOMAIN);
    const hosts = new Map(domains.map((d) => [d.id, d.host]));
    hosts.set(DEFAULT_DOMAIN, main.host);
    const mapped = new Map<string, number>();
    for (const [from, { given, to }] of pairs) {
      const host = to.toLowerCase() === DEFAULT_NAME ? main.host : domainHostOf(to);
      const id = host === undefined ? undefined : ids.get(host);
      if (id === undefined) {
        const known = [`${DEFAULT_NAME} (${main.host})`, ...domains.map((d) => d.host)];
        throw new DomainMapError(
          `--domain-map "${given}": ${to} is not a domain of this kurz (its domains: ${known.join(', ')})`,
          false,
        );
      }
      mapped.set(from, id);
    }
    return new DomainMap(ids, hosts, mapped);
  }

  /** The domain of this kurz a row's domain goes to (null: the file's default one). */
  place(name: string | null): Placement {
    if (name === null) {
      return { kind: 'placed', domainId: this.mapped.get(DEFAULT_NAME) ?? DEFAULT_DOMAIN };
    }
    const host = domainHostOf(name);
    if (host === undefined) return { kind: 'invalid' };
    const id = this.mapped.get(host) ?? this.ids.get(host);
    return id === undefined ? { kind: 'unknown', host } : { kind: 'placed', domainId: id };
  }

  /** A domain as reports name it: its host. */
  hostOf(domainId: number): string {
    return this.hosts.get(domainId) ?? `domain ${domainId}`;
  }
}

/**
 * The domains a file's links are on (Input.domains) that this kurz does not have and
 * --domain-map does not place, each with its number of rows; read through the whole
 * file before anything is stored. A domain that is no host is left to the import, whose
 * row it makes a bad one.
 */
export async function unplacedDomains(
  names: AsyncIterable<string | null>,
  domains: DomainMap,
): Promise<Map<string, number>> {
  const unplaced = new Map<string, number>();
  for await (const name of names) {
    const placement = domains.place(name);
    if (placement.kind === 'unknown') {
      unplaced.set(placement.host, (unplaced.get(placement.host) ?? 0) + 1);
    }
  }
  return unplaced;
}

/** Domains named one by one in the refusal; the rest are counted. */
const NAMED = 10;

/** The refusal of a file with links on unplaced domains, most rows first. */
export function describeUnplaced(unplaced: Map<string, number>): string {
  const sorted = [...unplaced].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const named = sorted
    .slice(0, NAMED)
    .map(([host, rows]) => `${host} (${rows} ${rows === 1 ? 'row' : 'rows'})`);
  if (sorted.length > NAMED) named.push(`and ${sorted.length - NAMED} more`);
  const example = (sorted[0] as [string, number])[0];
  return `its links are on ${sorted.length === 1 ? 'a domain' : 'domains'} this kurz does not have: ${named.join(', ')}. Map each onto a domain of this kurz with --domain-map FROM=TO (TO: its host, or ${DEFAULT_NAME}), e.g. --domain-map ${example}=${DEFAULT_NAME}, or add it first (kurz domain add URL); nothing was imported`;
}
