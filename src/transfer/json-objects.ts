// The objects of a JSON file, one at a time, from text that arrives in chunks: JSON Lines
// (an object a line), or a document (an array of objects, or an API answer that holds
// them in a `data` array, as Kutt's and Shlink's do), never parsed whole.

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

/** JSON Lines: each line that is not blank is an object, read and parsed alone. */
export async function* jsonLines(chunks: AsyncIterable<string>): AsyncGenerator<JsonItem> {
  let rest = '';
  let line = 0;
  for await (const chunk of chunks) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() as string;
    const items: JsonItem[] = [];
    for (const text of lines) {
      line++;
      if (text.trim() !== '') items.push(parse(text, line));
    }
    yield* items;
  }
  if (rest.trim() !== '') yield parse(rest, line + 1);
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
  /** The text of the object being taken, across chunks, and where it started. */
  let taking: { depth: number; line: number; parts: string[]; from: number } | undefined;
  /** Top-level objects are held until it is known whether they are answers with a list. */
  let topLevel: { line: number; parts: string[]; from: number; hasList: boolean } | undefined;
  /** Text outside any container that is not whitespace: a broken line. */
  let stray: { line: number; text: string } | undefined;
  const items: JsonItem[] = [];

  const flushStray = () => {
    if (stray === undefined) return;
    items.push(parse(stray.text, stray.line));
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
          stray.text += chunk[i];
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
              topLevel = { line, parts: [], from: i, hasList: false };
            } else if (parent?.kind === 91 && (stack.length === 1 || LIST_KEYS.has(under ?? ''))) {
              taking = { depth: stack.length, line, parts: [], from: i };
              if (topLevel !== undefined) topLevel.hasList = true;
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
            taking.parts.push(chunk.slice(taking.from, i + 1));
            items.push(parse(taking.parts.join(''), taking.line));
            taking = undefined;
          }
          if (stack.length === 0 && topLevel !== undefined) {
            if (!topLevel.hasList) {
              topLevel.parts.push(chunk.slice(topLevel.from, i + 1));
              items.push(parse(topLevel.parts.join(''), topLevel.line));
            }
            topLevel = undefined;
          }
          break;
        }
      }
    }
    // What is still open carries on in the next chunk.
    if (taking !== undefined) {
      taking.parts.push(chunk.slice(taking.from));
      taking.from = 0;
    }
    if (topLevel !== undefined) {
      // A top-level object that lists others is not kept: only its items are.
      if (!topLevel.hasList) topLevel.parts.push(chunk.slice(topLevel.from));
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
