// The storage interface: the handful of operations kurz needs, and nothing of HTTP.
// One implementation per database (SQLite, the embedded default, and PostgreSQL for
// several instances on one database), chosen at start-up from --db.

export interface User {
  id: number;
  email: string;
}

export interface UserWithHash extends User {
  /** '' for an account with no password (made through OIDC): password login refuses it. */
  passwordHash: string;
  /** The version this user's tokens carry (see ModerationStore.standing). */
  tokenVersion: number;
  /** Whether the user reaches /api/admin (see ModerationStore). */
  admin: boolean;
  /** When an admin disabled the account (sign-in answers 403); null: enabled. */
  disabledAt: number | null;
}

/** The default short domain's id: --base-url's, which has no row in `domains`. */
export const DEFAULT_DOMAIN = 0;

import type { ClickRow, DayCount } from '../domain/clicks.ts';
import type { DeliveryType, WebhookEvent } from '../domain/webhooks.ts';
import type { AccountStore, OidcAccountStore } from './accounts.ts';
import type { Link, LinkChanges, LinkDetail, RedirectTarget } from './link-records.ts';
import type { FoundLinks, LinkSearch } from './link-search.ts';
import type { ModerationStore } from './moderation.ts';
import type { ReportStore } from './reports.ts';
import type { TagStore } from './tags.ts';
import type { TlsStore } from './tls.ts';

export type {
  Link,
  LinkChanges,
  LinkDetail,
  LinkRouting,
  LinkTarget,
  RedirectTarget,
} from './link-records.ts';

// Plain types (not interfaces) so they pass as drizzle placeholder records.
export type NewLink = {
  userId: number | null;
  /** DEFAULT_DOMAIN when absent. */
  domainId?: number;
  originalUrl: string;
  shortCode: string;
  /** Lower-cased and distinct; none when absent. */
  tags?: readonly string[];
  source: string | null;
  createdAt: number;
  expiresAt?: number | null;
  maxClicks?: number | null;
  passwordHash?: string | null;
  /** Redirect rules, A/B variants and preview as JSON text (LinkTarget's); none when absent. */
  rules?: string | null;
  variants?: string | null;
  preview?: string | null;
  /**
   * Clicks already counted against maxClicks (0 when absent): an imported link keeps the
   * room it had left.
   */
  limitedClicks?: number;
  /** When an admin disabled it, and why (an imported link keeps them); enabled when absent. */
  disabledAt?: number | null;
  disabledReason?: string | null;
  /**
   * The most links `userId` may own, this one included (accounts mode's quota); absent
   * or 0: no limit. Checked in the inserting transaction, so it holds under concurrency.
   */
  ownerLimit?: number;
};

/** The answer for a link whose owner already had `ownerLimit` links: nothing was stored. */
export const LINK_LIMIT_REACHED = 'link-limit-reached';

/** What became of a new link: stored, its code taken (undefined), or its owner at the limit. */
export type CreatedLink = Link | undefined | typeof LINK_LIMIT_REACHED;

export type Click = {
  linkId: number;
  source: string | null;
  querySource: string | null;
  referrer: string | null;
  userAgent: string | null;
  createdAt: number;
  /**
   * The client address, in memory only: the click writer turns it into `country` when
   * the batch is written, and no store ever sees it.
   */
  address: string | null;
  /** ISO 3166-1 alpha-2 code of the client address; null when unknown. */
  country: string | null;
  /** What served it: `rule:N` or `variant:N`; null or absent: the link's own target. */
  route?: string | null;
  /**
   * The link has max_clicks: the store counts this click only while the limit allows,
   * in the batch's transaction, so the limit is exact however many instances click.
   */
  limited: boolean;
};

/** Indexes (in the batch) of limited clicks the store refused, the limit reached; undefined: none. */
export type RefusedClicks = ReadonlySet<number> | undefined;

/** `owner: null` lists every link (open mode); a number lists that user's. */
export interface LinkQuery {
  owner: number | null;
  limit?: number;
  offset: number;
}

export interface LinkPage {
  links: Link[];
  total: number;
}

/** A place in the newest-first order: the list continues with links older than this one. */
export interface LinkCursor {
  createdAt: number;
  id: number;
}

/** The next `limit` links after `after` in the newest-first order, for streaming a whole list. */
export interface LinkChunkQuery {
  owner: number | null;
  after: LinkCursor;
  limit: number;
}

/** The link holding a code, as `kurz import` compares it with a row it reads. */
export interface CodeHolder {
  domainId: number;
  shortCode: string;
  userId: number | null;
  originalUrl: string;
  createdAt: number;
}

