// The page link-preview crawlers are answered with: its card tags, its headers, and text of
// any kind (a link's title comes from its owner or from the target page) kept as text.

import { describe, expect, test } from 'bun:test';
import { translator } from '../../src/i18n/translate.ts';
import { PREVIEW_CSP, previewPage } from '../../src/previews/preview-page.ts';

const EN = translator('en');

const CSP =
  "default-src 'none'; img-src https:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface Element {
  tag: string;
  attributes: [string, string][];
}

/** Every element of the page as an HTML parser reads it, with its attributes (raw). */
async function elementsOf(html: string): Promise<Element[]> {
  const elements: Element[] = [];
  await new HTMLRewriter()
    .on('*', {
      element(element) {
        elements.push({ tag: element.tagName, attributes: [...element.attributes] });
      },
    })
    .transform(new Response(html))
    .text();
  return elements;
}

/** The content of the page's meta tags, by their property or name (still escaped). */
async function metaOf(html: string): Promise<Record<string, string>> {
  const meta: Record<string, string> = {};
  for (const element of await elementsOf(html)) {
    if (element.tag !== 'meta') continue;
    const attributes = Object.fromEntries(element.attributes);
    const key = attributes.property ?? attributes.name ?? attributes['http-equiv'];
    if (key !== undefined && attributes.content !== undefined) meta[key] = attributes.content;
  }
  return meta;
}

