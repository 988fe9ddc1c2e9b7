// Making the links of a bulk call: they go to the link writer together, so they are
// committed in one batch (one transaction, shared with whatever creates the same turn
// brings), or, when their URLs are long, in a few batches one after the other. A
// generated code found taken (rare) is drawn again for that link alone, as POST
// /api/shorten does; a custom code taken, in the database or by an earlier item of the
// call, is final, and so is an owner's quota (counted item by item, in order).

import type { PasswordHasher } from '../auth/passwords.ts';
import { GENERATE_ATTEMPTS, generateCode } from '../domain/codes.ts';
import { LINK_LIMIT_REACHED, type Link, type NewLink } from '../store/store.ts';
import type { LinkWriter } from './link-writer.ts';

/** A link to make: everything but its code, and the custom code asked for (undefined: generated). */
export interface Draft {
  link: Omit<NewLink, 'shortCode'>;
  custom: string | undefined;
}

/** What became of a draft: the link, or why none was made. */
export type Made = Link | 'code-taken' | 'limit-reached';

/**
 * The most bytes of links one batch holds. A thousand links of short URLs are one batch;
 * a thousand of 8,192 characters (8 MiB) would hold SQLite's writer, and with it the
 * event loop, for about half a second, and come close to PostgreSQL's statement deadline
 * (1.5 s) on a busy machine: eight batches of 1 MiB each take a few tenths of that.
 */
export const BATCH_BYTES = 1024 * 1024;

/** About what a link weighs in a batch: its text, and the rest of its row. */
function weightOf({ link }: Draft): number {
  return link.originalUrl.length + (link.source?.length ?? 0) + 200;
}

/** The drafts cut into runs of at most BATCH_BYTES (each at least one draft), by index. */
function batchesOf(drafts: readonly Draft[]): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  drafts.forEach((draft, i) => {
    const weight = weightOf(draft);
    if (batch.length > 0 && bytes + weight > BATCH_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(i);
    bytes += weight;
  });
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** Makes every draft, batch after batch; results in order. */
export async function makeLinks(writer: LinkWriter, drafts: readonly Draft[]): Promise<Made[]> {
  const made = new Array<Made>(drafts.length);
  for (const batch of batchesOf(drafts)) await makeBatch(writer, drafts, batch, made);
  return made;
}

/** Makes the drafts of `batch` (indexes), in one commit and one more per round of codes drawn again. */
async function makeBatch(
  writer: LinkWriter,
  drafts: readonly Draft[],
  batch: number[],
  made: Made[],
): Promise<void> {
  let pending = batch;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === GENERATE_ATTEMPTS) throw new Error('could not generate a free short code');
    const batch = pending.map((i) => {
      const { link, custom } = drafts[i] as Draft;
      return { ...link, shortCode: custom ?? generateCode() };
    });
    const results = await writer.createMany(batch);
    const again: number[] = [];
    pending.forEach((i, k) => {
      const result = results[k];
      if (result === LINK_LIMIT_REACHED) made[i] = 'limit-reached';
      else if (result !== undefined) made[i] = result;
      else if ((drafts[i] as Draft).custom !== undefined) made[i] = 'code-taken';
      else again.push(i);
    });
    pending = again;
  }
}

/**
 * argon2id hashes held at once: each takes its memory (19 MiB at the default cost) and a
 * thread for tens of milliseconds, so a call of many protected links must not take them all.
 */
export const HASHES_AT_ONCE = 4;

/**
 * The hash of each password (null where there is none). Items of one call with the same
 * password share one hash: a call of a thousand links behind one password costs one hash,
 * not a thousand (the salt is then shared by links that one caller made together).
 */
export async function hashPasswords(
  hasher: Pick<PasswordHasher, 'hash'>,
  passwords: readonly (string | null | undefined)[],
): Promise<(string | null)[]> {
  const distinct = [...new Set(passwords.filter((p): p is string => !!p))];
  const hashes = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < distinct.length) {
      const password = distinct[next++] as string;
      hashes.set(password, await hasher.hash(password));
    }
  };
  await Promise.all(Array.from({ length: Math.min(HASHES_AT_ONCE, distinct.length) }, worker));
  return passwords.map((p) => (p ? (hashes.get(p) as string) : null));
}
