// Open mode's lists and details are open to anyone, so a password link's target would be
// given away there: a reader without the admin token sees, for such a link, its own
// short URL as `original_url` (following it asks for the password), and none of its
// rules, variants or preview (their URLs are targets too). The shapes stay as documented.
// Accounts mode shows a user their own links only, and needs none of this.

import { bearerIs } from '../auth/admin.ts';
import type { Mode } from '../config/config.ts';
import type { Link, LinkDetail, Store } from '../store/store.ts';
import type { DomainOf } from './link-json.ts';

export interface HiddenTargetsOptions {
  mode: Mode;
  /** The operator's token: a reader with it sees every target. */
  adminToken: string | undefined;
  store: Pick<Store, 'protectedLinkIds'>;
  domainOf: DomainOf;
}

/** The links a request may see, as it may see them. */
export interface TargetView {
  /** Links of the list (which carry no hash): one query tells which have a password. */
  links<L extends Link>(links: L[]): Promise<L[]>;
  /** Links with their settings. */
  details(links: LinkDetail[]): LinkDetail[];
  detail(link: LinkDetail): LinkDetail;
}

/** Everything as it is: accounts mode, or open mode with the admin token. */
const WHOLE: TargetView = {
  links: async (links) => links,
  details: (links) => links,
  detail: (link) => link,
};

/** What a request of a route that shows links may see of their targets. */
export function hiddenTargets(options: HiddenTargetsOptions): (request: Request) => TargetView {
  const { mode, adminToken, store, domainOf } = options;
  if (mode !== 'open') return () => WHOLE;
  const isOperator = adminToken === undefined ? () => false : bearerIs(adminToken);
  const shortUrl = (link: Link) => `${domainOf(link.domainId).baseUrl}/${link.shortCode}`;
  const hideDetail = (link: LinkDetail): LinkDetail =>
    link.passwordHash === null
      ? link
      : { ...link, originalUrl: shortUrl(link), rules: null, variants: null, preview: null };
  const hidden: TargetView = {
    async links(links) {
      if (links.length === 0) return links;
      const locked = new Set(await store.protectedLinkIds(links.map((link) => link.id)));
      if (locked.size === 0) return links;
      return links.map((link) =>
        locked.has(link.id) ? { ...link, originalUrl: shortUrl(link) } : link,
      );
    },
    details: (links) => links.map(hideDetail),
    detail: hideDetail,
  };
  return (request) => (isOperator(request) ? WHOLE : hidden);
}
