// The operator's tools on the command line: what each takes, what its --help says, and
// how its command line is read. Each works on the database the server's --db
// (DATABASE_URL) names, safely while a kurz serves it; the server's other flags are
// accepted (one environment file serves both) and ignored.

import { gather, readWords, type Word } from './args.ts';
import { type Config, ConfigError, DEFAULTS } from './config.ts';
import { SERVER_FLAG_ENVS, serverConfig } from './flags.ts';

/**
 * The operator's tools: each reads the server's flags (for --db and the rest, so one
 * environment file serves both) and flags and arguments of its own.
 */
export const TOOLS = ['user', 'domain', 'backup', 'export', 'import'] as const;
export type ToolName = (typeof TOOLS)[number];

/** A tool's own flags: their environment variables and whether they take a value. */
export interface ToolSpec {
  /** The line `kurz --help` gives it, after its synopsis. */
  synopsis: string;
  /** What `kurz TOOL --help` prints. */
  usage: string;
  /** `repeated`: the flag may be given several times, each value kept (in `lists`). */
  flags: Record<string, { env?: string; value: boolean; repeated?: boolean }>;
  /** How many arguments (words that are not flags) it takes. */
  args: { min: number; max: number; what: string };
}

/** A tool's flags as given: a value, or true for a switch. */
export type ToolOptions = Map<string, string | true>;

/** A tool's command line, parsed: its arguments and own flags, and the server's configuration. */
export interface ToolCommand {
  kind: ToolName;
  config: Config;
  args: string[];
  options: ToolOptions;
  /** Each value of a flag that may be given several times, in the order given. */
  lists: Map<string, string[]>;
}

export function isTool(word: string): word is ToolName {
  return (TOOLS as readonly string[]).includes(word);
}

const DB_FLAG = `  --db PATH|URL          DATABASE_URL  the database: a SQLite file or a postgres:// URL
                                       (default ${DEFAULTS.db})`;

