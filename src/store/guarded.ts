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

/** The functions of `area` (an object of functions, or an instance of a class), each run through `wrap`. */
export function guarded<T extends object>(area: T, wrap: Wrapper): Guarded<T> {
  return guardedWrites(area, wrap, wrap, []);
}

/** The functions of an area: an object's own, or a class's methods (bound to it). */
function functionsOf(area: object): [string, (...args: unknown[]) => unknown][] {
  const prototype = Object.getPrototypeOf(area);
  const names =
    prototype === Object.prototype
      ? Object.keys(area)
      : Object.getOwnPropertyNames(prototype).filter((name) => name !== 'constructor');
  return names.map((name) => {
    const fn = (area as Record<string, (...args: unknown[]) => unknown>)[name] as (
      ...args: unknown[]
    ) => unknown;
    return [name, fn.bind(area)];
  });
}

/** As guarded, but the functions named in `writes` run through `wrapWrite`. */
export function guardedWrites<T extends object>(
  area: T,
  wrap: Wrapper,
  wrapWrite: Wrapper,
  writes: readonly (keyof T & string)[],
): Guarded<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of functionsOf(area)) {
    const through = (writes as readonly string[]).includes(name) ? wrapWrite : wrap;
    out[name] = (...args: unknown[]) => through(() => fn(...args));
  }
  return out as Guarded<T>;
}
