// Every client-facing error of kurz: its status and its exact message, in one place.
// Domain rules throw these; the HTTP layer's one error handler turns them into JSON.

export const Messages = {
  urlRequired: 'url is required',
  urlScheme: 'URL must start with http:// or https://',
  urlInvalid: 'URL is not valid',
  codeRule:
    'Custom code must be 1-32 characters long and contain only letters, numbers, underscores, and hyphens',
  codeReserved: 'This code is reserved and cannot be used',
  codeTaken: 'Custom code already taken',
  sourceRule: 'source must be a string of at most 255 characters',
  pageRule: 'limit must be 1 to 1000 and offset 0 or more',
  bodyNotObject: 'Request body must be a JSON object',
  bodyTooLarge: 'Request body too large',
  credentialsRequired: 'Email and password are required',
  emailInvalid: 'Invalid email address',
  passwordLength: 'Password must be 8 to 1024 characters long',
  emailTaken: 'Email already registered',
  invalidCredentials: 'Invalid credentials',
  unauthorized: 'Unauthorized',
  notFound: 'Not found',
  internal: 'Internal server error',
  databaseUnavailable: 'Database unavailable',
  urlSelf: 'URL must not point to this service',
  urlBlocked: 'URL is blocked',
  crossOrigin: 'Cross-origin request refused',
  hostRequired: 'A Host header naming this service is required',
  unknownHost: "Unknown host: use this service's own address, or add the name to --allowed-hosts",
  tooManyRequests: 'Too many requests',
  linkLimit: 'Link limit reached',
  requestTimeout: 'Request timeout',
  linkExpired: 'Link expired',
  adminTokenMissing: 'Link management needs an admin token in open mode',
  expiresAtRule:
    'expires_at must be an ISO 8601 date-time with a time zone, such as 2026-12-31T23:59:59Z',
  maxClicksRule: 'max_clicks must be a whole number from 1 to 1000000000',
  linkPasswordRule: 'password must be a string of 1 to 128 characters',
  statsRange: 'from and to must be dates (YYYY-MM-DD), from not after to, at most 366 days apart',
  registrationClosed: 'Registration is closed',
  forbidden: 'Forbidden',
  keyNameRule: 'name must be a string of 1 to 100 characters',
  keyScopeRule: 'scope must be read or write',
  keyExpiryRule:
    'expires_at must be an ISO 8601 date-time with a time zone in the future, such as 2026-12-31T23:59:59Z',
  keyLimit: 'API key limit reached',
  webhookScheme: 'Webhook URL must start with https://',
  webhookSchemePrivate: 'Webhook URL must start with http:// or https://',
  webhookCredentials: 'Webhook URL must not contain a user name or password',
  webhookPrivate: 'Webhook URL must point to a public address',
  webhookUnresolved: 'Webhook URL host cannot be resolved',
  webhookEvents:
    'events must be a non-empty list of link.created, link.updated, link.deleted, clicks, report.created',
  webhookLimit: 'Webhook limit reached',
  unknownDomain: "domain must name one of this service's short domains (its host or base URL)",
  domainRule:
    'Domain must be a base URL such as https://go.example.com: http or https, a host, an optional port, nothing after',
  domainTaken: 'Domain already exists',
  domainIsDefault: 'This is the default domain, set by --base-url',
  domainInUse: 'Domain still has links: move or delete them first, or remove it with_links',
  domainsAdminMissing: 'Domain management needs an admin token (--admin-token)',
  domainRedirectRule: 'root_redirect and not_found_redirect must be http(s) URLs or null',
  domainWithLinksRule: 'with_links must be true or false',
  tagsRule:
    'tags must be a list of at most 10 tags, each 1 to 32 letters, digits, hyphens or underscores',
  tagRule: 'tag must be 1 to 32 letters, digits, hyphens or underscores',
  bulkRule: 'links must be a list of 1 to 1000 links',
  listSortRule: 'sort must be created, clicks or code, and order asc or desc',
  listViewRule: 'view must be full',
  listQueryRule: 'q must be 1 to 200 characters',
  rulesRule: 'rules must be a list of at most 20 rules, each with url and conditions',
  ruleShape: 'a rule must be an object with url and conditions',
  ruleConditions: 'conditions must be a list of 1 to 10 conditions',
  conditionShape: 'a condition must be an object with a type',
  conditionType: 'type must be device, os, browser, language, country, query, after, before or bot',
  conditionDevice: 'device must be mobile, tablet or desktop',
  conditionOs: 'os must be ios, android, windows, macos or linux',
  conditionBrowser: 'browser must be chrome, safari, firefox, edge, opera or samsung',
  conditionLanguage: 'language must be a primary language tag of 2 or 3 letters, such as de',
  conditionCountry: 'country must be a two-letter ISO 3166 country code, such as DE',
  conditionQuery: 'query needs a name of 1 to 100 characters and, if given, a value of at most 200',
  conditionInstant:
    'after and before must be ISO 8601 date-times with a time zone, such as 2026-12-31T23:59:59Z',
  conditionBot: 'bot must be true or false',
  variantsRule: 'variants must be a list of 2 to 4 variants whose weights add up to 100',
  variantShape: 'a variant must be an object with url and weight',
  variantWeight: 'weight must be a whole number from 1 to 100',
  previewRule: 'preview must be "auto", null, or an object with a title, a description or an image',
  previewTitle: 'title must be a string of at most 200 characters',
  previewDescription: 'description must be a string of at most 500 characters',
  previewImage: 'image must be an https URL of at most 2048 characters',
  adminApiMissing: 'Administration needs an admin token (--admin-token)',
  accountDisabled: 'Account disabled',
  ownAccount: 'You cannot disable, demote or remove your own account',
  removedLinksRule: 'links must be delete or keep',
  userChangeRule: 'disabled and admin must be true or false',
  disableReasonRule: 'reason must be a string of at most 500 characters',
  blockHostRule: 'block_host must be true or false',
  disabledFilterRule: 'disabled must be true or false',
  blockedHostRule: 'host must be a host name, such as example.com',
  blockedHostTaken: 'Host already blocked',
  passwordLoginOff: 'Password sign-in is off: sign in with your identity provider',
  // Sign-in through an OpenID Provider (domain/oidc.ts): the page the callback ends on
  // says these, never the provider's or the library's own words.
  oidcUnavailable:
    'The identity provider cannot be reached right now. Please try again in a moment.',
  oidcAttemptLost:
    'This sign-in attempt has expired or was started in another window. Please sign in again.',
  oidcRefused: 'The identity provider did not sign you in.',
  oidcUnverified: "The identity provider's answer could not be verified. Please sign in again.",
  oidcEmailUnverified:
    'Your identity provider did not give a verified e-mail address, which kurz needs to find or make your account.',
  oidcDomain: 'Your e-mail domain may not sign in to this kurz.',
  oidcRegistrationClosed:
    'Registration is closed: no account of this kurz has your e-mail address. Ask its operator for one.',
  oidcLinkedElsewhere:
    'The account with your e-mail address is linked to another identity at this provider.',
  // Moderation: disabled links and reports (domain/reports.ts).
  linkDisabled: 'Link disabled',
  reportLinkRequired: 'code or short_url is required',
  reportReasonRule: 'reason must be phishing, malware, spam, illegal or other',
  reportDetailsRule: 'details must be a string of at most 1000 characters',
  reportStatusRule: 'status must be waiting, resolved or all',
  reportActionRule: 'action must be disable_link, disable_user or dismiss',
  reportResolved: 'Report already resolved',
  reportNoOwner: 'The link has no owner to disable',
} as const;

