// The <title> and <meta> tags of an HTML page, read by a small scanner rather than a DOM:
// it tolerates what pages do (any attribute order, any quoting, any case) and a page cut
// short, and skips comments and the text of scripts and styles.

export interface HeadTags {
  /** The first <title>'s text, entities decoded; null when there is none, or it never closes. */
  title: string | null;
  /** Each <meta>'s content by its property and its name, in lower case; the first one wins. */
  meta: Map<string, string>;
}

/** Elements whose content is text up to their end tag, not markup. */
const TEXT_ELEMENTS = new Set(['title', 'script', 'style', 'textarea', 'xmp']);

/** HTML's whitespace between attributes: space, tab, line feed, form feed, carriage return. */
const SPACE = new Set([' ', '\t', '\n', '\f', '\r']);

/** The named references that titles and descriptions use; others are left as written. */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  laquo: '\u00ab',
  raquo: '\u00bb',
  middot: '\u00b7',
  bull: '\u2022',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
};

/** A named reference needs its semicolon; a numeric one is read without, as browsers do. */
const REFERENCE = /&(?:#x([0-9a-f]+);?|#([0-9]+);?|([a-z]+);)/gi;

/** The text with its character references replaced by the characters they stand for. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (whole, hex?: string, decimal?: string, name?: string) => {
    if (name !== undefined) return NAMED[name] ?? whole;
    const code = hex !== undefined ? parseInt(hex, 16) : Number(decimal);
    // NUL, surrogates and what lies past Unicode are replaced, as HTML's parser does.
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : '\ufffd';
  });
}

interface StartTag {
  name: string;
  attributes: Map<string, string>;
  /** Where the text after the tag begins. */
  end: number;
}

/** Reads the start tag at `open` (a `<`); undefined when the page ends inside it. */
function startTag(html: string, open: number): StartTag | undefined {
  let at = open + 1;
  const nameEnd = (i: number) =>
    i >= html.length || SPACE.has(html[i] as string) || html[i] === '/' || html[i] === '>';
  while (!nameEnd(at)) at++;
  const name = html.slice(open + 1, at).toLowerCase();
  const attributes = new Map<string, string>();
  for (;;) {
    while (at < html.length && (SPACE.has(html[at] as string) || html[at] === '/')) at++;
    if (at >= html.length) return undefined;
    if (html[at] === '>') return { name, attributes, end: at + 1 };
    const nameStart = at;
    // The first character belongs to the name even when it is "=", as HTML reads it.
    at++;
    while (!nameEnd(at) && html[at] !== '=') at++;
    const attribute = html.slice(nameStart, at).toLowerCase();
    while (at < html.length && SPACE.has(html[at] as string)) at++;
    let value = '';
    if (html[at] === '=') {
      at++;
      while (at < html.length && SPACE.has(html[at] as string)) at++;
      const quote = html[at];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, at + 1);
        if (close === -1) return undefined;
        value = html.slice(at + 1, close);
        at = close + 1;
      } else {
        const valueStart = at;
        while (at < html.length && !SPACE.has(html[at] as string) && html[at] !== '>') at++;
        value = html.slice(valueStart, at);
      }
    }
    if (!attributes.has(attribute)) attributes.set(attribute, decodeEntities(value));
  }
}

/** Where the end tag of `name` begins at or after `from`, in any case; -1 if it never comes. */
function endTagAt(html: string, name: string, from: number): number {
  const pattern = new RegExp(`</${name}[\\s/>]`, 'gi');
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}

/** The page's title and meta tags, from as much of the page as `html` holds. */
export function headTags(html: string): HeadTags {
  let title: string | null = null;
  const meta = new Map<string, string>();
  let at = 0;
  for (;;) {
    const open = html.indexOf('<', at);
    if (open === -1) break;
    const next = html[open + 1] ?? '';
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      if (close === -1) break;
      at = close + 3;
      continue;
    }
    if (next === '/' || next === '!' || next === '?') {
      // An end tag, a doctype or a processing instruction: nothing to read in it.
      const close = html.indexOf('>', open + 2);
      if (close === -1) break;
      at = close + 1;
      continue;
    }
    if (!/[a-z]/i.test(next)) {
      // A "<" in text.
      at = open + 1;
      continue;
    }
    const tag = startTag(html, open);
    if (tag === undefined) break;
    at = tag.end;
    if (tag.name === 'meta') {
      const content = tag.attributes.get('content');
      if (content === undefined) continue;
      for (const key of ['property', 'name']) {
        const value = tag.attributes.get(key)?.trim().toLowerCase();
        if (value && !meta.has(value)) meta.set(value, content);
      }
    } else if (TEXT_ELEMENTS.has(tag.name)) {
      const close = endTagAt(html, tag.name, at);
      if (close === -1) break;
      if (tag.name === 'title' && title === null) title = decodeEntities(html.slice(at, close));
      at = close;
    }
  }
  return { title, meta };
}
