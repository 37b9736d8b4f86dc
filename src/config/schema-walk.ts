/**
 * What a zod schema expects at a path of its input: the keys a mapping there
 * may have (for "did you mean …?" on an unknown key). Walks the schema's definition through wrappers
 * (optional, default, pipe…), unions (every option) and arrays, on the input
 * side of each transform — what an operator writes.
 */
import type { z } from 'zod';

type Schema = z.core.$ZodType;

/** The parts of zod's definitions the walk reads; each kind has some of them. */
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  innerType?: Schema;
  in?: Schema;
  element?: Schema;
  options?: readonly Schema[];
  left?: Schema;
  right?: Schema;
  valueType?: Schema;
  getter?: () => Schema;
}

const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def;

/** Kinds that wrap one schema without changing which keys its input has. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch', 'success']);

/** The schemas that may describe a value at this point: wrappers taken off, unions spread out. */
function alternatives(schema: Schema, depth = 0): Schema[] {
  if (depth > 32) return [];
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return alternatives(def.innerType, depth + 1);
  if (def.type === 'pipe' && def.in) return alternatives(def.in, depth + 1);
  if (def.type === 'lazy' && def.getter) return alternatives(def.getter(), depth + 1);
  if (def.type === 'union' && def.options) return def.options.flatMap((o) => alternatives(o, depth + 1));
  if (def.type === 'intersection' && def.left && def.right) {
    return [...alternatives(def.left, depth + 1), ...alternatives(def.right, depth + 1)];
  }
  return [schema];
}

/** The schemas of the value at `key` below `schema` (a field of an object, an element of an array, a record's value). */
function children(schema: Schema, key: PropertyKey): Schema[] {
  return alternatives(schema).flatMap((s) => {
    const def = defOf(s);
    if (def.type === 'object' && def.shape && typeof key === 'string' && Object.hasOwn(def.shape, key)) return [def.shape[key]!];
    if (def.type === 'array' && def.element && typeof key === 'number') return [def.element];
    if (def.type === 'record' && def.valueType) return [def.valueType];
    return [];
  });
}

/** The schemas that describe the input at `path` (none when the path leaves the schema). */
export function schemasAt(schema: Schema, path: readonly PropertyKey[]): Schema[] {
  return path.reduce<Schema[]>((at, key) => at.flatMap((s) => children(s, key)), [schema]);
}

/** Every key a mapping at `path` may have, over all alternatives. */
export function keysAt(schema: Schema, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(schema, path).flatMap((at) => alternatives(at))) {
    const def = defOf(s);
    if (def.type === 'object' && def.shape) for (const key of Object.keys(def.shape)) keys.add(key);
  }
  return [...keys];
}

