// The objects of a JSON file, one at a time, from text that arrives in chunks: JSON Lines
// (an object a line), or a document (an array of objects, or an API answer that holds
// them in a `data` array, as Kutt's and Shlink's do), never parsed whole, and none over
// MAX_RECORD_CHARS held (it is a bad item, and the reading goes on after it).

import { MAX_RECORD_CHARS, tooLong } from './record-limit.ts';

export type JsonItem =
  | { line: number; value: Record<string, unknown> }
  /** Text that should have been an object and is not JSON (or not an object). */
  | { line: number; error: string };

/** Keys under which API answers keep their list: Kutt's `data`, Shlink's `shortUrls.data`. */
const LIST_KEYS = new Set(['data', 'links', 'shortUrls']);

/**
 * Whether an object is an API answer that lists links (under one of LIST_KEYS, at its
 * top or one level down), rather than a link itself.
 */
export function listsObjects(value: Record<string, unknown>, depth = 0): boolean {
  for (const [key, inner] of Object.entries(value)) {
    if (!LIST_KEYS.has(key) || inner === null || typeof inner !== 'object') continue;
    if (Array.isArray(inner)) return inner.length === 0 || typeof inner[0] === 'object';
    if (depth === 0 && listsObjects(inner as Record<string, unknown>, 1)) return true;
  }
  return false;
}

/** Longer strings are never keys kurz looks for, and are not kept. */
const MAX_KEY = 64;

function parse(text: string, line: number): JsonItem {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return { line, value: value as Record<string, unknown> };
    }
    return { line, error: 'not a JSON object' };
  } catch (error) {
    return { line, error: `not valid JSON (${(error as Error).message})` };
  }
}

/** An object being read across chunks: its text so far, unless it is over the limit. */
interface Held {
  line: number;
  parts: string[];
  /** Where it starts in the current chunk (0 after the first). */
  from: number;
  length: number;
  over: boolean;
}

const held = (line: number, from: number): Held => ({
  line,
  parts: [],
  from,
  length: 0,
  over: false,
});

/** The rest of the chunk, kept for the object that goes on in the next one. */
function carry(object: Held, chunk: string): void {
  const part = chunk.slice(object.from);
  object.from = 0;
  if (object.over) return;
  object.length += part.length;
  if (object.length > MAX_RECORD_CHARS) {
    object.over = true;
    object.parts = [];
  } else object.parts.push(part);
}

/** An object that closes at `end` of the chunk, parsed; a bad item when it is too long. */
function closed(object: Held, chunk: string, end: number): JsonItem {
  const last = chunk.slice(object.from, end + 1);
  if (object.over || object.length + last.length > MAX_RECORD_CHARS) {
    return { line: object.line, error: tooLong('object') };
  }
  object.parts.push(last);
  return parse(object.parts.join(''), object.line);
}

/**
 * JSON Lines: each line that is not blank is an object, read and parsed alone. A line
 * cut by a chunk's end is kept in parts, joined once it is whole (joining it again with
 * every chunk made a long line cost its length squared); one over MAX_RECORD_CHARS is
 * not kept at all.
 */
export async function* jsonLines(chunks: AsyncIterable<string>): AsyncGenerator<JsonItem> {
  /** The start of the line the last chunk ended in, and its length. */
  let parts: string[] = [];
  let length = 0;
  let over = false;
  let line = 0;
  for await (const chunk of chunks) {
    const items: JsonItem[] = [];
    let from = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', from)) {
      line++;
      const item = wholeLine(line, parts, over, length, chunk.slice(from, nl));
      if (item !== undefined) items.push(item);
      parts = [];
      length = 0;
      over = false;
      from = nl + 1;
    }
    if (from < chunk.length && !over) {
      const part = chunk.slice(from);
      length += part.length;
      if (length > MAX_RECORD_CHARS) {
        over = true;
        parts = [];
      } else parts.push(part);
    }
    yield* items;
  }
  const last = wholeLine(line + 1, parts, over, length, '');
  if (last !== undefined) yield last;
}

/** A line of JSON Lines, once its end is read: its parts and `last`; undefined if blank. */
function wholeLine(
  line: number,
  parts: string[],
  over: boolean,
  length: number,
  last: string,
): JsonItem | undefined {
  if (over || length + last.length > MAX_RECORD_CHARS) return { line, error: tooLong('line') };
  const text = parts.length === 0 ? last : parts.join('') + last;
  return text.trim() === '' ? undefined : parse(text, line);
}

