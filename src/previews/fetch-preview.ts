// Reads the card a page offers for itself (its Open Graph or Twitter tags, else its title
// and description), fetched the way a webhook is delivered: to public addresses only unless
// the policy allows others, connected to the very address checked, redirects followed by
// hand and each checked again, within one deadline and a byte budget.

import { Messages } from '../domain/errors.ts';
import {
  PREVIEW_DESCRIPTION_MAX,
  PREVIEW_IMAGE_MAX,
  PREVIEW_TITLE_MAX,
} from '../domain/link-preview.ts';
import { abortable } from '../net/abortable.ts';
import { isPublicAddress } from '../net/public-address.ts';
import {
  type PinnedTarget,
  pinnedTarget,
  type Resolve,
  type TargetPolicy,
  TargetRefused,
} from '../webhooks/targets.ts';
import { type HeadTags, headTags } from './html-head.ts';
import type { Preview } from './preview-page.ts';

// The longest title, description and image URL a preview keeps, fetched or given.
export {
  PREVIEW_DESCRIPTION_MAX,
  PREVIEW_IMAGE_MAX,
  PREVIEW_TITLE_MAX,
} from '../domain/link-preview.ts';

/** Why a page gave no preview, in words for its owner. */
export const PreviewReasons = {
  invalid: 'the target is not a valid URL',
  scheme: (scheme: string) => `the target is not http or https (${scheme})`,
  unresolved: (host: string) => `the target's host cannot be resolved (${host})`,
  private: (address: string) => `the target's address is private (${address})`,
  unreachable: (why: string) => `the target cannot be reached (${why})`,
  deadline: (ms: number) => `the target did not answer within ${ms / 1000} s`,
  badRedirect: 'the target redirected to no valid URL',
  redirects: (max: number) => `more than ${max} redirects`,
  status: (status: number) => `the target answered ${status}`,
  notHtml: (type: string) => `the target is not HTML (${type || 'no content type'})`,
  empty: 'no title, description or image found',
} as const;

/** A page that gave no preview; the message is one of PreviewReasons. */
export class PreviewFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PreviewFailed';
  }
}

export interface PreviewFetchOptions {
  /** Where the fetch may connect: the webhooks' rule, with the operator's choice of private targets. */
  policy: TargetPolicy;
  /** How long the whole fetch may take, redirects and DNS included. */
  deadlineMs?: number;
  /** Bytes of the page read at most; its head is almost always in the first few KiB. */
  maxBytes?: number;
  /** Redirects followed at most, each to an address checked anew. */
  maxRedirects?: number;
  /** The fetch that sends each request: the global one but in tests, which play the network. */
  fetch?: typeof fetch;
}

const USER_AGENT = 'kurz-preview/1 (+link preview fetcher)';
const ACCEPT = 'text/html,application/xhtml+xml';
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The tags sit in the head: once the body begins, the rest of the page is not read. */
const HEAD_END = /<\/head[\s>]|<body[\s>]/i;
/** Where a card's image may be given, best first. */
const IMAGE_KEYS = [
  'og:image',
  'og:image:secure_url',
  'og:image:url',
  'twitter:image',
  'twitter:image:src',
];

/** The preview `url`'s page offers. Throws PreviewFailed. */
export async function fetchPreview(url: string, options: PreviewFetchOptions): Promise<Preview> {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const deadline = AbortSignal.timeout(deadlineMs);
  try {
    const start = URL.parse(url);
    if (start === null) throw new PreviewFailed(PreviewReasons.invalid);
    const { response, page } = await follow(start, options, deadline);
    if (!response.ok) {
      await response.body?.cancel();
      throw new PreviewFailed(PreviewReasons.status(response.status));
    }
    const [type, charset] = mediaType(response.headers.get('content-type'));
    if (!HTML_TYPES.has(type)) {
      await response.body?.cancel();
      throw new PreviewFailed(PreviewReasons.notHtml(type));
    }
    const html = await headOf(response, options.maxBytes ?? 512 * 1024, decoderFor(charset));
    return chosen(headTags(html), page);
  } catch (error) {
    if (error instanceof PreviewFailed) throw error;
    if (deadline.aborted) throw new PreviewFailed(PreviewReasons.deadline(deadlineMs));
    // The code alone (ECONNREFUSED, a TLS error's name): a message may quote the URL.
    const code = (error as { code?: unknown }).code;
    const name = error instanceof Error ? error.name : 'error';
    throw new PreviewFailed(PreviewReasons.unreachable(typeof code === 'string' ? code : name));
  }
}

