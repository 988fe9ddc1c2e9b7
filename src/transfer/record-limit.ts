// The longest record `kurz import` reads: a CSV record, a JSON Lines line or a JSON
// object of 1 MiB (in characters; a link row is a few hundred). A longer one is a bad
// row, its text dropped as it is read, so that one huge line cannot take the memory a
// file's size would (a 200 MB line held whole took 2 GB).

export const MAX_RECORD_CHARS = 1024 * 1024;

/** The bad row's reason for a record over the limit: `what` is "record", "line" or "object". */
export function tooLong(what: string): string {
  return `the ${what} is longer than 1 MiB (${MAX_RECORD_CHARS.toLocaleString('en')} characters)`;
}
