// The ids of values the analytics tables store once (click strings, user agents), as
// one store remembers them between rollup steps, so that a value seen before costs no
// query. Only ids of committed rows are remembered: a rolled-back insert leaves none.

/** Ids remembered at most (a few dozen bytes each); past it, remembering starts afresh. */
const MAX_IDS = 50_000;

export class InternedIds {
  private readonly ids = new Map<string, number>();

  get(value: string): number | undefined {
    return this.ids.get(value);
  }

  has(value: string): boolean {
    return this.ids.has(value);
  }

  /** Adds the ids a step interned, once its transaction has committed. */
  remember(fresh: ReadonlyMap<string, number>): void {
    if (this.ids.size + fresh.size > MAX_IDS) this.ids.clear();
    for (const [value, id] of fresh) this.ids.set(value, id);
  }
}