export const TOOL_SPECS: Record<ToolName, ToolSpec> = {
  user: {
    synopsis: 'add, list, promote, disable, change the password of, or remove accounts',
    args: {
      min: 1,
      max: 2,
      what: 'an action: add EMAIL, list, passwd EMAIL, promote EMAIL, demote EMAIL, disable EMAIL, enable EMAIL or remove EMAIL',
    },
    flags: {
      '--admin': { value: false },
      '--with-links': { value: false },
      '--keep-links': { value: false },
    },
    usage: `Usage:
  kurz user add EMAIL [--admin]
                            create an account (an admin with --admin); the password is
                            asked for on a terminal, or read from the first line of stdin
  kurz user list            list the accounts: id, e-mail, links, role, status, created
  kurz user passwd EMAIL    set a new password (asked for, or read from stdin); the
                            account's tokens stop working at once
  kurz user promote EMAIL   make an account an admin: it reaches /api/admin and the
                            web UI's administration with its session
  kurz user demote EMAIL    make an admin a plain user again
  kurz user disable EMAIL   disable an account: its tokens and API keys stop working at
                            once and it cannot sign in; its links keep working
  kurz user enable EMAIL    enable a disabled account again
  kurz user remove EMAIL --with-links | --keep-links
                            remove an account and its tokens and API keys, with its links
                            (and their clicks) or keeping its links as links of no one

Flags:
${DB_FLAG}
  --admin                              add: make the account an admin
  --with-links                         remove: delete the account's links too
  --keep-links                         remove: keep the links, owned by no one

Safe while kurz serves the same database: a removed or disabled account, a changed
password or role takes effect at once (a disabled account's next request is 401).
`,
  },
  domain: {
    synopsis: 'add, list, change or remove the short domains links are served under',
    args: { min: 1, max: 2, what: 'an action: add URL, list, set URL or remove URL' },
    flags: {
      '--root-redirect': { value: true },
      '--not-found-redirect': { value: true },
      '--with-links': { value: false },
      '--json': { value: false },
    },
    usage: `Usage:
  kurz domain add URL [--root-redirect URL] [--not-found-redirect URL]
                            add a short domain: URL is its base URL, such as
                            https://go.example.com (scheme, host, optional port, nothing after)
  kurz domain list [--json] list the domains, the default one (--base-url) first: domain,
                            base URL, links, root redirect, not-found redirect
  kurz domain set URL [--root-redirect URL|''] [--not-found-redirect URL|'']
                            change where a domain's bare / and its unknown codes go ('': none)
  kurz domain remove URL [--with-links]
                            remove a domain; one with links only --with-links, which
                            deletes its links (and their clicks) too

A domain is named by its base URL or its host (go.example.com, go.example.com:8443).
The default domain is --base-url's (BASE_URL, as the server reads it): it is not added,
changed or removed here.

Flags:
${DB_FLAG}
  --root-redirect URL                  where the domain's bare / sends visitors (default: the web UI)
  --not-found-redirect URL             where a code it has no link for sends them (default: 404)
  --with-links                         remove: delete the domain's links too
  --json                               list: the domains as JSON, as GET /api/domains
                                       shows them to the admin token

Safe while kurz serves the same database: every instance serves the change within
a second (SQLite: the server sees the file change; PostgreSQL: a notice).
`,
  },
  backup: {
    synopsis: 'write a consistent copy of a SQLite database, even while kurz serves it',
    args: { min: 1, max: 1, what: 'the FILE to write' },
    flags: {},
    usage: `Usage:
  kurz backup FILE [--db PATH]

Writes a consistent copy of the SQLite database to FILE while kurz keeps serving it:
one snapshot (SQLite's VACUUM INTO), complete without a -wal file, owner-only (mode
600: it holds password hashes and the token key). It is written as FILE.partial and
renamed when complete, so FILE is never half-written. FILE must not exist (nor
FILE-wal, FILE-shm or FILE-counts, which kurz would read with it), and the database
must: a missing one is not created. It is read as it is, without migrations. Ends
with one line: the file, its size and the time taken.

Start from the copy with kurz --db FILE, or, kurz stopped, put it in the place of the
database after removing the database's -wal, -shm and -counts files. The click counts
file (DB-counts) is not copied: kurz rebuilds it from the database.

For PostgreSQL, kurz backup refuses (exit 2): use the database's own tools, e.g.
  pg_dump --format=custom --file kurz.dump "$DATABASE_URL"
and pg_restore --dbname=URL kurz.dump into an empty database to bring it back
(see docs/production.md, "Backups").

Flags:
${DB_FLAG}
`,
  },
  export: {
    synopsis: 'write links (and their clicks) as JSON Lines or CSV',
    args: { min: 0, max: 1, what: 'at most one FILE (- or none for stdout)' },
    flags: {
      '--format': { value: true },
      '--clicks': { value: false },
      '--owner': { value: true },
    },
    usage: `Usage:
  kurz export [FILE] [--format jsonl|csv] [--clicks] [--owner EMAIL]

Writes every link to FILE, or to stdout when FILE is - or left out: its code, domain
(its host; none for the default one, so an import puts it on the importing kurz's
default domain), URL, creation time, owner's e-mail, source, expiry, click limit,
password hash, click count and tags. The format is --format, else FILE's extension (.csv), else JSON Lines, whose
first line says the export's version. kurz import reads both back. A FILE is written
under a temporary name and renamed when complete, readable by its owner only.

An export holds the hashes of link passwords: keep it as safe as the database.

Flags:
${DB_FLAG}
  --format jsonl|csv                   the format (default: from FILE's extension, else jsonl)
  --clicks                             add each link's click records after it (JSON Lines only)
  --owner EMAIL                        only the links of this account

Safe while kurz serves the same database: links are read a page at a time.
`,
  },
  import: {
    synopsis: 'read links from kurz, YOURLS, Kutt, Shlink or Bitly exports',
    args: { min: 1, max: 1, what: 'the FILE to read (- for stdin)' },
    flags: {
      '--from': { value: true },
      '--owner': { value: true },
      '--dry-run': { value: false },
      '--rename-conflicts': { value: false },
      '--domain-map': { value: true, repeated: true },
    },
    usage: `Usage:
  kurz import FILE [--from FORMAT] [--owner EMAIL] [--dry-run] [--rename-conflicts]
                   [--domain-map FROM=TO ...]

Reads the links of FILE (- for stdin) into the database, keeping each link's code,
creation time and tags. A link already there (same domain, code, URL and owner) is
skipped, so running it again imports nothing new. A code held by another link of its
domain, or one kurz does not allow (reserved, too long, other characters), is a
conflict: reported with its line and skipped, or with --rename-conflicts imported
under a new code. A bad row (no URL, a URL kurz refuses, a date it cannot read, tags
kurz does not allow, a wrong number of fields, broken JSON, a record
over 1 MiB) is reported with its line number and skipped; the others are imported.
Text of the file in reports shows control characters as escapes (\\x1b). Ends with a
summary: rows read, imported, skipped, conflicts, bad rows. Exits 0 once the file was
read, whatever its rows; 1 when it cannot be read, the owner does not exist, or a
domain is not placed.

Each link goes on the domain its row names: a kurz export's (none: the default one),
Shlink's domain column (empty: the default one), the host of Bitly's short links. The
file's default domain is this kurz's default one; any other goes to the domain of this
kurz with the same host, or where --domain-map says. A file with links on a domain
placed neither way is refused before anything is stored, naming each such domain with
its rows: no domain is made, and no link is put on another domain unasked.


FORMAT is one of (default: recognised from the file's first lines, and said):
  kurz     kurz export, JSON Lines (with its click records, if exported with --clicks)
           or CSV; each link goes to the account of its owner's e-mail
  yourls   YOURLS: its yourls_url table as CSV (keyword, url, title, timestamp, ip,
           clicks), with or without a header
  kutt     Kutt: its API's links (/api/v2/links answers, as JSON) or a CSV of them
           (address, target, created_at, expire_in)
  shlink   Shlink: the web client's CSV export, the CSV of shlink-importer, or the
           API's short URLs (JSON), with their validUntil and maxVisits
  bitly    Bitly: the CSV of its link export (Link, Custom Link, Destination URL or
           Long URL, Date Created), or its API's bitlinks (JSON)
Click totals of other shorteners are not turned into clicks.

Flags:
${DB_FLAG}
  --from FORMAT                        the file's format (see above)
  --owner EMAIL                        the account every link goes to (without it: the
                                       owners of a kurz export, else no one, as in open mode)
  --dry-run                            read and check everything, report, store nothing
  --rename-conflicts                   a conflict's link is imported under a new code
                                       (reported); a second run recognises it by URL and date
  --domain-map FROM=TO                 the links of the file's domain FROM (a host, or
                                       default: the file's default domain) go to TO, a
                                       domain of this kurz (its host, or default); repeat it
                                       for several, e.g. --domain-map bit.ly=default
  --blocklist FILE                     refuse targets on this list, as the server does

Safe while kurz serves the same database: links go in batches of one transaction,
and a serving kurz redirects them at once. A progress bar shows on a terminal.
`,
  },
};

