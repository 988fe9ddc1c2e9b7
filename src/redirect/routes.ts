// GET and HEAD /{code}: the hot path. Route → cache → click writer → 307.
// A GET waits for its click to be committed before the 307 leaves; HEAD counts nothing.

import { Elysia } from 'elysia';
import type { ClickWriter } from '../clicks/click-writer.ts';
import type { Mode } from '../config/config.ts';
import { isCodeShaped } from '../domain/codes.ts';
import { Messages } from '../domain/errors.ts';
import { CLICK_HEADER_MAX_LENGTH, cut, SOURCE_MAX_LENGTH } from '../domain/sources.ts';
import { errorResponse } from '../http/responses.ts';
import type { LinkCache } from './link-cache.ts';

export interface RedirectRoutesOptions {
  mode: Mode;
  cache: LinkCache;
  clicks: ClickWriter;
}

export function redirectRoutes({ mode, cache, clicks }: RedirectRoutesOptions) {
  const trackQuerySource = mode === 'accounts';

  async function redirect(code: string, request: Request): Promise<Response> {
    const link = isCodeShaped(code) ? await cache.get(code) : undefined;
    if (link === undefined) return errorResponse(404, Messages.notFound);
    // Elysia runs GET routes for HEAD as well; HEAD must not count.
    if (request.method !== 'HEAD') {
      const headers = request.headers;
      await clicks.record({
        linkId: link.id,
        source: link.source,
        querySource: trackQuerySource ? querySource(request.url) : null,
        referrer: header(headers, 'referer'),
        userAgent: header(headers, 'user-agent'),
        createdAt: Date.now(),
      });
    }
    return new Response(null, { status: 307, headers: link.headers });
  }

  return new Elysia({ name: 'kurz/redirect', seed: mode }).get('/:code', ({ params, request }) =>
    redirect(params.code, request),
  );
}

function header(headers: Headers, name: string): string | null {
  const value = headers.get(name);
  return value === null ? null : cut(value, CLICK_HEADER_MAX_LENGTH);
}

/** `?source=` of a redirect URL, cut to 255 characters; null when absent. */
function querySource(url: string): string | null {
  const q = url.indexOf('?');
  if (q === -1) return null;
  const value = new URLSearchParams(url.slice(q + 1)).get('source');
  return value === null ? null : cut(value, SOURCE_MAX_LENGTH);
}