describe('the preview page', () => {
  test('a full card: Open Graph and Twitter tags, a refresh and a link to the target', async () => {
    const response = previewPage(
      {
        title: 'Spring sale',
        description: 'Everything half price',
        image: 'https://shop.example/card.png',
      },
      'https://shop.example/sale',
      EN,
    );
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(
      html.startsWith(
        '<!doctype html>\n<html lang="en" dir="ltr">\n<head>\n<meta charset="utf-8">',
      ),
    ).toBe(true);
    expect(html).toContain('<title>Spring sale</title>');
    expect(await metaOf(html)).toEqual({
      viewport: 'width=device-width, initial-scale=1',
      robots: 'noindex',
      'og:type': 'website',
      'og:url': 'https://shop.example/sale',
      'og:title': 'Spring sale',
      'og:description': 'Everything half price',
      'og:image': 'https://shop.example/card.png',
      'twitter:card': 'summary_large_image',
      'twitter:title': 'Spring sale',
      'twitter:description': 'Everything half price',
      'twitter:image': 'https://shop.example/card.png',
      refresh: '0; url=https://shop.example/sale',
    });
    expect(html).toContain(
      '<h1>Spring sale</h1>\n<p>Everything half price</p>\n<p><a href="https://shop.example/sale">Continue to shop.example</a></p>',
    );
  });

  test('without an image the card is a summary; what is missing is left out', async () => {
    const html = await previewPage(
      { title: null, description: null, image: null },
      'https://example.com/a',
      EN,
    ).text();
    const meta = await metaOf(html);
    expect(meta['twitter:card']).toBe('summary');
    // A card needs a title: the target stands for itself.
    expect(html).toContain('<title>https://example.com/a</title>');
    expect(meta['og:title']).toBe('https://example.com/a');
    expect(meta['twitter:title']).toBe('https://example.com/a');
    for (const key of ['og:image', 'twitter:image', 'og:description', 'twitter:description']) {
      expect(meta[key]).toBeUndefined();
    }
    const summary = await previewPage(
      { title: 'T', description: 'D', image: null },
      'https://example.com/a',
      EN,
    ).text();
    expect((await metaOf(summary))['twitter:card']).toBe('summary');
    expect(summary).toContain('<meta property="og:description" content="D">');
  });

  test('the headers: no script at all, never cached, no Referer, no sniffing', () => {
    const response = previewPage(
      { title: 'T', description: null, image: null },
      'https://example.com/',
      EN,
    );
    expect(Object.fromEntries(response.headers)).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'private, no-store',
      'content-language': 'en',
      vary: 'Cookie, Accept-Language',
    });
    expect(PREVIEW_CSP).toBe(CSP);
  });

  test("extra headers are added, and cannot replace the page's own", () => {
    const response = previewPage(
      { title: 'T', description: null, image: null },
      'https://e.x/',
      EN,
      {
        vary: 'User-Agent',
        'x-robots-tag': 'noindex',
        'Cache-Control': 'public, max-age=3600',
        'Content-Security-Policy': "script-src 'unsafe-inline'",
      },
    );
    expect(response.headers.get('vary')).toBe('User-Agent, Cookie, Accept-Language');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('content-security-policy')).toBe(CSP);
  });

  test('hostile text stays text, in element content and in attributes alike', async () => {
    const title = `"><script>alert(1)</script>`;
    const description = `it's </title><script>alert(2)</script> & <b>bold</b> — grüße, 日本語, 🎉`;
    const image = `https://img.example/a.png?x="><script>alert(3)</script>&y='z'`;
    const target = `https://example.com/?q="><script>alert(4)</script>&r='s'#</title>`;
    const html = await previewPage({ title, description, image }, target, EN).text();
    expect(html.toLowerCase()).not.toContain('<script');
    expect(html).not.toContain('<b>');

    const escapedTitle = '&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;';
    const escapedDescription =
      'it&#39;s &#60;/title&#62;&#60;script&#62;alert(2)&#60;/script&#62; &#38; &#60;b&#62;bold&#60;/b&#62; — grüße, 日本語, 🎉';
    const escapedImage =
      'https://img.example/a.png?x=&#34;&#62;&#60;script&#62;alert(3)&#60;/script&#62;&#38;y=&#39;z&#39;';
    const escapedTarget =
      'https://example.com/?q=&#34;&#62;&#60;script&#62;alert(4)&#60;/script&#62;&#38;r=&#39;s&#39;#&#60;/title&#62;';
    expect(html).toContain(`<title>${escapedTitle}</title>`);
    expect(html).toContain(`<h1>${escapedTitle}</h1>`);
    expect(html).toContain(`<p>${escapedDescription}</p>`);
    expect(html).toContain(`<meta http-equiv="refresh" content="0; url=${escapedTarget}">`);
    expect(html).toContain(`<a href="${escapedTarget}">Continue to example.com</a>`);
    expect(await metaOf(html)).toMatchObject({
      'og:title': escapedTitle,
      'twitter:title': escapedTitle,
      'og:description': escapedDescription,
      'twitter:description': escapedDescription,
      'og:image': escapedImage,
      'twitter:image': escapedImage,
      'og:url': escapedTarget,
    });

    // Read by an HTML parser, the page has its own elements and attributes, no others.
    const elements = await elementsOf(html);
    expect(elements.map((element) => element.tag)).toEqual([
      'html',
      'head',
      'meta',
      'meta',
      'meta',
      'title',
      ...Array<string>(10).fill('meta'),
      'style',
      'body',
      'main',
      'h1',
      'p',
      'p',
      'a',
    ]);
    for (const element of elements) {
      for (const [name] of element.attributes) {
        expect([
          'lang',
          'dir',
          'charset',
          'name',
          'content',
          'property',
          'http-equiv',
          'href',
        ]).toContain(name);
      }
    }
  });

  test("in the request's language: the link's words, lang and dir, and Content-Language", async () => {
    const preview = { title: 'Sommerfest', description: null, image: null };
    for (const [code, words] of [
      ['de', 'Weiter zu fest.example'],
      ['fr', 'Continuer vers fest.example'],
      ['es', 'Continuar a fest.example'],
    ] as const) {
      const response = previewPage(preview, 'https://fest.example/', translator(code));
      expect(response.headers.get('content-language')).toBe(code);
      const html = await response.text();
      expect(html).toContain(`<html lang="${code}" dir="ltr">`);
      expect(html).toContain(`<a href="https://fest.example/">${words}</a>`);
    }
  });

  test('only an http(s) target is led to', () => {
    const preview = { title: 'T', description: null, image: null };
    for (const target of ['javascript:alert(1)', 'data:text/html,<script>x</script>', 'nope']) {
      expect(() => previewPage(preview, target, EN)).toThrow(
        'A preview page leads only to an http(s) URL',
      );
    }
    expect(previewPage(preview, 'http://example.com/', EN).status).toBe(200);
  });
});