/**
 * `kurz TOOL [ARGS] [FLAGS]`: the tool's own flags (a switch takes no value) and
 * arguments, and the server's flags for the database it works on. The tool's own
 * mistakes are reported before those of the server's flags.
 */
export function parseTool(
  name: ToolName,
  args: readonly string[],
  env: Record<string, string | undefined>,
): ToolCommand {
  const spec = TOOL_SPECS[name];
  const positional: string[] = [];
  const options: ToolOptions = new Map();
  const lists = new Map<string, string[]>();
  for (const [flag, { env: variable, value }] of Object.entries(spec.flags)) {
    const fromEnv = variable === undefined ? undefined : env[variable];
    if (fromEnv !== undefined && fromEnv !== '') options.set(flag, value ? fromEnv : true);
  }
  const takesValue: Record<string, boolean> = {};
  for (const flag of Object.keys(SERVER_FLAG_ENVS)) takesValue[flag] = true;
  for (const [flag, { value }] of Object.entries(spec.flags)) takesValue[flag] = value;
  const serverWords: Word[] = [];
  for (const word of readWords(args, takesValue)) {
    if (word.kind === 'argument') {
      positional.push(word.value);
      continue;
    }
    const { flag } = word;
    const own = Object.hasOwn(spec.flags, flag) ? spec.flags[flag] : undefined;
    if (own === undefined) {
      if (!Object.hasOwn(SERVER_FLAG_ENVS, flag)) {
        throw new ConfigError(`unknown flag ${flag} for ${name} (see kurz ${name} --help)`);
      }
      serverWords.push(word);
    } else if (!own.value) {
      if (word.inline) throw new ConfigError(`${flag} takes no value`);
      options.set(flag, true);
    } else {
      if (word.value === undefined) throw new ConfigError(`${flag} needs a value`);
      if (own.repeated) lists.set(flag, [...(lists.get(flag) ?? []), word.value]);
      else options.set(flag, word.value);
    }
  }
  const { min, max, what } = spec.args;
  if (positional.length < min || positional.length > max) {
    throw new ConfigError(`${name} needs ${what} (see kurz ${name} --help)`);
  }
  const config = serverConfig(gather(serverWords, env, SERVER_FLAG_ENVS, name));
  return { kind: name, config, args: positional, options, lists };
}
