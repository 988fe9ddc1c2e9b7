// The web UI: GET / (the page), GET /assets/{name} (its scripts, styles and web app
// manifest) and GET /sw.js (the service worker that keeps the shell for offline starts),
// all built into the executable. Nothing is fetched from other hosts but the image of a
// link's preview card; a strict Content Security Policy keeps it that way.

import { Elysia } from 'elysia';
import type { Mode, Registration } from '../config/config.ts';
import { Messages } from '../domain/errors.ts';
import { toLocationHeader } from '../domain/urls.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import { errorResponse } from '../http/responses.ts';
import type { Language } from '../i18n/catalogues.ts';
import { languageOf } from '../i18n/negotiate.ts';
import { translator } from '../i18n/translate.ts';
import { buildCommit, VERSION } from '../version.ts';
import { appIcons } from './app-icons.ts' with { type: 'macro' };
import { embeddedAssets } from './embedded-assets.ts' with { type: 'macro' };
import { escapeHtml } from './html.ts';
import { translatePage } from './page.ts';

const ASSETS = embeddedAssets();
/** The installed app's PNG icons, drawn when kurz is bundled (base64: a macro answers text). */
const ICONS = appIcons();

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  html: 'text/html; charset=utf-8',
  json: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
};

/** The web app manifest: served in the request's language (its description, lang and dir). */
const MANIFEST = 'manifest.webmanifest';
export const MANIFEST_PATH = `/assets/${MANIFEST}`;

/** The service worker's source: served at /sw.js (its scope is where it is served), not under /assets/. */
const SERVICE_WORKER = 'service-worker.js';

// Images may come from any https address: the Edit dialog draws a link's preview card with
// the image its owner gave (or its target page named), as a chat app would. Scripts, styles
// and requests stay the page's own. The manifest and the service worker are named
// (`default-src 'none'` would refuse the manifest); both must be kurz's own.
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data: https:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

interface Asset {
  body: string | Uint8Array;
  /** The body gzipped once, at start-up (text compresses to about a third); none for images. */
  gzipped?: Uint8Array;
  type: string;
  etag: string;
}

function asset(name: string, body: string | Uint8Array): Asset {
  const extension = name.slice(name.lastIndexOf('.') + 1);
  return {
    body,
    gzipped: typeof body === 'string' ? Bun.gzipSync(body) : undefined,
    type: TYPES[extension] ?? 'application/octet-stream',
    etag: `"${Bun.hash(body).toString(36)}"`,
  };
}

const GZIP = /\bgzip\b/;

/** The Vary of an answer in the person's language (languageOf), as well as compressed. */
const BY_LANGUAGE = 'cookie, accept-language, accept-encoding';

/** An asset built for each language on first use, and kept. */
function perLanguage(build: (language: Language) => Asset): (language: Language) => Asset {
  const built = new Map<Language, Asset>();
  return (language) => {
    let made = built.get(language);
    if (made === undefined) {
      made = build(language);
      built.set(language, made);
    }
    return made;
  };
}

/**
 * index.html with each `<!-- part: name.html -->` line replaced by that file: the page's
 * dialogs and sections live in files of their own, each short enough to read whole.
 */
function withParts(html: string): string {
  return html.replace(/^[ \t]*<!-- part: ([\w-]+\.html) -->\n/gm, (_, name: string) => {
    const part = ASSETS[name];
    if (part === undefined) throw new Error(`kurz: the page's part ${name} is missing`);
    return part;
  });
}

export interface WebRoutesOptions {
  mode: Mode;
  /** Closed: the page offers only login. */
  registration: Registration;
  /** The public address of short links (known once the server listens). */
  baseUrl: () => string;
  /** The short domains: one may send its bare `/` elsewhere (its root_redirect). */
  domains: Pick<DomainRegistry, 'several' | 'forHost'>;
}

