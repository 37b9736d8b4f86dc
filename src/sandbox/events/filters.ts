/**
 * Filters of the event listing: `{"<column>": value | [values] | "$name"}`,
 * every key must match (a list matches any of its values). A `$name` value
 * refers to a pipeline value set of the organization (seeded through the
 * control API) and, as spec 02 says, is allowed only next to at least one
 * concrete field, and only in generic-event filters.
 */
import { SandboxValidationError } from '../errors.ts';
import type { ListedEvent, Scalar } from './model.ts';
import type { FilterInput } from './request.ts';
import type { EventListingState } from './state.ts';

export interface FilterContext {
  columns: readonly string[];
  organizationId: string;
  events: EventListingState;
  /** Generic events only. */
  allowValueSets: boolean;
}

const isValueSet = (value: Scalar | Scalar[]): value is string => typeof value === 'string' && value.startsWith('$');

export function filterPredicate<C extends string>(
  filters: FilterInput,
  context: FilterContext,
): (event: ListedEvent<C>) => boolean {
  const entries = Object.entries(filters);
  for (const [key] of entries) {
    if (!context.columns.includes(key)) {
      throw SandboxValidationError.field(`filters.${key}`, `Unknown field; filter on one of ${context.columns.join(', ')}.`);
    }
  }
  const sets = entries.filter(([, value]) => isValueSet(value));
  if (sets.length > 0 && !context.allowValueSets) {
    throw SandboxValidationError.field(`filters.${sets[0]![0]}`, 'Value sets ($name) are only for generic-event filters.');
  }
  if (sets.length > 0 && sets.length === entries.length) {
    throw SandboxValidationError.field('filters', 'A value set ($name) must stand next to at least one concrete field.');
  }
  const wanted = new Map<string, ReadonlySet<Scalar>>();
  for (const [key, value] of entries) {
    if (isValueSet(value)) {
      const values = context.events.valueSet(context.organizationId, value.slice(1));
      if (values === undefined) throw SandboxValidationError.field(`filters.${key}`, `Unknown value set ${value}.`);
      wanted.set(key, new Set(values));
    } else {
      wanted.set(key, new Set(Array.isArray(value) ? value : [value]));
    }
  }
  return (event) => {
    for (const [key, values] of wanted) {
      if (!values.has((event.columns as Record<string, Scalar>)[key] ?? null)) return false;
    }
    return true;
  };
}