/**
 * A JSON document's objects: splits the text into the objects it lists, each with the
 * line it starts on, and parses each alone, so a broken object costs itself, not the
 * rest of the file. An object at the top level (one document, or several one after the
 * other) is taken whole unless it holds a list of objects under `data`, `links` or
 * `shortUrls`; then, and in a top-level array, the objects of the list are taken.
 */
export async function* jsonObjects(chunks: AsyncIterable<string>): AsyncGenerator<JsonItem> {
  /** Containers open around the scanner: '{' or '[' each, and the key it stands under. */
  const stack: { kind: number; key: string | undefined }[] = [];
  let inString = false;
  let escaped = false;
  /** The last string closed at this level, which becomes the key when a ':' follows. */
  let lastString = '';
  /** Where the open string started in this chunk (-1: not followed), and its earlier part. */
  let stringStart = -1;
  let stringHead = '';
  let key: string | undefined;
  let line = 1;
  /** The object being taken, across chunks. */
  let taking: (Held & { depth: number }) | undefined;
  /** Top-level objects are held until it is known whether they are answers with a list. */
  let topLevel: (Held & { hasList: boolean }) | undefined;
  /** Text outside any container that is not whitespace: a broken line. */
  let stray: { line: number; text: string } | undefined;
  const items: JsonItem[] = [];

  const flushStray = () => {
    if (stray === undefined) return;
    items.push(
      stray.text.length > MAX_RECORD_CHARS
        ? { line: stray.line, error: tooLong('line') }
        : parse(stray.text, stray.line),
    );
    stray = undefined;
  };

  for await (const chunk of chunks) {
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 10) line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) {
          inString = false;
          if (stringStart !== -1) lastString = stringHead + chunk.slice(stringStart, i);
        }
        continue;
      }
      if (stack.length === 0 && c !== 123 && c !== 91) {
        // Outside any container: whitespace between documents, or a broken line.
        if (c === 10 || c === 13) flushStray();
        else if (c !== 32 && c !== 9) {
          stray ??= { line, text: '' };
          // Past the limit, one more character stands for the rest.
          if (stray.text.length <= MAX_RECORD_CHARS) stray.text += chunk[i];
        }
        continue;
      }
      if (stray !== undefined && stack.length === 0) flushStray();
      switch (c) {
        case 34:
          inString = true;
          stringStart = i + 1;
          stringHead = '';
          lastString = '';
          break;
        case 58:
          key = lastString;
          break;
        case 44:
          key = undefined;
          break;
        case 123:
        case 91: {
          const parent = stack.at(-1);
          const under = parent?.kind === 123 ? key : parent?.key;
          if (c === 123 && taking === undefined) {
            if (stack.length === 0) {
              topLevel = { ...held(line, i), hasList: false };
            } else if (parent?.kind === 91 && (stack.length === 1 || LIST_KEYS.has(under ?? ''))) {
              taking = { ...held(line, i), depth: stack.length };
              if (topLevel !== undefined) {
                topLevel.hasList = true;
                topLevel.parts = [];
              }
            }
          }
          stack.push({ kind: c, key: parent?.kind === 123 ? key : undefined });
          key = undefined;
          break;
        }
        case 125:
        case 93: {
          stack.pop();
          key = undefined;
          if (c === 125 && taking !== undefined && stack.length === taking.depth) {
            items.push(closed(taking, chunk, i));
            taking = undefined;
          }
          if (stack.length === 0 && topLevel !== undefined) {
            if (!topLevel.hasList) items.push(closed(topLevel, chunk, i));
            topLevel = undefined;
          }
          break;
        }
      }
    }
    // What is still open carries on in the next chunk.
    if (taking !== undefined) carry(taking, chunk);
    if (topLevel !== undefined) {
      // A top-level object that lists others is not kept: only its items are.
      if (!topLevel.hasList) carry(topLevel, chunk);
      topLevel.from = 0;
    }
    // A string cut by the chunk's end goes on in the next; only short ones can be keys.
    if (inString && stringStart !== -1) {
      stringHead += chunk.slice(stringStart);
      stringStart = stringHead.length > MAX_KEY ? -1 : 0;
    }
    yield* items.splice(0);
  }
  flushStray();
  if (taking !== undefined) items.push({ line: taking.line, error: 'not valid JSON (cut short)' });
  else if (topLevel !== undefined && !topLevel.hasList) {
    items.push({ line: topLevel.line, error: 'not valid JSON (cut short)' });
  }
  yield* items;
}
