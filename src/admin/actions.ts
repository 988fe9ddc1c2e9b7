// What an admin does to users, links and the blocklist, without HTTP: the admin routes
// and the resolution of reports both act through here, so a disabled link always reaches
// the redirect cache and the webhooks, and an admin never locks themselves out.

import { ApiError, badRequest, Messages } from '../domain/errors.ts';
import { parseBlockedHost } from '../domain/targets.ts';
import type { LinkEvents } from '../links/link-events.ts';
import type { RemovedLinks, UserSummary } from '../store/accounts.ts';
import type { AdminLink } from '../store/moderation.ts';
import type { LinkDetail, Store } from '../store/store.ts';
import type { Administrator } from './authorisation.ts';
import type { BlockedHosts } from './blocked-hosts.ts';

export interface AdminActionsOptions {
  store: Store;
  /** Where this instance's committed link changes are told (the redirect cache, webhooks). */
  events: LinkEvents;
  blockedHosts: BlockedHosts;
  /** Forgets every link this instance cached (a removed user's links went at once). */
  forgetLinks: () => void;
  /** Tells the webhook sender that messages wait in the outbox. */
  wake: () => void;
}

/** A change of a user's account by an admin. */
export interface UserChange {
  disabled?: boolean;
  admin?: boolean;
}

export class AdminActions {
  constructor(private readonly options: AdminActionsOptions) {}

  /**
   * Disables a link (`reason` shown on its page), or enables it (`null`); with
   * `blockHost`, its target's host goes on the blocklist too. The link as it is now.
   */
  async setLinkDisabled(
    link: LinkDetail,
    disabled: { reason: string | null; blockHost?: boolean } | null,
    by: Administrator,
  ): Promise<LinkDetail> {
    const { store, events } = this.options;
    const changed = await store.setLinkDisabled(
      link.id,
      disabled === null ? null : { at: link.disabledAt ?? Date.now(), reason: disabled.reason },
    );
    if (changed === undefined) return link;
    events.emit({ kind: 'updated', code: changed.shortCode, domainId: changed.domainId });
    if (disabled?.blockHost) {
      // The target passed the URL rules when it was made: its host is one the list takes.
      const host = blockableHost(changed.originalUrl);
      if (host !== undefined) await this.blockHost(host, disabled.reason, by);
    }
    return changed;
  }

  /** Removes a link with its clicks (its owner's webhooks are told). */
  async deleteLink(link: LinkDetail): Promise<void> {
    if (await this.options.store.deleteLink(link.id)) {
      this.options.events.emit({ kind: 'deleted', code: link.shortCode, domainId: link.domainId });
    }
  }

  /** A link with its owner's e-mail, as the admin API lists it. */
  async adminLink(link: LinkDetail): Promise<AdminLink> {
    const owner = link.userId === null ? undefined : await this.options.store.findUser(link.userId);
    return { ...link, ownerEmail: owner?.email ?? null };
  }

  /**
   * Adds a host (canonical, as parseBlockedHost gives it) to the blocklist; false when it
   * was there. Read again before the answer.
   */
  async blockHost(host: string, reason: string | null, by: Administrator): Promise<boolean> {
    const { store, blockedHosts } = this.options;
    const added = await store.addBlockedHost({
      host,
      reason,
      createdAt: Date.now(),
      addedBy: by.userId,
    });
    await blockedHosts.reload();
    return added;
  }

  async unblockHost(host: string): Promise<boolean> {
    const removed = await this.options.store.removeBlockedHost(host);
    await this.options.blockedHosts.reload();
    return removed;
  }

  /**
   * Changes a user's standing; undefined when there is no such user. An admin may not
   * disable or demote themselves (400): someone must be left to undo it.
   */
  async changeUser(
    id: number,
    change: UserChange,
    by: Administrator,
  ): Promise<UserSummary | undefined> {
    const { store } = this.options;
    if (by.userId === id && (change.disabled === true || change.admin === false)) {
      throw badRequest(Messages.ownAccount);
    }
    const user = await store.findUser(id);
    if (user === undefined) return undefined;
    // Disabling a disabled account keeps the moment it was disabled.
    if (change.disabled !== undefined && change.disabled !== (user.disabledAt !== null)) {
      await store.setUserDisabled(id, change.disabled ? Date.now() : null);
    }
    if (change.admin !== undefined && change.admin !== user.admin) {
      await store.setUserAdmin(id, change.admin);
    }
    return store.findUser(id);
  }

  /** Removes a user with their keys and webhooks, and their links or not; false: no such user. */
  async removeUser(id: number, links: RemovedLinks, by: Administrator): Promise<boolean> {
    const { store } = this.options;
    if (by.userId === id) throw badRequest(Messages.ownAccount);
    const user = await store.findUser(id);
    if (user === undefined) return false;
    const removed = await store.removeUser(user.email, links);
    if (removed === undefined) return false;
    // Its links went, or became no one's: whatever this instance cached of them is stale.
    this.options.forgetLinks();
    this.options.wake();
    return true;
  }
}

/** The host of a link's target as the blocklist keeps it; undefined when it is none. */
function blockableHost(url: string): string | undefined {
  const hostname = URL.parse(url)?.hostname;
  if (hostname === undefined || hostname === '') return undefined;
  try {
    return parseBlockedHost(hostname);
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}