/** A link's traffic over a range of days, read from one snapshot. */
export interface LinkTraffic {
  /** Rolled-up counts of the range's days (values are strings, '' for the human/bot totals). */
  days: DayCount[];
  /**
   * The link's clicks of the range that are not rolled up yet, folded into day counts as
   * the rollup will fold them (values as in `days`). The store reads them grouped or as a
   * stream, never whole: a backlog of a million clicks costs what its distinct values do.
   */
  pending: DayCount[];
}

/** A registered webhook. */
export interface Webhook {
  id: number;
  /** The owner; null for open mode's webhooks (the operator's, as its links are no one's). */
  userId: number | null;
  url: string;
  /** `whsec_…`: signs every delivery; shown to the owner only when the webhook is made. */
  secret: string;
  /** What it is told of, in WEBHOOK_EVENTS order. */
  events: WebhookEvent[];
  createdAt: number;
}

export type NewWebhook = Omit<Webhook, 'id'>;

/** The answer for a webhook whose owner already had as many as allowed: nothing was stored. */
export const WEBHOOK_LIMIT_REACHED = 'webhook-limit-reached';

/** One message of a webhook's outbox, as its owner may see it. */
export interface DeliveryRecord {
  id: number;
  webhookId: number;
  type: DeliveryType;
  /** When the event happened (ms): the message's timestamp. */
  createdAt: number;
  attempts: number;
  /** When it is tried (again); null once delivered or given up. */
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  /** The last attempt's HTTP status (null: no answer) and what went wrong. */
  lastStatus: number | null;
  lastError: string | null;
}

/** A message due to be sent, with what sending needs, claimed by one sender for a while. */
export interface DueDelivery {
  id: number;
  webhookId: number;
  type: DeliveryType;
  /** The event's record, JSON text (see domain/webhooks.ts). */
  payload: string;
  createdAt: number;
  attempts: number;
  url: string;
  secret: string;
}

/** What became of one attempt to send a message. */
export interface DeliveryOutcome {
  id: number;
  /** When the attempt ended (ms). */
  at: number;
  status: number | null;
  error: string | null;
  delivered: boolean;
  /** When a failed message is tried again; null: given up. */
  nextAttemptAt: number | null;
}

/** What the database holds in all, for the metrics. */
export interface StoreTotals {
  links: number;
  users: number;
}

/** Told the domain and code of a link whose row changed on another instance. */
export type LinkChanged = (code: string, domainId: number) => void;

/** A short domain besides the default one. */
export interface Domain {
  id: number;
  /** scheme://host[:port], normalised. */
  baseUrl: string;
  /** The canonical host (hostname[:port]) a request's Host is compared with. */
  host: string;
  /** Where a bare `/` goes; null: the web UI, as on the default domain. */
  rootRedirect: string | null;
  /** Where an unknown code goes; null: the JSON 404. */
  notFoundRedirect: string | null;
  createdAt: number;
}

export type NewDomain = Omit<Domain, 'id'>;

/** A change to a domain's answers; an absent field is left as it is, null clears it. */
export type DomainChanges = {
  rootRedirect?: string | null;
  notFoundRedirect?: string | null;
};

/** What became of a domain's removal. */
export type DomainRemoval = 'removed' | 'missing' | 'in-use';

/** The short domains besides the default one, kept in every instance's memory. */
export interface DomainStore {
  /** Every domain, oldest first. */
  listDomains(): Promise<Domain[]>;
  /** Links per domain id (the default one's included), for the domain list. */
  countLinksByDomain(): Promise<Map<number, number>>;
  /** Adds a domain; undefined when its host is taken. Announced to every instance. */
  createDomain(domain: NewDomain): Promise<Domain | undefined>;
  /** Changes a domain's answers; undefined when it is gone. Announced. */
  updateDomain(id: number, changes: DomainChanges): Promise<Domain | undefined>;
  /**
   * Removes a domain: refused while links use it, unless `withLinks`, which removes
   * them too (each with its clicks, and its link.deleted messages). Announced.
   */
  deleteDomain(id: number, withLinks: boolean): Promise<DomainRemoval>;
  /**
   * Calls `changed` when a domain is added, changed or removed by any instance (or
   * notices may have been missed), so the registry reads them again. Returns the stop.
   */
  watchDomains(changed: () => void): () => void;
}

