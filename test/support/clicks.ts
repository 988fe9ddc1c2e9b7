// Clicks for tests of the click path and of stats: a click as the click writer hands it
// to the store, at a moment the test chooses (now by default), and user agents to give it.

import type { Click } from '../../src/store/store.ts';

/** A click of `linkId` at `createdAt` (ms, or an ISO date); `fields` sets the rest. */
export function click(
  linkId: number,
  createdAt: number | string = Date.now(),
  fields: Partial<Click> = {},
): Click {
  return {
    linkId,
    source: null,
    querySource: null,
    referrer: null,
    userAgent: null,
    createdAt: typeof createdAt === 'string' ? Date.parse(createdAt) : createdAt,
    address: null,
    country: null,
    limited: false,
    ...fields,
  };
}

/** User agents of a desktop browser, a phone and a crawler. */
export const UA = {
  chrome:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};
