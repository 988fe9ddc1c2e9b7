// How an engine's façade is put together: every function of an area runs through the
// engine's one wrapper (SQLite's guard of writes, PostgreSQL's deadline), so a façade
// composes areas rather than forwarding each operation by hand.

/** A function's result as a store gives it: a promise, whatever the area returns. */
export type Guarded<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

/** Runs one operation of a store: the engine's guard or deadline around `work`. */
export type Wrapper = <R>(work: () => R | Promise<R>) => Promise<R>;

/** The functions of `area`, each run through `wrap`. */
// biome-ignore lint/suspicious/noExplicitAny: any function of an area
export function guarded<T extends Record<string, (...args: any[]) => unknown>>(
  area: T,
  wrap: Wrapper,
): Guarded<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(area)) {
    out[name] = (...args: unknown[]) => wrap(() => fn(...args));
  }
  return out as Guarded<T>;
}

/** As guarded, but the functions named in `writes` run through `wrapWrite`. */
// biome-ignore lint/suspicious/noExplicitAny: any function of an area
export function guardedWrites<T extends Record<string, (...args: any[]) => unknown>>(
  area: T,
  wrap: Wrapper,
  wrapWrite: Wrapper,
  writes: readonly (keyof T & string)[],
): Guarded<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(area)) {
    const through = writes.includes(name) ? wrapWrite : wrap;
    out[name] = (...args: unknown[]) => through(() => fn(...args));
  }
  return out as Guarded<T>;
}
