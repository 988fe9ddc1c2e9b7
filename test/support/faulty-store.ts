// A store that behaves like the real one except for the operations a test replaces.

import type { Store } from '../../src/store/store.ts';

export function withFaults(store: Store, faults: Partial<Store>): Store {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name in faults) return faults[name as keyof Store];
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
