// Copies one kurz database into another, empty one, whichever the engines: everything
// is read from one snapshot of the source, streamed in chunks by key (each chunk one
// transaction on the target), then checked against that same snapshot.

import { count, type Progress } from './progress.ts';
import {
  type Contents,
  type CopySide,
  type DomainTotals,
  keyOf,
  type LinkCount,
  type LinkTotals,
  type Row,
  type Snapshot,
  TABLES,
  type Table,
} from './tables.ts';

/**
 * Rows read and written at a time: large enough for few round trips, small enough for
 * flat memory.
 */
export const CHUNK_ROWS: Record<Table, number> = {
  users: 5000,
  domains: 5000,
  links: 5000,
  link_tags: 5000,
  clicks: 5000,
  click_strings: 5000,
  click_agents: 5000,
  click_records: 5000,
  click_days: 5000,
  api_keys: 5000,
  // Each row holds a whole message body (a batch of clicks may be large).
  webhooks: 1000,
  webhook_deliveries: 500,
  reports: 5000,
  blocked_hosts: 5000,
};
/** Mismatched links named one by one; the rest are counted. */
const MISMATCHES_NAMED = 5;

export type CopyOutcome =
  | { kind: 'refused'; reason: string }
  | { kind: 'copied'; copied: Contents; links: number; problems: string[] };

const KINDS: (keyof Contents)[] = [...TABLES, 'settings'];

/** What a row of each kind is called, one and many. */
const NOUNS: Record<keyof Contents, [one: string, many: string]> = {
  users: ['user', 'users'],
  domains: ['domain', 'domains'],
  links: ['link', 'links'],
  link_tags: ['link tag', 'link tags'],
  clicks: ['click in the log', 'clicks in the log'],
  click_strings: ['click string', 'click strings'],
  click_agents: ['user agent', 'user agents'],
  click_records: ['click record', 'click records'],
  click_days: ['daily count', 'daily counts'],
  api_keys: ['API key', 'API keys'],
  webhooks: ['webhook', 'webhooks'],
  webhook_deliveries: ['webhook delivery', 'webhook deliveries'],
  reports: ['report', 'reports'],
  blocked_hosts: ['blocked host', 'blocked hosts'],
  settings: ['setting', 'settings'],
};

function rowsOf(kind: keyof Contents, n: number): string {
  return `${count(n)} ${NOUNS[kind][n === 1 ? 0 : 1]}`;
}

/** The rows of every kind, those of none included: what a copy moved. */
export function describeCopied(contents: Contents): string {
  return KINDS.map((kind) => rowsOf(kind, contents[kind])).join(', ');
}

function describeContents(contents: Contents): string {
  return KINDS.filter((kind) => contents[kind] > 0)
    .map((kind) => rowsOf(kind, contents[kind]))
    .join(', ');
}

/**
 * Copies `source` into `target`, which must hold no data (settings other than the
 * health probe count as data): otherwise nothing is written and the outcome says why.
 */
export async function copyDatabase(
  source: CopySide,
  target: CopySide,
  progress: Progress,
): Promise<CopyOutcome> {
  const present = await target.withSnapshot((snapshot) => snapshot.contents());
  if (KINDS.some((kind) => present[kind] > 0)) {
    return {
      kind: 'refused',
      reason: `the target ${target.label} is not empty (${describeContents(present)}); kurz copy only writes into an empty database, and changed nothing`,
    };
  }
  return source.withSnapshot(async (snapshot) => {
    const copied = await snapshot.contents();
    const highWater = await snapshot.highWater();
    await target.target.resetDerived();
    for (const table of TABLES) {
      const bar = progress.table(table, copied[table]);
      // The next chunk is read while this one is written.
      const chunk = CHUNK_ROWS[table];
      let next = snapshot.rows(table, undefined, chunk);
      for (;;) {
        const rows = await next;
        if (rows.length === 0) break;
        const writing = target.target.insert(table, rows);
        next = snapshot.rows(table, keyOf(table, rows.at(-1) as Row), chunk);
        // Awaited on the next turn; if the write fails first, its failure is the one told.
        next.catch(() => {});
        await writing;
        bar.advance(rows.length);
      }
      bar.done();
    }
    // A link's clicks are in its day counts and in the log: both must be in first.
    await target.target.countClicks();
    const bar = progress.table('settings', copied.settings);
    const settings = await snapshot.settings();
    await target.target.insertSettings(settings);
    bar.advance(settings.length);
    bar.done();
    await target.target.moveSequences(highWater);
    progress.note('comparing the copy with the source');
    const { problems, links } = await verify(snapshot, target);
    return { kind: 'copied', copied, links, problems };
  });
}

/**
 * Compares the target with the source snapshot: rows per table, the settings, links
 * per owner and per domain, and each link's clicks (its humans and bots day counts plus
 * its clicks in the log, on both sides); and on the target, that the count its store
 * shows (SQLite's counts file and log tail, PostgreSQL's link_clicks) is those clicks.
 * Returns what differs.

 */