/** Links: made, listed, found, changed and removed, each change with its outbox messages. */
export interface LinkStore {
  /**
   * Inserts links in one transaction. Each result is the stored link, undefined when
   * its short code was already taken (the unique index decides, also within the batch),
   * or LINK_LIMIT_REACHED when its owner already has `ownerLimit` links. In the same
   * transaction, each link made is put in the outbox of its owner's webhooks that want
   * `link.created` (so does each change below, for the event it is).
   */
  createLinks(links: readonly NewLink[]): Promise<CreatedLink[]>;
  listLinks(query: LinkQuery): Promise<LinkPage>;
  /** Keyset pagination: one short read per call, none held open between chunks, each as cheap. */
  listLinksAfter(query: LinkChunkQuery): Promise<Link[]>;
  /** The same chunks with every setting of each link, for `kurz export`. */
  listLinkDetailsAfter(query: LinkChunkQuery): Promise<LinkDetail[]>;
  /**
   * A page of the links a search lets through, in its order, with their exact clicks and
   * the total, from one snapshot. Ordered by clicks, the order uses the counts the click
   * rollup has folded so far (a second or so behind the newest clicks).
   */
  searchLinks(search: LinkSearch): Promise<FoundLinks<Link>>;
  /** The same page with every setting and the tags of each link (GET /api/links?view=full). */
  searchLinkDetails(search: LinkSearch): Promise<FoundLinks<LinkDetail>>;
  /**
   * The links holding any of `codes`, in one query whatever their number (a batch of
   * `kurz import`, a few thousand); a code no link holds is left out.
   */
  findLinksByCodes(codes: readonly string[], domainId?: number): Promise<CodeHolder[]>;
  /**
   * The links of `owner` (null: no one's) made at any of `times` (ms), in one query: how
   * `kurz import` recognises a row it imported before under a new code.
   */
  findLinksCreatedAt(owner: number | null, times: readonly number[]): Promise<CodeHolder[]>;
  /** Which of these links have a password, in one query (open mode hides their targets). */
  protectedLinkIds(ids: readonly number[]): Promise<number[]>;
  /** The link of a code on a domain (DEFAULT_DOMAIN when absent), with its owner's age (a primary-key join). */
  findLinkByCode(code: string, domainId?: number): Promise<RedirectTarget | undefined>;
  /** A link with its count and settings, for GET /api/links/{code} and the owner check. */
  findLinkDetail(code: string, domainId?: number): Promise<LinkDetail | undefined>;
  /**
   * Changes a link in one transaction and announces its code to every instance (as a
   * create does); the link as it is afterwards, or undefined when it is gone.
   */
  updateLink(id: number, changes: LinkChanges): Promise<LinkDetail | undefined>;
  /**
   * Removes a link with its click records, counts and rollups, and announces its code;
   * false when it was already gone.
   */
  deleteLink(id: number): Promise<boolean>;
}

/** The click log: the redirects' batches, imported clicks, and their move into records. */
export interface ClickStore {
  /**
   * Commits all clicks of a batch, counters and records, in one transaction, or none.
   * Limited clicks past their link's max_clicks are not stored and are answered here.
   * The same transaction puts one `clicks` message in the outbox of each webhook that
   * wants clicks, holding its owner's clicks of the batch; with no such webhook, the
   * batch costs next to nothing more.
   */
  recordClicks(clicks: readonly Click[]): Promise<RefusedClicks>;
  /**
   * Appends clicks of another time (`kurz import` of an export made with --clicks), in
   * one transaction: counted and rolled up as any click, never refused by a limit (the
   * link's own limited_clicks says what was counted). Safe while a kurz serving the same
   * database writes clicks.
   */
  importClicks(clicks: readonly Click[]): Promise<void>;
  /**
   * Moves clicks from the log into click records and day rollups, as the store's own
   * background work does, until the log holds none committed before the call (tests and
   * benchmarks call it to see the rolled-up state). Returns how many moved.
   */
  rollUpClicks(): Promise<number>;
  /** Removes click records made before `before` (ms); day rollups stay. Returns how many. */
  pruneClickRecords(before: number): Promise<number>;
}

/** What stats and the CSV export read of a link's clicks. */
export interface AnalyticsStore {
  /** A link's day counts in [fromDay, toDay] (UTC days since the epoch), and what is not rolled up. */
  linkTraffic(linkId: number, fromDay: number, toDay: number): Promise<LinkTraffic>;
  /** A link's click records with ids after `afterId`, oldest first, at most `limit`. */
  clickRows(linkId: number, afterId: number, limit: number): Promise<ClickRow[]>;
}

