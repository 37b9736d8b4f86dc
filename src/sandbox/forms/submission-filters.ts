/**
 * Which submissions a list, count or CSV export selects (spec 02, "Form
 * data"); the matching rules inside jsonEq and jsonLike are not shown, so:
 *
 * - `interactionUuid`: the submissions of that interaction (of the
 *   organization in the path); `url`: the exact submission URL.
 * - `from` / `to`: inclusive bounds on the submission time; a time without an
 *   offset is UTC.
 * - `jsonEq`: every given key exists in `formdata` with exactly the given
 *   value, type included (`true` does not match `"true"`).
 * - `jsonLike`: every given key exists in `formdata` and its value, as text
 *   (`true`/`false` for checkboxes), contains the given value as text,
 *   ignoring case.
 * - Order: by submission time, then ID; `orderDesc` reverses it.
 */
import { instantOf } from '../time.ts';
import type { FormValue, SubmissionRecord } from './forms-state.ts';

export interface SubmissionFilter {
  interactionUuid: string;
  url?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  jsonEq?: Record<string, unknown> | undefined;
  jsonLike?: Record<string, unknown> | undefined;
  orderDesc?: boolean | undefined;
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function matchesEq(formdata: Record<string, FormValue>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([key, value]) => Object.hasOwn(formdata, key) && formdata[key] === value);
}

function matchesLike(formdata: Record<string, FormValue>, wanted: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(
    ([key, value]) =>
      Object.hasOwn(formdata, key) && textOf(formdata[key]).toLowerCase().includes(textOf(value).toLowerCase()),
  );
}

export function selectSubmissions(all: readonly SubmissionRecord[], filter: SubmissionFilter): SubmissionRecord[] {
  const from = filter.from === undefined ? -Infinity : instantOf(filter.from);
  const to = filter.to === undefined ? Infinity : instantOf(filter.to);
  const selected = all.filter(
    (s) =>
      s.interactionUuid === filter.interactionUuid &&
      (filter.url === undefined || s.url === filter.url) &&
      s.timestamp >= from &&
      s.timestamp <= to &&
      (filter.jsonEq === undefined || matchesEq(s.formdata, filter.jsonEq)) &&
      (filter.jsonLike === undefined || matchesLike(s.formdata, filter.jsonLike)),
  );
  selected.sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
  return filter.orderDesc ? selected.reverse() : selected;
}

/** A jsonEq / jsonLike value as sent: JSON text (query, or CSV body) or the object itself (CSV body). */
export function jsonObjectOf(value: string | Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : value;
}
