/** Answers of unified-messaging posts made through the proxy, by (configuration, message_id). */
import type { Sql } from './sql.ts';

export interface StoredAnswer {
  status: number;
  response: string;
}

export class ProxyPostsRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  /** The stored answer when every one of `messageIds` was posted before (the first one's answer), else undefined. */
  async allSeen(configId: string, messageIds: readonly string[]): Promise<StoredAnswer | undefined> {
    let first: StoredAnswer | undefined;
    for (const id of messageIds) {
      const row = await this.#db.get<StoredAnswer>(`select status, response from proxy_message_posts where config_id = ? and message_id = ?`, [configId, id]);
      if (!row) return undefined;
      first ??= row;
    }
    return first;
  }

  /** Records the answer for each id (call inside one write). */
  async record(configId: string, messageIds: readonly string[], answer: StoredAnswer, now: number): Promise<void> {
    for (const id of messageIds) {
      await this.#db.run(
        `insert into proxy_message_posts (config_id, message_id, status, response, created_at) values (?, ?, ?, ?, ?)
         on conflict (config_id, message_id) do nothing`,
        [configId, id, answer.status, answer.response, now],
      );
    }
  }
}