/** Webhooks and their outbox, as the routes and the dispatcher use them. */
export interface WebhookStore {
  /**
   * Registers a webhook unless its owner already has `limit` (checked in the inserting
   * transaction, so registrations at once cannot pass it together).
   */
  createWebhook(hook: NewWebhook, limit: number): Promise<Webhook | typeof WEBHOOK_LIMIT_REACHED>;
  /** An owner's webhooks (null: open mode's), oldest first. */
  listWebhooks(owner: number | null): Promise<Webhook[]>;
  /** The webhook of that id when `owner` has it. */
  findWebhook(id: number, owner: number | null): Promise<Webhook | undefined>;
  /** Removes an owner's webhook with its outbox; false when the owner has none of that id. */
  deleteWebhook(id: number, owner: number | null): Promise<boolean>;
  /** A webhook's latest `limit` messages, newest first. */
  listDeliveries(webhookId: number, limit: number): Promise<DeliveryRecord[]>;
  /** Puts a message in a webhook's outbox, due at once. */
  addDelivery(
    webhookId: number,
    type: DeliveryType,
    payload: string,
    now: number,
  ): Promise<DeliveryRecord>;
  /**
   * Claims up to `limit` messages due at `now`, oldest due first, for `leaseMs`: until
   * then no sender (of any instance) claims them again, and past it, a sender that died
   * meanwhile has its messages sent by another. A `clicks` message never tried before
   * takes in the other untried `clicks` messages of its webhook (store/outbox.ts), so a
   * receiver gets the clicks of several batches in one call.
   */
  claimDeliveries(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]>;
  /**
   * Present on a store only one process sends from (SQLite): makes every message not
   * yet delivered or given up due at `now`. A sender that starts calls it, so a message
   * whose lease a killed process held, or whose retry was scheduled, goes out at once
   * rather than when the lease or the backoff runs out. Returns how many.
   */
  releaseDeliveries?(now: number): Promise<number>;
  /** Records an attempt: delivered, to be tried again, or given up. */
  finishDelivery(outcome: DeliveryOutcome): Promise<void>;
  /** Removes delivered and given-up messages made before `before` (ms). Returns how many. */
  pruneDeliveries(before: number): Promise<number>;
}

/** Server settings (the token key, the instance's first start). */
export interface SettingsStore {
  /** The value of a server setting, creating it with `make()` when absent (first writer wins). */
  setting(key: string, make: () => string): Promise<string>;
  /** Stores a setting's value, replacing any before it. */
  replaceSetting(key: string, value: string): Promise<void>;
}

/** Sign-up and log-in; the rest of accounts is AccountStore's (accounts.ts). */
export interface UserStore extends AccountStore, OidcAccountStore {
  /** Returns undefined when the e-mail is already registered. */
  createUser(email: string, passwordHash: string): Promise<User | undefined>;
  findUserByEmail(email: string): Promise<UserWithHash | undefined>;
}

/** The storage of kurz: its areas, and what is the database's as a whole. */
export interface Store
  extends UserStore,
    LinkStore,
    DomainStore,
    ClickStore,
    AnalyticsStore,
    TagStore,
    WebhookStore,
    ReportStore,
    SettingsStore,
    ModerationStore,
    TlsStore {
  /** Which database this is, for the start-up line and tools such as `kurz copy`. */
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Write batches (of clicks, of links) that may be committing at once, each writer's
   * own: 1 when absent (SQLite has a single writer). A server database takes several,
   * so a batch need not wait for the one before it to be flushed to disk.
   */
  readonly writeConcurrency?: number;
  /**
   * Links (from the totals the triggers keep) and users in the whole database, for the
   * metrics' gauges; cheap enough for a scrape, which reads it at most every few seconds.
   */
  totals(): Promise<StoreTotals>;
  /**
   * Subscribes to links created, changed and deleted by the instances sharing the
   * database, this one's own included: `changed` gets each one's code; `reset` is called
   * when notices may have been missed (a lost connection came back, or another process
   * wrote a SQLite file), so caches forget what they hold.
   * Returns the unsubscribe. A store only one process uses never calls either.
   */
  watchLinks(changed: LinkChanged, reset: () => void): () => void;
  /**
   * Present on a store several instances share: resolves once every link change
   * committed (by any instance) before the call has been told to `watchLinks`. What
   * this instance believes of a code is up to date after it; a store only one process
   * uses has nothing to wait for and leaves it out.
   */
  settle?(): Promise<void>;
  /**
   * Resolves when the database answers a read and nothing the store knows of its engine
   * stands in the way of a write (for /health, which proves writes itself at most once a
   * second); throws StoreUnavailableError otherwise, e.g. on a full disk or a file
   * removed under it.
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}
