/**
 * Messages a connector read and chose not to post, with the reason (an
 * auto-reply, bulk mail, a private note…); one row per external id. Listed
 * newest first by filter with an id cursor, for the CLI and the admin API.
 */
import { eq, MAX_PAGE, where } from './sql-filters.ts';
import type { Sql } from './sql.ts';

export interface SkippedFilter {
  connector?: string;
  /** The skip's code (`TG_EMAIL_AUTO_REPLY`). */
  code?: string;
  /** Unix ms, inclusive. */
  since?: number;
  /** Unix ms, exclusive. */
  until?: number;
  /** Only ids below this one (the cursor). */
  before?: number;
  /** Only ids above this one (what came since: `--follow`). */
  after?: number;
  limit?: number;
}

export interface SkippedInput {
  connector: string;
  externalId: string;
  senderId: string | null;
  summary: string | null;
  code: string;
  reason: string;
}

export interface SkippedRow extends SkippedInput {
  id: number;
  receivedAt: number;
}

export class SkippedRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  /** Records a skip; false when this external id was recorded before. */
  async record(input: SkippedInput, now: number): Promise<boolean> {
    const { changes } = await this.#db.run(
      `insert into skipped_inbound (connector, external_id, sender_id, summary, code, reason, received_at)
       values (?, ?, ?, ?, ?, ?, ?) on conflict (connector, external_id) do nothing`,
      [input.connector, input.externalId, input.senderId, input.summary, input.code, input.reason, now],
    );
    return changes === 1;
  }

  async list(connector: string, limit = 100): Promise<SkippedRow[]> {
    return this.listWhere({ connector, limit });
  }

  /** The skips the filter matches, newest first, at most `limit` (default 50). */
  async listWhere(f: SkippedFilter): Promise<SkippedRow[]> {
    const { sql, params } = where([
      eq('connector', f.connector),
      eq('code', f.code),
      eq('received_at', f.since, '>='),
      eq('received_at', f.until, '<'),
      eq('id', f.before, '<'),
      eq('id', f.after, '>'),
    ]);
    const rows = await this.#db.all<SkippedRow>(
      `select id, connector, external_id as "externalId", sender_id as "senderId", summary, code, reason, received_at as "receivedAt"
       from skipped_inbound ${sql} order by id desc limit ?`,
      [...params, Math.min(f.limit ?? 50, MAX_PAGE)],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), receivedAt: Number(r.receivedAt) }));
  }
}
