/** Messages a connector read and chose not to post, with the reason; one row per external id. */
import type { Sql } from './sql.ts';

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
    return this.#db.all<SkippedRow>(
      `select id, connector, external_id as "externalId", sender_id as "senderId", summary, code, reason, received_at as "receivedAt"
       from skipped_inbound where connector = ? order by id desc limit ?`,
      [connector, limit],
    );
  }
}
