// Which site a click came from: the host of its kept Referer (already cut to scheme://host/path
// by domain/sources.ts). The host is kept as the URL standard writes it, lower-case with IDNs in
// their ASCII form, `www.` and all: stripping it would merge sites that may differ, and is one
// more rule to explain. Other schemes that name a host keep their scheme, so that an app never
// passes for a website: `android-app://com.google.android.gm/` counts as
// `android-app://com.google.android.gm`. Host-less or unparseable values are UNKNOWN_REFERRER.

/** No Referer: the link was typed, pasted, opened from an app or a bookmark. */
export const DIRECT = 'direct';
/** A Referer that is no URL, or one without a host (`about:blank`, `data:…`). */
export const UNKNOWN_REFERRER = 'unknown';

export function referrerHost(referrer: string | null): string {
  if (referrer === null || referrer === '') return DIRECT;
  const url = URL.parse(referrer);
  if (url === null || url.host === '') return UNKNOWN_REFERRER;
  // `host` keeps a port other than the scheme's default: another port may be another site.
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.host;
  // The hosts of other schemes are kept as written: only case is folded here.
  return `${url.protocol}//${url.host.toLowerCase()}`;
}
