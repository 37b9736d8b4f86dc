/**
 * A store whose writes wait at a gate until `open()`: a test holds a write (a
 * replica's ask for a poller's lease) unanswered for as long as it needs.
 * Everything else is the store itself.
 */
import type { Store } from '../../src/store/store.ts';

export function gatedStore(store: Store): { store: Store; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const write: Store['write'] = async (fn) => {
    await gate;
    return store.write(fn);
  };
  const gated = new Proxy(store, {
    get: (target, key) => {
      if (key === 'write') return write;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: gated, open };
}
