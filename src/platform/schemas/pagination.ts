/**
 * The platform's collection wrapper: `next` and `previous` are absolute URLs
 * carrying an opaque `cursor` query value, or null at either end (spec 01,
 * "Pagination"). Spec 03 does not show the unified-messaging wrapper; we
 * assume the same one (docs/decisions/collection-wrapper.md).
 */
import { z } from 'zod';

export function Paginated<T extends z.ZodType>(item: T) {
  return z.looseObject({
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}

export interface Page<T> {
  next: string | null;
  previous: string | null;
  results: T[];
}