/** A rule's message about one part of a body, after its place: `rules[2].url: URL is not valid`. */
export type PlacedMessage = `${string}: ${(typeof Messages)[keyof typeof Messages]}`;

export type Message = (typeof Messages)[keyof typeof Messages] | PlacedMessage;

/** A failure the client caused or must be told about; never carries internals. */
export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 408 | 410 | 413 | 429 | 503,
    override readonly message: Message,
    /** Headers the answer must carry, such as Retry-After or WWW-Authenticate. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: Message) => new ApiError(400, message);
/** A 400 naming the place of the broken part (`rules[2].conditions[0]`) before its rule's message. */
export const placedRequest = (place: string, message: Message) =>
  new ApiError(400, `${place}: ${message}` as PlacedMessage);
export const unauthorized = () =>
  new ApiError(401, Messages.unauthorized, { 'www-authenticate': 'Bearer' });
export const notFound = () => new ApiError(404, Messages.notFound);
export const forbidden = () => new ApiError(403, Messages.forbidden);
/** 429 with the whole seconds until the next request may pass. */
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(429, Messages.tooManyRequests, { 'retry-after': String(retryAfterSeconds) });

/** Thrown by a store when the database cannot be reached or written; answered with 503. */
export class StoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super(Messages.databaseUnavailable, options);
    this.name = 'StoreUnavailableError';
  }
}
