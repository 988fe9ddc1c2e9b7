// Which account an OpenID Provider's sign-in is: the one that signed in with this subject
// before; else the account of the same verified e-mail, which is linked to it; else a
// new one, when registration allows. The admin claim, when configured, sets the role at
// every sign-in. Refusals carry the message the person is shown.

import type { OidcSettings, Registration } from '../config/config.ts';
import { type Message, Messages } from '../domain/errors.ts';
import { type Claims, emailDomainAllowed, hasClaimValue, verifiedEmail } from '../domain/oidc.ts';
import {
  LINKED_ELSEWHERE,
  type OidcAccount,
  type OidcAccountStore,
  type OidcIdentity,
} from '../store/accounts.ts';
import type { ModerationStore } from '../store/moderation.ts';

/** A sign-in kurz will not let through; `message` is for the person, `status` for the page. */
export class OidcRefusal extends Error {
  constructor(
    readonly status: 403,
    override readonly message: Message,
  ) {
    super(message);
    this.name = 'OidcRefusal';
  }
}

export interface OidcAccountRules {
  allowedDomains: OidcSettings['allowedDomains'];
  adminClaim: OidcSettings['adminClaim'];
  registration: Registration;
}

/** The account `identity` signs in to, found, linked or made; throws OidcRefusal. */
export async function oidcAccount(
  store: OidcAccountStore & Pick<ModerationStore, 'setUserAdmin'>,
  rules: OidcAccountRules,
  identity: OidcIdentity,
  claims: Claims,
): Promise<OidcAccount> {
  const email = verifiedEmail(claims);
  const refuse = (message: Message) => new OidcRefusal(403, message);
  // With allowed domains, the provider's verified e-mail decides every sign-in, also of
  // accounts it made before (someone who left the company keeps no way in).
  if (rules.allowedDomains.length > 0) {
    if (email === undefined) throw refuse(Messages.oidcEmailUnverified);
    if (!emailDomainAllowed(email, rules.allowedDomains)) throw refuse(Messages.oidcDomain);
  }
  const admin =
    rules.adminClaim === undefined ? undefined : hasClaimValue(claims, rules.adminClaim);
  let account = await store.findUserByOidc(identity);
  // An unverified e-mail is never used to find or make an account: anyone may type any
  // address at some providers.
  if (account === undefined && email !== undefined) {
    const linked = await store.linkOidc(email, identity);
    if (linked === LINKED_ELSEWHERE) throw refuse(Messages.oidcLinkedElsewhere);
    account = linked;
  }
  if (account === undefined) {
    if (email === undefined) throw refuse(Messages.oidcEmailUnverified);
    // Closed registration still lets in the allowed domains: the operator named them.
    if (rules.registration === 'closed' && rules.allowedDomains.length === 0) {
      throw refuse(Messages.oidcRegistrationClosed);
    }
    account =
      (await store.createOidcUser(email, identity, admin ?? false)) ??
      // Made meanwhile by another sign-in of the same person (two tabs, two instances).
      (await store.findUserByOidc(identity));
    if (account === undefined) throw refuse(Messages.oidcLinkedElsewhere);
  }
  if (account.disabledAt !== null) throw refuse(Messages.accountDisabled);
  if (admin !== undefined && admin !== account.admin) {
    await store.setUserAdmin(account.id, admin);
    account = { ...account, admin };
  }
  return account;
}
