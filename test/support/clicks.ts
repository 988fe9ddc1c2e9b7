// A click record for tests of the click path: only the link varies.

import type { Click } from '../../src/store/store.ts';

export function click(linkId: number): Click {
  return {
    linkId,
    source: null,
    querySource: null,
    referrer: null,
    userAgent: null,
    createdAt: Date.now(),
    address: null,
    country: null,
    limited: false,
  };
}
