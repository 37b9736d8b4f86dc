/**
 * The attempt log of both directions: each hand-over of a delivery to its
 * connector (opened when it starts, closed with its outcome), and each
 * platform POST an inbound item took part in. Written in the
 * same write as the items' own status.
 */
import { CLOSE_ATTEMPT, OPEN_ATTEMPT } from './delivery-statements.ts';
import type { Sql } from './sql.ts';
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
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  /** Merged with the attempts its neighbours open (delivery-statements.ts). */
  openDelivery(delivery: number, jobId: number | null, attempt: number, replay: boolean, now: number): Promise<number> {
    return this.#db.merged(OPEN_ATTEMPT, [delivery, jobId, attempt, replay ? 1 : 0, now]);
  }

  closeDelivery(id: number, outcome: Exclude<AttemptOutcome, 'running'>, error: string | null, externalId: string | null, now: number): Promise<void> {
    return this.#db.merged(CLOSE_ATTEMPT, [id, now, outcome, error, externalId]);
  }

  async ofDelivery(delivery: number): Promise<DeliveryAttemptRow[]> {
    const rows = await this.#db.all<Omit<DeliveryAttemptRow, 'replay'> & { replay: number }>(
      `select id, delivery, job_id as "jobId", attempt, replay, started_at as "startedAt", ended_at as "endedAt", outcome, error,
         external_id as "externalId" from delivery_attempts where delivery = ? order by id`,
      [delivery],
    );
    return rows.map((r) => ({ ...r, replay: r.replay === 1 }));
  }

  async recordInbound(a: InboundAttemptInput): Promise<void> {
    await this.#db.run(
      `insert into inbound_attempts (inbound, job_id, attempt, started_at, ended_at, outcome, status, error, chat_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [a.inbound, a.jobId, a.attempt, a.startedAt, a.endedAt, a.outcome, a.status, a.error, a.chatId],
    );
  }

  async ofInbound(inbound: number): Promise<InboundAttemptRow[]> {
    return this.#db.all<InboundAttemptRow>(
      `select id, inbound, job_id as "jobId", attempt, started_at as "startedAt", ended_at as "endedAt", outcome, status, error,
         chat_id as "chatId" from inbound_attempts where inbound = ? order by id`,
      [inbound],
    );
  }
}
