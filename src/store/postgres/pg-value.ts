/**
 * Values as the PostgreSQL store gives them to the server, without loading
 * the driver: also used where a backend-neutral module compares what it
 * wrote with what came back (delivery-statements.ts).
 */

/**
 * One parameter as PostgreSQL is given it. SQLite takes booleans as 0/1 only through our own code; keep the
 * same values here. PostgreSQL text cannot hold U+0000, which SQLite stores: it becomes U+FFFD, so a mail or a
 * refused body with one is still stored (and ids with one still deduplicate, always mapped the same way).
 * Also used by the copy of a SQLite store (import-sqlite.ts), so copied rows match rows written here.
 */
export function pgValue(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  // A merged statement's column (`unnest(?::text[])`), element by element.
  if (Array.isArray(v)) return v.map(pgValue);
  return typeof v === 'string' && v.includes('\u0000') ? v.replaceAll('\u0000', '\uFFFD') : v;
}
