// A JSON export: JSON Lines (an object a line) or a document (an array of objects, or an
// API answer that lists them), its format told from its first object's fields.

import { COLUMNS, type FormatName, NAMES, normalize, type Role, recognise } from './columns.ts';
import {
  clickEntry,
  type Entry,
  type Field,
  type Input,
  InputError,
  linkEntry,
  rowDomain,
} from './entries.ts';
import { type JsonItem, jsonLines, jsonObjects, listsObjects } from './json-objects.ts';
import { EXPORT_VERSION } from './kurz-format.ts';

export async function readJson(
  head: string,
  text: AsyncIterable<string>,
  from: FormatName | undefined,
): Promise<Input> {
  // JSON Lines when the first line is an object of its own (a link, or kurz's header);
  // else a document, whose objects are found by their place in it.
  let lines = false;
  try {
    const value: unknown = JSON.parse(head);
    lines =
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      !listsObjects(value as Record<string, unknown>);
  } catch {
    // Not a whole object on its first line: a document.
  }
  const items = (lines ? jsonLines : jsonObjects)(text);
  const first = await items.next();
  if (first.done) throw new InputError('the file holds no JSON object');
  const firstItem = first.value;
  let format = from;
  let version: number | undefined;
  if ('value' in firstItem && 'kurz_export' in firstItem.value) {
    version = Number(firstItem.value.kurz_export);
    if (!Number.isInteger(version) || version < 1) {
      throw new InputError(`line ${firstItem.line}: kurz_export must be a version number`);
    }
    if (version > EXPORT_VERSION) {
      throw new InputError(
        `the file was written by a newer kurz (export version ${version}); this kurz reads version ${EXPORT_VERSION}: import it with a newer kurz`,
      );
    }
    format ??= 'kurz';
  }
  if (format === undefined) {
    if (!('value' in firstItem)) {
      throw new InputError(`line ${firstItem.line}: the first object is ${firstItem.error}`);
    }
    format = recognise(new Set(fieldsOf(firstItem.value).keys()));
    if (format === undefined) {
      throw new InputError(
        `the format was not recognised from the fields of line ${firstItem.line} (${Object.keys(firstItem.value).slice(0, 8).join(', ')}); give --from`,
      );
    }
  }
  const chosen = format;
  const columns = COLUMNS[chosen];
  /** Every item after kurz's header line. */
  async function* all(): AsyncGenerator<JsonItem> {
    if (version === undefined) yield firstItem;
    yield* items;
  }
  async function* entries(): AsyncGenerator<Entry> {
    for await (const item of all()) yield fromJson(item, chosen, columns);
  }
  // Only the fields that name a domain, or make a line a click record, are kept.
  const naming = new Set(['click', ...(columns.domain ?? []), ...(columns.shortUrl ?? [])]);
  async function* domains(): AsyncGenerator<string | null> {
    for await (const item of all()) {
      if (!('value' in item)) continue;
      const fields = fieldsOf(item.value, naming);
      if (chosen === 'kurz' && fields.has('click')) continue;
      yield rowDomain(byRole(fields, columns));
    }
  }
  const kind = lines ? 'JSON Lines' : 'JSON';
  const description =
    version !== undefined
      ? `kurz export (${kind}, version ${version})`
      : `${NAMES[chosen]} ${kind}`;
  return { format: chosen, description, entries: entries(), domains: domains() };
}

/**
 * A JSON object's fields by normalized name (`only` those, when given). An object within
 * it adds its fields under both their own name and the name prefixed with its key
 * (Shlink's meta.validUntil is `validuntil` and `metavaliduntil`); an array is kept
 * whole (see one).
 */
function fieldsOf(
  object: Record<string, unknown>,
  only?: ReadonlySet<string>,
): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  const wanted = (name: string) => only === undefined || only.has(name);
  for (const [key, value] of Object.entries(object)) {
    const name = normalize(key);
    if (WHOLE_OBJECTS.has(name) && wanted(name)) {
      fields.set(name, value);
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>)) {
        const innerName = normalize(inner);
        if (wanted(name + innerName)) fields.set(name + innerName, innerValue);
        if (wanted(innerName) && !fields.has(innerName)) fields.set(innerName, innerValue);
      }
    } else if (wanted(name)) {
      fields.set(name, value);
    }
  }
  return fields;
}

/** Objects kept whole, not spread into their fields: kurz's export's link preview. */
const WHOLE_OBJECTS: ReadonlySet<string> = new Set(['preview']);

/** The roles whose value is a list, kept whole. */
const LISTS: ReadonlySet<Role> = new Set(['tags', 'rules', 'variants']);

/** A field's value for a role: tags, rules and variants are lists; a list elsewhere gives its first string (custom_bitlinks). */
function one(role: Role, value: unknown): unknown {
  if (!Array.isArray(value) || LISTS.has(role)) return value;
  return value.find((item) => typeof item === 'string');
}

function fromJson(
  item: JsonItem,
  format: FormatName,
  columns: Partial<Record<Role, string[]>>,
): Entry {
  if (!('value' in item)) return { kind: 'bad', line: item.line, reason: item.error };
  const fields = fieldsOf(item.value);
  if (format === 'kurz' && fields.has('click')) return clickEntry(item.line, fields);
  return linkEntry(item.line, format, byRole(fields, columns));
}

/** An object's fields by role: the first of the role's names with a value; null when given empty. */
function byRole(fields: Map<string, unknown>, columns: Partial<Record<Role, string[]>>): Field {
  return (role) => {
    for (const name of columns[role] ?? []) {
      const value = one(role, fields.get(name));
      if (value !== undefined && value !== null && value !== '') return value;
    }
    return fields.has(columns[role]?.[0] ?? '') ? null : undefined;
  };
}
