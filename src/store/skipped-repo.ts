/** Messages a connector read and chose not to post, with the reason; one row per external id. */
import type { Statement } from 'better-sqlite3';
import type { Store } from './database.ts';

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
  readonly #sql: Record<'insert' | 'list', Statement>;

  constructor(store: Store) {
    const db = store.sqlite;
    this.#sql = {
      insert: db.prepare(
        `insert into skipped_inbound (connector, external_id, sender_id, summary, code, reason, received_at)
         values (?, ?, ?, ?, ?, ?, ?) on conflict (connector, external_id) do nothing`,
      ),
      list: db.prepare(
        `select id, connector, external_id as externalId, sender_id as senderId, summary, code, reason, received_at as receivedAt
         from skipped_inbound where connector = ? order by id desc limit ?`,
      ),
    };
  }

  /** Records a skip; false when this external id was recorded before. */
  record(input: SkippedInput, now: number): boolean {
    return (
      this.#sql.insert.run(input.connector, input.externalId, input.senderId, input.summary, input.code, input.reason, now)
        .changes === 1
    );
  }

  list(connector: string, limit = 100): SkippedRow[] {
    return this.#sql.list.all(connector, limit) as SkippedRow[];
  }
}
