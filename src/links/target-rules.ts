// The target rules that need the running service (its own hosts, the blocklist), as a
// route hook for every body that sets a target (create, PATCH).

import { normalizeHost, requestAuthority } from '../domain/hosts.ts';
import type { OwnHosts } from '../domain/own-hosts.ts';
import { type Blocklist, checkTarget } from '../domain/targets.ts';
import { parseTargetUrl } from '../domain/urls.ts';

/**
 * Part of the `url` checks, before the fields after it are looked at. A url that breaks
 * the plain rules (or is absent, as a PATCH may leave it) is left to validation, which
 * names that rule.
 */
export function targetRulesHook(ownHosts: () => OwnHosts, blocklist: () => Blocklist | undefined) {
  return ({ body, request }: { body: unknown; request: Request }) => {
    const url = (body as { url?: unknown }).url;
    let target: string;
    try {
      target = parseTargetUrl(url);
    } catch {
      return;
    }
    const requestHost = normalizeHost(requestAuthority(request.url));
    checkTarget(target, { own: ownHosts(), requestHost }, blocklist());
  };
}
