/**
 * The attempt log of both directions: each hand-over of a delivery to its
 * connector (opened when it starts, closed with its outcome), and each
 * platform POST an inbound item took part in. Synchronous, for use inside
 * the transactions that change the items' own status.
 */
import type { Statement } from 'better-sqlite3';
import type { Store } from './database.ts';
import type { AttemptOutcome, InboundOutcome } from './schema.ts';

export interface DeliveryAttemptRow {
  id: number;
  delivery: number;
  jobId: number | null;
  attempt: number;
  replay: boolean;
  startedAt: number;
  endedAt: number | null;
  outcome: AttemptOutcome;
  error: string | null;
  externalId: string | null;
}

export interface InboundAttemptRow {
  id: number;
  inbound: number;
  jobId: number | null;
  attempt: number;
  startedAt: number;
  endedAt: number;
  outcome: InboundOutcome;
  status: number | null;
  error: string | null;
  chatId: string | null;
}

export type InboundAttemptInput = Omit<InboundAttemptRow, 'id'>;

export class AttemptsRepo {
  readonly #sql: Record<'open' | 'close' | 'ofDelivery' | 'inbound' | 'ofInbound', Statement>;

  constructor(store: Store) {
    const db = store.sqlite;
    this.#sql = {
      open: db.prepare(
        `insert into delivery_attempts (delivery, job_id, attempt, replay, started_at, outcome) values (?, ?, ?, ?, ?, 'running') returning id`,
      ),
      close: db.prepare(`update delivery_attempts set ended_at = ?, outcome = ?, error = ?, external_id = ? where id = ?`),
      ofDelivery: db.prepare(
        `select id, delivery, job_id as jobId, attempt, replay, started_at as startedAt, ended_at as endedAt, outcome, error,
           external_id as externalId from delivery_attempts where delivery = ? order by id`,
      ),
      inbound: db.prepare(
        `insert into inbound_attempts (inbound, job_id, attempt, started_at, ended_at, outcome, status, error, chat_id)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      ofInbound: db.prepare(
        `select id, inbound, job_id as jobId, attempt, started_at as startedAt, ended_at as endedAt, outcome, status, error,
           chat_id as chatId from inbound_attempts where inbound = ? order by id`,
      ),
    };
  }

  openDelivery(delivery: number, jobId: number | null, attempt: number, replay: boolean, now: number): number {
    return (this.#sql.open.get(delivery, jobId, attempt, replay ? 1 : 0, now) as { id: number }).id;
  }

  closeDelivery(id: number, outcome: Exclude<AttemptOutcome, 'running'>, error: string | null, externalId: string | null, now: number): void {
    this.#sql.close.run(now, outcome, error, externalId, id);
  }

  ofDelivery(delivery: number): DeliveryAttemptRow[] {
    return (this.#sql.ofDelivery.all(delivery) as (Omit<DeliveryAttemptRow, 'replay'> & { replay: number })[]).map((r) => ({
      ...r,
      replay: r.replay === 1,
    }));
  }

  recordInbound(a: InboundAttemptInput): void {
    this.#sql.inbound.run(a.inbound, a.jobId, a.attempt, a.startedAt, a.endedAt, a.outcome, a.status, a.error, a.chatId);
  }

  ofInbound(inbound: number): InboundAttemptRow[] {
    return this.#sql.ofInbound.all(inbound) as InboundAttemptRow[];
  }
}
