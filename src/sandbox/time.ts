/**
 * Times as the sandbox reads and writes them: ISO 8601 text in, epoch
 * milliseconds inside, ISO 8601 in UTC (`Z`) out. A time without an offset
 * is read as UTC, never as the host's local time.
 */
const HAS_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;

/** Epoch milliseconds, or NaN for text that is not a date and time. */
export function instantOf(text: string): number {
  return Date.parse(HAS_OFFSET.test(text) ? text : `${text}Z`);
}

/** ISO 8601 text (UTC) of epoch milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** ISO 8601 text (UTC) of epoch milliseconds, or null for null. */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
