/** The per-connector key–value store (cursors); values are JSON text. */
import type { Statement } from 'better-sqlite3';
import type { Store } from './database.ts';

export class ConnectorStateRepo {
  readonly #sql: Record<'get' | 'set' | 'delete', Statement>;

  constructor(store: Store) {
    const db = store.sqlite;
    this.#sql = {
      get: db.prepare(`select value from connector_state where connector = ? and key = ?`),
      set: db.prepare(
        `insert into connector_state (connector, key, value, updated_at) values (?, ?, ?, ?)
         on conflict (connector, key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare(`delete from connector_state where connector = ? and key = ?`),
    };
  }

  get(connector: string, key: string): unknown {
    const row = this.#sql.get.get(connector, key) as { value: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as unknown);
  }

  set(connector: string, key: string, value: unknown, now: number): void {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`state value of ${key} is not JSON-serialisable`);
    this.#sql.set.run(connector, key, text, now);
  }

  delete(connector: string, key: string): void {
    this.#sql.delete.run(connector, key);
  }
}
