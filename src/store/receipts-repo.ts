/**
 * Delivery receipts: what the other side reported of a message a connector
 * sent (a chat app's sent, delivered and read ticks, or its failure), one row
 * per `(connector, external id)` — the id the connector's `deliver` returned,
 * which is the delivery's `external_id`. Only the furthest status is kept:
 * sent < delivered < read < failed (final), decided in the one upsert, so a
 * report that comes again or out of order changes nothing (on every replica
 * alike). The order is src/connector/receipt-rules.ts's, written here in SQL.
 */
import type { ReceiptStatus } from './statuses.ts';
import type { Sql } from './sql.ts';

export interface ReceiptInput {
  connector: string;
  externalId: string;
  status: ReceiptStatus;
  /** When it happened by the other side's clock (Unix ms). */
  at: number;
  reason: string | null;
}

export interface ReceiptRow extends ReceiptInput {
  /** When the gateway recorded this status (Unix ms). */
  updatedAt: number;
}

/** A status's place in the order, as SQL over `column`. */
const rank = (column: string) => `(case ${column} when 'sent' then 1 when 'delivered' then 2 when 'read' then 3 when 'failed' then 4 else 0 end)`;

export class ReceiptsRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  /** Records a receipt unless a status as far or further is kept; true when it was stored. */
  async record(input: ReceiptInput, now: number): Promise<boolean> {
    const { changes } = await this.#db.run(
      `insert into delivery_receipts (connector, external_id, status, at, reason, updated_at) values (?, ?, ?, ?, ?, ?)
       on conflict (connector, external_id) do update
         set status = excluded.status, at = excluded.at, reason = excluded.reason, updated_at = excluded.updated_at
         where ${rank('delivery_receipts.status')} < ${rank('excluded.status')}`,
      [input.connector, input.externalId, input.status, input.at, input.reason, now],
    );
    return changes === 1;
  }

  /** The receipt kept for a message of the connector, if any. */
  async of(connector: string, externalId: string): Promise<ReceiptRow | undefined> {
    const row = await this.#db.get<ReceiptRow>(
      `select connector, external_id as "externalId", status, at, reason, updated_at as "updatedAt"
       from delivery_receipts where connector = ? and external_id = ?`,
      [connector, externalId],
    );
    return row && { ...row, at: Number(row.at), updatedAt: Number(row.updatedAt) };
  }
}
