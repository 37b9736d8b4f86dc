/**
 * Threads and their external references.
 */
import { columns } from './mergeable.ts';
import { pgValue } from './postgres/pg-value.ts';
import type { Mergeable, Sql } from './sql.ts';

export interface ThreadRow {
  id: number;
  connector: string;
  threadKey: string;
  threadId: string;
  chatId: string | null;
  mappingId: string | null;
  closed: boolean;
  createdAt: number;
  updatedAt: number;
}

interface RawThread {
  id: number;
  connector: string;
  thread_key: string;
  thread_id: string;
  chat_id: string | null;
  mapping_id: string | null;
  closed: number;
  created_at: number;
  updated_at: number;
}

const toThread = (r: RawThread): ThreadRow => ({
  id: r.id,
  connector: r.connector,
  threadKey: r.thread_key,
  threadId: r.thread_id,
  chatId: r.chat_id,
  mappingId: r.mapping_id,
  closed: r.closed === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const COLUMNS = 'id, connector, thread_key, thread_id, chat_id, mapping_id, closed, created_at, updated_at';

/**
 * A thread by the platform's thread id: read by every delivery as it starts, side by side with the other
 * deliveries a claim started (sql.ts `Mergeable`). Merged, the rows are paired with the asks by their key.
 */
export const BY_THREAD_ID: Mergeable<readonly [string, string], RawThread | undefined> = {
  name: 'thread_by_thread_id',
  one: (db, params) => db.get<RawThread>(`select ${COLUMNS} from threads where connector = ? and thread_id = ?`, params),
  async many(db, asks) {
    const rows = await db.all<RawThread>(
      `select ${COLUMNS} from threads where (connector, thread_id) in (select * from unnest(?::text[], ?::text[]))`,
      columns(asks, 2),
    );
    const key = (connector: unknown, threadId: unknown) => JSON.stringify([connector, threadId]);
    const byKey = new Map(rows.map((r) => [key(r.connector, r.thread_id), r]));
    return asks.map(([connector, threadId]) => byKey.get(key(pgValue(connector), pgValue(threadId))));
  },
};

export class ThreadsRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  async byKey(connector: string, threadKey: string): Promise<ThreadRow | undefined> {
    return this.#one(`select ${COLUMNS} from threads where connector = ? and thread_key = ?`, [connector, threadKey]);
  }

  async byThreadId(connector: string, threadId: string): Promise<ThreadRow | undefined> {
    const r = await this.#db.merged(BY_THREAD_ID, [connector, threadId]);
    return r && toThread(r);
  }

  async byId(id: number): Promise<ThreadRow | undefined> {
    return this.#one(`select ${COLUMNS} from threads where id = ?`, [id]);
  }

  async byReference(connector: string, reference: string): Promise<ThreadRow | undefined> {
    return this.#one(
      `select t.id, t.connector, t.thread_key, t.thread_id, t.chat_id, t.mapping_id, t.closed, t.created_at, t.updated_at
       from thread_references r join threads t on t.id = r.thread where r.connector = ? and r.reference = ?`,
      [connector, reference],
    );
  }

  /** The thread of `threadKey`, created with `threadId` when new. */
  async ensure(connector: string, threadKey: string, threadId: string, now: number): Promise<ThreadRow> {
    const found = await this.byKey(connector, threadKey);
    if (found) return found;
    const id = await this.#db.insert(
      `insert into threads (connector, thread_key, thread_id, created_at, updated_at) values (?, ?, ?, ?, ?)`,
      [connector, threadKey, threadId, now, now],
    );
    // A new thread's row is what was written and the columns' defaults: no chat yet, open.
    return { id: id as number, connector, threadKey, threadId, chatId: null, mappingId: null, closed: false, createdAt: now, updatedAt: now };
  }

  async references(threadRowId: number): Promise<string[]> {
    // The order of attachment: SQLite's rowid, PostgreSQL's `seq` column.
    const order = this.#db.dialect === 'postgres' ? 'seq' : 'rowid';
    const rows = await this.#db.all<{ reference: string }>(`select reference from thread_references where thread = ? order by ${order}`, [threadRowId]);
    return rows.map((r) => r.reference);
  }

  /** Attaches references; one already attached (to this or another thread) is left where it is. */
  async attach(connector: string, threadRowId: number, references: readonly string[], now: number): Promise<void> {
    for (const reference of references) {
      await this.#db.run(
        `insert into thread_references (connector, reference, thread, created_at) values (?, ?, ?, ?)
         on conflict (connector, reference) do nothing`,
        [connector, reference, threadRowId, now],
      );
    }
  }

  async recordSession(threadRowId: number, chatId: string, mappingId: string | null, now: number): Promise<void> {
    await this.#db.run(`update threads set chat_id = ?, mapping_id = ?, updated_at = ? where id = ?`, [chatId, mappingId, now, threadRowId]);
  }

  async setClosed(threadRowId: number, closed: boolean, now: number): Promise<void> {
    await this.#db.run(`update threads set closed = ?, updated_at = ? where id = ?`, [closed ? 1 : 0, now, threadRowId]);
  }

  async #one(sql: string, params: unknown[]): Promise<ThreadRow | undefined> {
    const r = await this.#db.get<RawThread>(sql, params);
    return r && toThread(r);
  }
}
