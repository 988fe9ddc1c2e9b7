// The scanner that reads a page's <title> and <meta> tags: tolerant of how pages are written,
// not fooled by comments and scripts, safe on a page cut anywhere.

import { describe, expect, test } from 'bun:test';
import { decodeEntities, headTags } from '../../src/previews/html-head.ts';

const metaOf = (html: string) => Object.fromEntries(headTags(html).meta);

describe("a page's head tags", () => {
  test('attributes in any order, with any quotes or none, in any case', () => {
    expect(
      metaOf(`<meta property="og:title" content="double">
        <meta content='single' property='og:description'>
        <META CONTENT=bare/ NAME=Twitter:Title>
        <meta
          name = "description"
          content = "spaced out"
        >
        <meta property=og:image content="https://cdn.example/a.png" />`),
    ).toEqual({
      'og:title': 'double',
      'og:description': 'single',
      // An unquoted value ends at a space or ">": the "/" is part of it.
      'twitter:title': 'bare/',
      description: 'spaced out',
      'og:image': 'https://cdn.example/a.png',
    });
    expect(headTags('<TITLE lang="en">Upper</TiTlE>').title).toBe('Upper');
  });

  test('the first tag of a kind wins; a meta is known by its property and by its name', () => {
    expect(
      metaOf(`<meta property="og:title" content="first"><meta property="og:title" content="second">
        <meta property="og:url" name="description" content="both">
        <meta property="og:type"><meta content="orphan">`),
    ).toEqual({ 'og:title': 'first', 'og:url': 'both', description: 'both' });
    const page = headTags('<title>One</title><svg><title>Two</title></svg>');
    expect(page.title).toBe('One');
  });

  test('comments and the text of scripts and styles are not tags', () => {
    const page = headTags(`<!-- <title>commented</title> <meta property="og:title" content="no"> -->
      <script>document.write('<meta property="og:title" content="scripted">')</script>
      <style>/* <title>styled</title> */</style>
      <SCRIPT type="module">if (a < b && '</scrip' ) {}</SCRIPT >
      <title>Real</title><meta property="og:title" content="real">`);
    expect(page.title).toBe('Real');
    expect(Object.fromEntries(page.meta)).toEqual({ 'og:title': 'real' });
  });

  test('a page cut anywhere gives what came before the cut', () => {
    const page = '<html><head><title>T</title><meta property="og:title" content="Cut here">';
    for (let end = 0; end <= page.length; end++) {
      const tags = headTags(page.slice(0, end));
      expect(tags.title).toBe(end >= '<html><head><title>T</title>'.length ? 'T' : null);
      expect(tags.meta.get('og:title')).toBe(end === page.length ? 'Cut here' : undefined);
    }
    expect(headTags('<title>never closed').title).toBeNull();
    expect(headTags('<!-- never closed <title>x</title>').title).toBeNull();
    expect(headTags('<meta property="og:title" content="x>').meta.size).toBe(0);
  });

  test('a "<" in text, doctypes and end tags are passed over', () => {
    const page = headTags(`<!DOCTYPE html><?xml version="1.0"?><p>1 < 2 <3 </p>
      <meta property="og:title" content="after">`);
    expect(Object.fromEntries(page.meta)).toEqual({ 'og:title': 'after' });
  });
});

describe('character references', () => {
  test('the common named ones and numeric ones are decoded', () => {
    expect(decodeEntities('&amp; &lt; &gt; &quot; &apos; &#39; &#x27; &#X41; &#169;')).toBe(
      `& < > " ' ' ' A ©`,
    );
    expect(decodeEntities('a&nbsp;b &hellip; &mdash; &rsquo;')).toBe('a\u00a0b … — ’');
    expect(decodeEntities('&#128512;&#x1F600;')).toBe('😀😀');
    // Numeric ones without their semicolon, as browsers read them.
    expect(decodeEntities('&#65&#x42 x')).toBe('AB x');
  });

  test('the rest is left as written, and nothing is decoded twice', () => {
    expect(decodeEntities('&unknown; &amp &AMP x&y')).toBe('&unknown; &amp &AMP x&y');
    expect(decodeEntities('&amp;lt;')).toBe('&lt;');
  });

  test('what no character stands for becomes U+FFFD', () => {
    expect(decodeEntities('&#0;&#xD800;&#x110000;&#99999999999;')).toBe('\ufffd'.repeat(4));
  });

  test('attribute values and titles are decoded', () => {
    const page = headTags(
      '<title>Tom &amp; Jerry</title><meta property="og:title" content="&lt;b&gt;&#33;">',
    );
    expect(page.title).toBe('Tom & Jerry');
    expect(page.meta.get('og:title')).toBe('<b>!');
  });
});
