/** Answers of unified-messaging posts made through the proxy, by (configuration, message_id). */
import type { Statement } from 'better-sqlite3';
import type { Store } from './database.ts';

export interface StoredAnswer {
  status: number;
  response: string;
}

export class ProxyPostsRepo {
  readonly #sql: Record<'find' | 'insert', Statement>;
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
    const db = store.sqlite;
    this.#sql = {
      find: db.prepare(`select status, response from proxy_message_posts where config_id = ? and message_id = ?`),
      insert: db.prepare(
        `insert into proxy_message_posts (config_id, message_id, status, response, created_at) values (?, ?, ?, ?, ?)
         on conflict (config_id, message_id) do nothing`,
      ),
    };
  }

  /** The stored answer when every one of `messageIds` was posted before (the first one's answer), else undefined. */
  allSeen(configId: string, messageIds: readonly string[]): StoredAnswer | undefined {
    let first: StoredAnswer | undefined;
    for (const id of messageIds) {
      const row = this.#sql.find.get(configId, id) as StoredAnswer | undefined;
      if (!row) return undefined;
      first ??= row;
    }
    return first;
  }

  record(configId: string, messageIds: readonly string[], answer: StoredAnswer, now: number): void {
    this.#store.transaction(() => {
      for (const id of messageIds) this.#sql.insert.run(configId, id, answer.status, answer.response, now);
    });
  }
}
