/**
 * Threads and their external references. Every method is synchronous so it
 * can run inside the caller's transaction (better-sqlite3).
 */
import type { Statement } from 'better-sqlite3';
import type { Store } from './database.ts';

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

export class ThreadsRepo {
  readonly #sql: Record<
    'byKey' | 'byThreadId' | 'byId' | 'byReference' | 'insert' | 'references' | 'attach' | 'session' | 'setClosed',
    Statement
  >;

  constructor(store: Store) {
    const db = store.sqlite;
    this.#sql = {
      byKey: db.prepare(`select ${COLUMNS} from threads where connector = ? and thread_key = ?`),
      byThreadId: db.prepare(`select ${COLUMNS} from threads where connector = ? and thread_id = ?`),
      byId: db.prepare(`select ${COLUMNS} from threads where id = ?`),
      byReference: db.prepare(
        `select t.id, t.connector, t.thread_key, t.thread_id, t.chat_id, t.mapping_id, t.closed, t.created_at, t.updated_at
         from thread_references r join threads t on t.id = r.thread where r.connector = ? and r.reference = ?`,
      ),
      insert: db.prepare(
        `insert into threads (connector, thread_key, thread_id, created_at, updated_at) values (?, ?, ?, ?, ?)
         returning ${COLUMNS}`,
      ),
      references: db.prepare(`select reference from thread_references where thread = ? order by rowid`),
      attach: db.prepare(
        `insert into thread_references (connector, reference, thread, created_at) values (?, ?, ?, ?)
         on conflict (connector, reference) do nothing`,
      ),
      session: db.prepare(`update threads set chat_id = ?, mapping_id = ?, updated_at = ? where id = ?`),
      setClosed: db.prepare(`update threads set closed = ?, updated_at = ? where id = ?`),
    };
  }

  byKey(connector: string, threadKey: string): ThreadRow | undefined {
    const r = this.#sql.byKey.get(connector, threadKey) as RawThread | undefined;
    return r && toThread(r);
  }

  byThreadId(connector: string, threadId: string): ThreadRow | undefined {
    const r = this.#sql.byThreadId.get(connector, threadId) as RawThread | undefined;
    return r && toThread(r);
  }

  byId(id: number): ThreadRow | undefined {
    const r = this.#sql.byId.get(id) as RawThread | undefined;
    return r && toThread(r);
  }

  byReference(connector: string, reference: string): ThreadRow | undefined {
    const r = this.#sql.byReference.get(connector, reference) as RawThread | undefined;
    return r && toThread(r);
  }

  /** The thread of `threadKey`, created with `threadId` when new. */
  ensure(connector: string, threadKey: string, threadId: string, now: number): ThreadRow {
    const found = this.byKey(connector, threadKey);
    if (found) return found;
    return toThread(this.#sql.insert.get(connector, threadKey, threadId, now, now) as RawThread);
  }

  references(threadRowId: number): string[] {
    return (this.#sql.references.all(threadRowId) as { reference: string }[]).map((r) => r.reference);
  }

  /** Attaches references; one already attached (to this or another thread) is left where it is. */
  attach(connector: string, threadRowId: number, references: readonly string[], now: number): void {
    for (const reference of references) this.#sql.attach.run(connector, reference, threadRowId, now);
  }

  recordSession(threadRowId: number, chatId: string, mappingId: string | null, now: number): void {
    this.#sql.session.run(chatId, mappingId, now, threadRowId);
  }

  setClosed(threadRowId: number, closed: boolean, now: number): void {
    this.#sql.setClosed.run(closed ? 1 : 0, now, threadRowId);
  }
}
