// `kurz domain add|list|set|remove`: the operator's short domains, on the database --db
// names, safe while kurz serves it: each change is announced as POST/PATCH/DELETE
// /api/domains announce theirs (SQLite: the serving process sees the file change;
// PostgreSQL: the store's notice), and every instance's registry reads the domains again.

import type { ToolCommand } from '../config/tools.ts';
import { ApiError } from '../domain/errors.ts';
import { printable } from '../domain/printable.ts';
import { domainHostOf, parseDomainRedirect, parseDomainUrl } from '../domain/short-domains.ts';
import type { Logger } from '../logger.ts';
import { openStore } from '../store/open.ts';
import type { Domain, DomainChanges, Store } from '../store/store.ts';
import { type DomainJson, domainJson } from './model.ts';
import { defaultDomain, type ShortDomain } from './registry.ts';

/** A refusal to say in one line and exit 1 (2 for a command line that cannot be run). */
class DomainCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** What an action does on the open store: a line for the log, or text for stdout (--json). */
type Work = (store: Store) => Promise<{ line: string } | { stdout: string }>;

const ACTIONS = ['add', 'list', 'set', 'remove'] as const;
/** The flags each action takes; another action refuses them. */
const FLAGS_OF: Record<(typeof ACTIONS)[number], readonly string[]> = {
  add: ['--root-redirect', '--not-found-redirect'],
  list: ['--json'],
  set: ['--root-redirect', '--not-found-redirect'],
  remove: ['--with-links'],
};

export async function domainCommand(command: ToolCommand, log: Logger): Promise<number> {
  const { config } = command;
  // The server's default domain: --base-url, else what kurz serve would take on its port.
  const home = defaultDomain(config.baseUrl ?? `http://localhost:${config.port}`);
  let work: Work;
  try {
    work = plan(command, home);
  } catch (error) {
    if (!(error instanceof DomainCommandError)) throw error;
    log.error(`kurz: ${printable(error.message)}`);
    return error.exitCode;
  }
  const store = await openStore(config, log, { background: false });
  try {
    const done = await work(store);
    if ('line' in done) log.info(`kurz: ${done.line}`);
    else process.stdout.write(done.stdout);
    return 0;
  } catch (error) {
    if (!(error instanceof DomainCommandError)) throw error;
    log.error(`kurz: ${printable(error.message)}`);
    return error.exitCode;
  } finally {
    await store.close();
  }
}

/** Checks the command line before the database is opened; the work to do on it. */
function plan(command: ToolCommand, home: ShortDomain): Work {
  const [action, name] = command.args as [string, string | undefined];
  const { options } = command;
  if (!(ACTIONS as readonly string[]).includes(action)) {
    throw new DomainCommandError(
      `unknown action "${action}" for domain (expected add, list, set or remove; see kurz domain --help)`,
      2,
    );
  }
  const known = action as (typeof ACTIONS)[number];
  const needsName = known !== 'list';
  if (needsName !== (name !== undefined)) {
    throw new DomainCommandError(
      needsName
        ? `domain ${known} needs a URL (see kurz domain --help)`
        : 'domain list takes no URL (see kurz domain --help)',
      2,
    );
  }
  for (const flag of options.keys()) {
    if (!FLAGS_OF[known].includes(flag)) {
      throw new DomainCommandError(`${flag} is not for domain ${known}`, 2);
    }
  }
  const changes = answersOf(options);
  switch (known) {
    case 'list':
      return (store) => listDomains(store, home, options.has('--json'));
    case 'add': {
      const added = baseUrlOf(name as string);
      return (store) => addDomain(store, home, added, changes);
    }
    case 'set': {
      const host = hostNamed(name as string);
      if (Object.keys(changes).length === 0) {
        throw new DomainCommandError(
          'domain set needs --root-redirect or --not-found-redirect (a URL, or "" for none)',
          2,
        );
      }
      return (store) => setDomain(store, home, host, changes);
    }
    case 'remove': {
      const host = hostNamed(name as string);
      return (store) => removeDomain(store, home, host, options.has('--with-links'));
    }
  }
}

function baseUrlOf(raw: string) {
  try {
    return parseDomainUrl(raw);
  } catch (error) {
    if (error instanceof ApiError) throw new DomainCommandError(`"${raw}": ${error.message}`, 2);
    throw error;
  }
}

function hostNamed(raw: string): string {
  const host = domainHostOf(raw);
  if (host === undefined) {
    throw new DomainCommandError(
      `"${raw}" names no domain: give its host (go.example.com) or base URL (https://go.example.com)`,
      2,
    );
  }
  return host;
}

