/**
 * Inbound messages: stored on submit with the dedup key
 * `(connector, external_id)`, then marked posted (or dead) by the job that
 * sends them to the platform.
 */
import { besideId, type Sql } from './sql.ts';
import type { InboundKind, InboundStatus } from './schema.ts';

export interface NewInbound {
  connector: string;
  externalId: string;
  kind: InboundKind;
  thread: number;
  senderId: string;
  senderName: string | null;
  senderType: 'visitor' | 'user';
  body: string;
  fullText: string | null;
  variables: Record<string, string | null> | null;
  skipWaitingState: boolean;
  closeSession: boolean;
}

export interface InboundRow extends NewInbound {
  id: number;
  status: InboundStatus;
  chatId: string | null;
  platformMessageId: string | null;
  lastError: string | null;
  receivedAt: number;
}

interface RawInbound {
  id: number;
  connector: string;
  external_id: string;
  kind: InboundKind;
  thread: number;
  sender_id: string;
  sender_name: string | null;
  sender_type: 'visitor' | 'user';
  body: string;
  full_text: string | null;
  variables: string | null;
  skip_waiting_state: number;
  close_session: number;
  status: InboundStatus;
  chat_id: string | null;
  platform_message_id: string | null;
  last_error: string | null;
  received_at: number;
}

const toInbound = (r: RawInbound): InboundRow => ({
  id: r.id,
  connector: r.connector,
  externalId: r.external_id,
  kind: r.kind,
  thread: r.thread,
  senderId: r.sender_id,
  senderName: r.sender_name,
  senderType: r.sender_type,
  body: r.body,
  fullText: r.full_text,
  variables: r.variables === null ? null : (JSON.parse(r.variables) as Record<string, string | null>),
  skipWaitingState: r.skip_waiting_state === 1,
  closeSession: r.close_session === 1,
  status: r.status,
  chatId: r.chat_id,
  platformMessageId: r.platform_message_id,
  lastError: r.last_error,
  receivedAt: r.received_at,
});

const COLUMNS = `id, connector, external_id, kind, thread, sender_id, sender_name, sender_type, body, full_text, variables,
  skip_waiting_state, close_session, status, chat_id, platform_message_id, last_error, received_at`;

export class InboundRepo {
  readonly #db: Sql;
  /** The status as a statement that finds a message by its id compares it (sql.ts `besideId`). */
  readonly #status: string;

  constructor(db: Sql) {
    this.#db = db;
    this.#status = besideId(db.dialect, 'status');
  }

  async insert(m: NewInbound, now: number): Promise<number> {
    return (await this.#db.insert(INSERT, insertParams(m, now))) as number;
  }

  /** `insert`, unless the connector already has a message of that external id: then nothing is stored (undefined). */
  async insertIfNew(m: NewInbound, now: number): Promise<number | undefined> {
    return this.#db.insert(`${INSERT} on conflict (connector, external_id) do nothing`, insertParams(m, now));
  }

  /** The job a message was last handed to; null when none. */
  async jobOf(id: number): Promise<number | null> {
    const row = await this.#db.get<{ job_id: number | null }>(`select job_id from inbound_messages where id = ?`, [id]);
    return row?.job_id == null ? null : Number(row.job_id);
  }

  /** How many dead messages still name `jobId` as theirs. */
  async deadOfJob(jobId: number): Promise<number> {
    const row = await this.#db.get<{ n: number }>(`select count(*) as n from inbound_messages where job_id = ? and status = 'dead'`, [jobId]);
    return Number(row?.n ?? 0);
  }

  async setJob(id: number, jobId: number): Promise<void> {
    await this.#db.run(`update inbound_messages set job_id = ? where id = ?`, [jobId, id]);
  }

  /** The thread's messages not yet on the platform, oldest first. */
  async pending(threadRowId: number, limit: number): Promise<InboundRow[]> {
    const rows = await this.#db.all<RawInbound>(
      `select ${COLUMNS} from inbound_messages where thread = ? and status = 'pending' order by id limit ?`,
      [threadRowId, limit],
    );
    return rows.map(toInbound);
  }

  async byId(id: number): Promise<InboundRow | undefined> {
    const r = await this.#db.get<RawInbound>(`select ${COLUMNS} from inbound_messages where id = ?`, [id]);
    return r && toInbound(r);
  }

  async markPosted(id: number, chatId: string | null, platformMessageId: string | null, isNewSession: boolean | null, now: number): Promise<void> {
    await this.#db.run(
      `update inbound_messages set status = 'posted', chat_id = ?, platform_message_id = ?, is_new_session = ?,
         last_error = null, posted_at = ? where id = ? and ${this.#status} = 'pending'`,
      [chatId, platformMessageId, isNewSession === null ? null : isNewSession ? 1 : 0, now, id],
    );
  }

  async markDead(id: number, error: string): Promise<void> {
    await this.#db.run(`update inbound_messages set status = 'dead', last_error = ? where id = ? and ${this.#status} = 'pending'`, [error, id]);
  }

  /**
   * After a thread job's last try failed: its pending items that no other live job will send
   * (queued by this job, or by one that already finished) become dead with the error.
   */
  async markStrandedDead(threadRowId: number, jobId: number, error: string): Promise<number> {
    const { changes } = await this.#db.run(
      `update inbound_messages set status = 'dead', last_error = ?
       where thread = ? and status = 'pending'
         and (job_id = ? or job_id is null or exists (select 1 from jobs j where j.id = inbound_messages.job_id and j.status in ('done', 'dead')))`,
      [error, threadRowId, jobId],
    );
    return changes;
  }

  /** The dead messages of a job back to pending (the job was retried by an operator); how many. */
  async reviveOfJob(jobId: number): Promise<number> {
    return (await this.#db.run(`update inbound_messages set status = 'pending' where job_id = ? and status = 'dead'`, [jobId])).changes;
  }

  /** A dead message back to pending (its job was retried by an operator). */
  async revive(id: number): Promise<boolean> {
    return (await this.#db.run(`update inbound_messages set status = 'pending' where id = ? and ${this.#status} = 'dead'`, [id])).changes === 1;
  }
}

const INSERT = `insert into inbound_messages (connector, external_id, kind, thread, sender_id, sender_name, sender_type, body,
   full_text, variables, skip_waiting_state, close_session, received_at)
 values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function insertParams(m: NewInbound, now: number): unknown[] {
  return [
    m.connector, m.externalId, m.kind, m.thread, m.senderId, m.senderName, m.senderType, m.body, m.fullText,
    m.variables === null ? null : JSON.stringify(m.variables), m.skipWaitingState ? 1 : 0, m.closeSession ? 1 : 0, now,
  ];
}
