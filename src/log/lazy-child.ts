/**
 * A child logger made when it first writes. pino's `child` serialises its
 * bindings at once, through the root's redaction: made for every job run and
 * every request, that was ~3 % of the receiver's CPU, while almost every run
 * and request writes nothing at the gateway's usual level. A log call below
 * the level is dropped without making the child (the level is the parent's,
 * read at the call); a call that writes, or any other use, makes it and is
 * answered by it. A child with a level of its own is made at once.
 */
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

const LEVEL_METHODS = new Set<string | symbol>(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const dropped = (): void => {};

export function lazyChild(parent: Logger, bindings: Bindings, options?: ChildLoggerOptions): Logger {
  if (options?.level !== undefined) return parent.child(bindings, options);
  let child: Logger | undefined;
  const made = (): Logger => (child ??= parent.child(bindings, options));
  return new Proxy({} as Logger, {
    get(_target, prop) {
      if (child === undefined && (LEVEL_METHODS.has(prop) || prop === 'child')) {
        // Read, not called (Fastify checks a request logger's methods are there): made only by a call that writes.
        if (prop !== 'child' && !parent.isLevelEnabled(prop as string)) return dropped;
        return (...args: unknown[]) => (made()[prop as 'info'] as (...a: unknown[]) => unknown)(...args);
      }
      const real = made();
      const value: unknown = Reflect.get(real, prop, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
    set: (_target, prop, value) => Reflect.set(made(), prop, value),
    has: (_target, prop) => prop in made(),
    getPrototypeOf: () => Reflect.getPrototypeOf(made()),
  });
}