/** The redirects the flags give: a URL, or '' for none. */
function answersOf(options: ToolCommand['options']): DomainChanges {
  const changes: DomainChanges = {};
  const read = (flag: string): string | null | undefined => {
    const value = options.get(flag);
    if (value === undefined || value === true) return undefined;
    if (value === '') return null;
    try {
      return parseDomainRedirect(value);
    } catch (error) {
      if (error instanceof ApiError) throw new DomainCommandError(`${flag}: ${error.message}`, 2);
      throw error;
    }
  };
  const root = read('--root-redirect');
  if (root !== undefined) changes.rootRedirect = root;
  const notFound = read('--not-found-redirect');
  if (notFound !== undefined) changes.notFoundRedirect = notFound;
  return changes;
}

function asShort(domain: Domain): ShortDomain {
  const { id, baseUrl, host, rootRedirect, notFoundRedirect } = domain;
  return { id, baseUrl, host, rootRedirect, notFoundRedirect, isDefault: false };
}

function refuseDefault(home: ShortDomain, host: string): void {
  if (host === home.host) {
    throw new DomainCommandError(
      `${host} is the default domain, set by --base-url: it is not added, changed or removed here`,
    );
  }
}

async function stored(store: Store, host: string): Promise<Domain> {
  const domain = (await store.listDomains()).find((d) => d.host === host);
  if (domain === undefined) throw new DomainCommandError(`no domain ${host}`);
  return domain;
}

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;
/** A redirect as a line says it; none: what the domain answers instead. */
const shown = (url: string | null, instead: string) => (url === null ? `none (${instead})` : url);

async function addDomain(
  store: Store,
  home: ShortDomain,
  name: { baseUrl: string; host: string },
  changes: DomainChanges,
) {
  refuseDefault(home, name.host);
  const made = await store.createDomain({
    ...name,
    rootRedirect: changes.rootRedirect ?? null,
    notFoundRedirect: changes.notFoundRedirect ?? null,
    createdAt: Date.now(),
  });
  if (made === undefined) throw new DomainCommandError(`a domain ${name.host} exists already`);
  return { line: `domain ${made.host} added (${made.baseUrl})` };
}

async function listDomains(store: Store, home: ShortDomain, json: boolean) {
  const [domains, counts] = await Promise.all([store.listDomains(), store.countLinksByDomain()]);
  const all: DomainJson[] = [home, ...domains.map(asShort)].map((d) =>
    domainJson(d, counts.get(d.id) ?? 0),
  );
  if (json) return { stdout: `${JSON.stringify(all, null, 2)}\n` };
  const rows = [
    ['DOMAIN', 'BASE URL', 'LINKS', 'ROOT REDIRECT', 'NOT-FOUND REDIRECT'],
    ...all.map((d) => [
      d.default ? `${d.domain} (default)` : d.domain,
      d.base_url,
      String(d.links),
      d.default ? 'web UI' : (d.root_redirect ?? '-'),
      d.not_found_redirect ?? '-',
    ]),
  ].map((row) => row.map(printable));
  const widths = (rows[0] as string[]).map((_, i) =>
    Math.max(...rows.map((row) => (row[i] as string).length)),
  );
  const table = rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
  return { line: `${plural(all.length, 'domain')}\n${table}` };
}

async function setDomain(store: Store, home: ShortDomain, host: string, changes: DomainChanges) {
  refuseDefault(home, host);
  const changed = await store.updateDomain((await stored(store, host)).id, changes);
  if (changed === undefined) throw new DomainCommandError(`no domain ${host}`);
  return {
    line: `domain ${host} changed: root redirect ${shown(changed.rootRedirect, 'the web UI')}, not-found redirect ${shown(changed.notFoundRedirect, '404')}`,
  };
}

async function removeDomain(store: Store, home: ShortDomain, host: string, withLinks: boolean) {
  refuseDefault(home, host);
  const domain = await stored(store, host);
  const links = (await store.countLinksByDomain()).get(domain.id) ?? 0;
  const removal = await store.deleteDomain(domain.id, withLinks);
  if (removal === 'missing') throw new DomainCommandError(`no domain ${host}`);
  if (removal === 'in-use') {
    throw new DomainCommandError(
      `domain ${host} still has ${plural(links, 'link')}: move or delete them first, or remove it --with-links`,
    );
  }
  return {
    line: withLinks
      ? `domain ${host} removed, with its ${plural(links, 'link')} and their clicks`
      : `domain ${host} removed`,
  };
}