export function webRoutes({ mode, baseUrl, registration, domains }: WebRoutesOptions) {
  // The HTML files are the page (index.html) and its parts, not assets of their own.
  const assets = new Map<string, Asset>();
  for (const [name, body] of Object.entries(ASSETS)) {
    if (!name.endsWith('.html') && name !== SERVICE_WORKER) assets.set(name, asset(name, body));
  }
  for (const [name, base64] of Object.entries(ICONS)) {
    assets.set(name, asset(name, Uint8Array.from(Buffer.from(base64, 'base64'))));
  }
  const serviceWorker = shellWorker(assets);
  // The page carries the mode, registration and base URL in meta tags, and is built once per
  // language on first use (the base URL may depend on the port bound).
  const indexPage = perLanguage((language) => {
    const html = withParts(ASSETS['index.html'] ?? '')
      .replaceAll('%KURZ_MODE%', escapeHtml(mode))
      .replaceAll('%KURZ_REGISTRATION%', escapeHtml(registration))
      .replaceAll('%KURZ_BASE_URL%', escapeHtml(baseUrl()));
    return asset('index.html', translatePage(html, translator(language)));
  });
  // The installed app's manifest, its description in the person's language (the page links
  // it with credentials, so the chooser's cookie comes along).
  const manifestOf = perLanguage((language) => {
    const { t, dir } = translator(language);
    const fields = JSON.parse(ASSETS[MANIFEST] ?? '{}') as Record<string, unknown>;
    const translated = {
      ...fields,
      lang: language,
      dir,
      description: t('app.manifest.description'),
    };
    return asset(MANIFEST, `${JSON.stringify(translated, null, 2)}\n`);
  });

  const serve = (request: Request, file: Asset, cacheControl: string, vary = 'accept-encoding') => {
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'content-type': file.type,
      etag: file.etag,
      'cache-control': cacheControl,
      vary,
    };
    if (request.headers.get('if-none-match') === file.etag) {
      return new Response(null, { status: 304, headers });
    }
    if (file.gzipped !== undefined && GZIP.test(request.headers.get('accept-encoding') ?? '')) {
      headers['content-encoding'] = 'gzip';
      return new Response(file.gzipped, { headers });
    }
    return new Response(file.body, { headers });
  };

  return new Elysia({ name: 'kurz/web', seed: mode })
    .get('/', ({ request }) => {
      // A short domain may send its bare address elsewhere; the default one shows the UI.
      const domain = domains.several ? domains.forHost(request.headers.get('host')) : undefined;
      if (domain?.rootRedirect) {
        return new Response(null, {
          status: 302,
          headers: { location: toLocationHeader(domain.rootRedirect), 'cache-control': 'no-cache' },
        });
      }
      // In the person's language: the chooser's cookie, else Accept-Language, else English.
      const page = indexPage(languageOf(request.headers));
      return serve(request, page, 'no-cache', BY_LANGUAGE);
    })
    .get('/sw.js', ({ request }) => {
      // A path with a dot is never a short code ([A-Za-z0-9_-]), so /sw.js takes none.
      // Revalidated on every page load: a new kurz changes it (its cache's name).
      return serve(request, serviceWorker, 'no-cache');
    })
    .get(MANIFEST_PATH, ({ request }) =>
      serve(
        request,
        manifestOf(languageOf(request.headers)),
        'public, max-age=300, must-revalidate',
        BY_LANGUAGE,
      ),
    )
    .get('/assets/:name', ({ params, request }) => {
      const file = assets.get(params.name);
      if (file === undefined) return errorResponse(404, Messages.notFound);
      return serve(request, file, 'public, max-age=300, must-revalidate');
    });
}

/**
 * The service worker with its shell filled in: the page and every asset, cached under a
 * name of this build (version, commit and a hash of the files, so even a build of changed
 * files not yet committed gets a cache of its own and replaces the last one's).
 */
function shellWorker(assets: Map<string, Asset>): Asset {
  const files = ['/', ...[...assets.keys()].map((name) => `/assets/${name}`)];
  const hash = Bun.hash(JSON.stringify(ASSETS)).toString(36);
  const cache = `kurz-shell-${VERSION}-${buildCommit()}-${hash}`;
  const source = (ASSETS[SERVICE_WORKER] ?? '')
    .replace("'%KURZ_SHELL_CACHE%'", JSON.stringify(cache))
    .replace("['%KURZ_SHELL_FILES%']", JSON.stringify(files));
  return asset(SERVICE_WORKER, source);
}
