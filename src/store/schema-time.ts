/**
 * The tables' time default (schema.ts, schema-inbound.ts): the insert's time
 * in Unix milliseconds, as SQLite computes it.
 */
import { sql } from 'drizzle-orm';

export const now = sql`(cast(unixepoch('subsec') * 1000 as integer))`;