async function verify(
  source: Snapshot,
  target: CopySide,
): Promise<{ problems: string[]; links: number }> {
  return target.withSnapshot(async (copy) => {
    const problems: string[] = [];
    const [before, after] = [await source.contents(), await copy.contents()];
    for (const kind of KINDS) {
      if (before[kind] !== after[kind]) {
        problems.push(
          `${kind}: ${count(before[kind])} in the source, ${count(after[kind])} in the target`,
        );
      }
    }
    const [settingsBefore, settingsAfter] = [await source.settings(), await copy.settings()];
    if (JSON.stringify(settingsBefore) !== JSON.stringify(settingsAfter)) {
      problems.push('settings: the values differ');
    }
    problems.push(...compareTotals(await source.linkTotals(), await copy.linkTotals()));
    problems.push(...compareDomains(await source.domainTotals(), await copy.domainTotals()));
    const counts = await compareCounts(source.linkCounts(), copy.linkCounts());
    problems.push(...counts.problems);
    return { problems, links: counts.links };
  });
}

function compareTotals(before: LinkTotals, after: LinkTotals): string[] {
  const owners = new Set([...before.keys(), ...after.keys()]);
  const differ = [...owners].filter((owner) => before.get(owner) !== after.get(owner));
  if (differ.length === 0) return [];
  return [
    `links per owner differ for ${differ.length} ${differ.length === 1 ? 'owner' : 'owners'} (${differ
      .slice(0, MISMATCHES_NAMED)
      .map(
        (o) => `${o === 0 ? 'no one' : `user ${o}`}: ${before.get(o) ?? 0} vs ${after.get(o) ?? 0}`,
      )
      .join(', ')})`,
  ];
}

/** Links per domain: a copy that lost links' domains would hold every code on the default one. */
function compareDomains(before: DomainTotals, after: DomainTotals): string[] {
  const domains = new Set([...before.keys(), ...after.keys()]);
  const differ = [...domains].filter((domain) => before.get(domain) !== after.get(domain));
  if (differ.length === 0) return [];
  return [
    `links per domain differ for ${differ.length} ${differ.length === 1 ? 'domain' : 'domains'} (${differ
      .slice(0, MISMATCHES_NAMED)
      .map(
        (d) =>
          `${d === 0 ? 'the default one' : `domain ${d}`}: ${before.get(d) ?? 0} vs ${after.get(d) ?? 0}`,
      )
      .join(', ')})`,
  ];
}

async function* oneByOne(chunks: AsyncIterable<LinkCount[]>): AsyncGenerator<LinkCount> {
  for await (const chunk of chunks) yield* chunk;
}

/** Links named one by one in a problem, then how many more. */
class Differing {
  private readonly named: string[] = [];
  private n = 0;

  add(describe: () => string): void {
    this.n++;
    if (this.named.length < MISMATCHES_NAMED) this.named.push(describe());
  }

  /** The problem, if any link differed: `what` for n links, then (`how`: the links named). */
  problem(what: (links: string) => string, how: string): string[] {
    if (this.n === 0) return [];
    const more = this.n > this.named.length ? `, and ${this.n - this.named.length} more` : '';
    return [
      `${what(`${count(this.n)} ${this.n === 1 ? 'link' : 'links'}`)} (${how}: ${this.named.join(', ')}${more})`,
    ];
  }
}

/**
 * Walks both lists of link counts (each in id order) side by side. The count the
 * source's store shows is not compared: a SQLite source being served folds clicks into
 * its counts file meanwhile, outside the snapshot of its main file.
 */
async function compareCounts(
  before: AsyncIterable<LinkCount[]>,
  after: AsyncIterable<LinkCount[]>,
): Promise<{ problems: string[]; links: number }> {
  const [a, b] = [oneByOne(before), oneByOne(after)];
  const copied = new Differing();
  const shown = new Differing();
  let links = 0;
  let [x, y] = [await a.next(), await b.next()];
  while (!x.done || !y.done) {
    const idA = x.done ? Number.POSITIVE_INFINITY : x.value[0];
    const idB = y.done ? Number.POSITIVE_INFINITY : y.value[0];
    const id = Math.min(idA, idB);
    const clicksA = idA === id && !x.done ? x.value[1] : undefined;
    const [clicksB, shownB] = idB === id && !y.done ? [y.value[1], y.value[2]] : [];
    links++;
    if (clicksA !== clicksB) {
      copied.add(() => `link ${id}: ${clicksA ?? 'missing'} vs ${clicksB ?? 'missing'}`);
    }
    if (clicksB !== shownB) {
      shown.add(() => `link ${id}: ${clicksB} vs ${shownB}`);
    }
    if (idA === id) x = await a.next();
    if (idB === id) y = await b.next();
  }
  return {
    problems: [
      ...copied.problem((n) => `click counts differ for ${n}`, 'source vs target'),
      ...shown.problem(
        (n) => `the target shows click counts other than its clicks for ${n}`,
        'clicks vs shown',
      ),
    ],
    links,
  };
}