/** The first answer that is not a redirect, and the URL that gave it. */
async function follow(
  start: URL,
  options: PreviewFetchOptions,
  signal: AbortSignal,
): Promise<{ response: Response; page: URL }> {
  const maxRedirects = options.maxRedirects ?? 3;
  const fetchOnce = options.fetch ?? fetch;
  let page = start;
  for (let redirects = 0; ; redirects++) {
    const target = await abortable(checkedTarget(page, options.policy), signal);
    const response = await fetchOnce(target.url, {
      headers: {
        'user-agent': USER_AGENT,
        accept: ACCEPT,
        ...(target.host !== undefined ? { host: target.host } : {}),
      },
      // Each hop's address is checked before it is connected to.
      redirect: 'manual',
      signal,
      ...(target.serverName !== undefined ? { tls: { serverName: target.serverName } } : {}),
    });
    if (!REDIRECTS.has(response.status)) return { response, page };
    await response.body?.cancel();
    if (redirects === maxRedirects) throw new PreviewFailed(PreviewReasons.redirects(maxRedirects));
    const location = response.headers.get('location');
    const next = location === null ? null : URL.parse(location, page.href);
    if (next === null) throw new PreviewFailed(PreviewReasons.badRedirect);
    page = next;
  }
}

/** What fetch is given for `url`, by the webhooks' rule; PreviewFailed when it is refused. */
async function checkedTarget(url: URL, policy: TargetPolicy): Promise<PinnedTarget> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PreviewFailed(PreviewReasons.scheme(url.protocol));
  }
  // The refusal's own reason points at the webhooks' flag: the address is named from the
  // answers it judged instead.
  let answered: string[] = [];
  const resolve: Resolve = async (host) => {
    answered = await policy.resolve(host);
    return answered;
  };
  try {
    return await pinnedTarget(url, { allowPrivate: policy.allowPrivate, resolve });
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (error.message === Messages.webhookUnresolved) {
      throw new PreviewFailed(PreviewReasons.unresolved(host));
    }
    throw new PreviewFailed(
      PreviewReasons.private(answered.find((address) => !isPublicAddress(address)) ?? host),
    );
  }
}

/** A Content-Type's media type in lower case, and its charset if it names one. */
function mediaType(header: string | null): [string, string | undefined] {
  const [essence = '', ...parameters] = (header ?? '').split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset') charset = value.trim().replace(/^"|"$/g, '');
  }
  return [essence.trim().toLowerCase(), charset];
}

/** A decoder for the charset when TextDecoder knows it, else UTF-8's. */
function decoderFor(charset: string | undefined): TextDecoder {
  try {
    // Any label at all: the constructor refuses the ones it does not know.
    return new TextDecoder((charset ?? 'utf-8') as Bun.Encoding);
  } catch {
    return new TextDecoder('utf-8');
  }
}

/**
 * The page's text up to the end of its head, or its first `maxBytes` bytes, whichever comes
 * first; what arrives after either is never read.
 */
async function headOf(response: Response, maxBytes: number, decoder: TextDecoder): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  let text = '';
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = value.length > maxBytes - bytes ? value.subarray(0, maxBytes - bytes) : value;
      bytes += chunk.length;
      // A tag split between two chunks is found in the text they make together.
      const from = Math.max(0, text.length - 6);
      text += decoder.decode(chunk, { stream: true });
      if (HEAD_END.test(text.slice(from))) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return text + decoder.decode();
}

/** The best of the page's tags, cleaned and bounded. Throws PreviewFailed when none is left. */
function chosen(tags: HeadTags, page: URL): Preview {
  const first = (keys: string[]) =>
    keys.map((key) => cleaned(tags.meta.get(key))).find((value) => value !== null) ?? null;
  const title = first(['og:title', 'twitter:title']) ?? cleaned(tags.title);
  const description = first(['og:description', 'twitter:description', 'description']);
  const image =
    IMAGE_KEYS.map((key) => imageUrl(tags.meta.get(key), page)).find((url) => url !== null) ?? null;
  if (title === null && description === null && image === null) {
    throw new PreviewFailed(PreviewReasons.empty);
  }
  return {
    title: title === null ? null : bounded(title, PREVIEW_TITLE_MAX),
    description: description === null ? null : bounded(description, PREVIEW_DESCRIPTION_MAX),
    image,
  };
}

/** Text on one line: runs of whitespace and control characters made one space; null if empty. */
function cleaned(text: string | null | undefined): string | null {
  const line = text?.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return line ? line : null;
}

/** `text` cut to `max` UTF-16 units at most, an ellipsis last when cut, no surrogate split. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

/** The image as an absolute https URL, resolved against the page; null when it is not one. */
function imageUrl(value: string | undefined, page: URL): string | null {
  if (value === undefined) return null;
  const url = URL.parse(value.trim(), page.href);
  if (url === null || url.protocol !== 'https:') return null;
  return url.href.length <= PREVIEW_IMAGE_MAX ? url.href : null;
}
