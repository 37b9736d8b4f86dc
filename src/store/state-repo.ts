/** The per-connector key–value store (cursors); values are JSON text. */
import type { Sql } from './sql.ts';

export class ConnectorStateRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  async get(connector: string, key: string): Promise<unknown> {
    const row = await this.#db.get<{ value: string }>(`select value from connector_state where connector = ? and key = ?`, [connector, key]);
    return row === undefined ? undefined : (JSON.parse(row.value) as unknown);
  }

  async set(connector: string, key: string, value: unknown, now: number): Promise<void> {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`state value of ${key} is not JSON-serialisable`);
    await this.#db.run(
      `insert into connector_state (connector, key, value, updated_at) values (?, ?, ?, ?)
       on conflict (connector, key) do update set value = excluded.value, updated_at = excluded.updated_at`,
      [connector, key, text, now],
    );
  }

  /** Sets `key` only when it has no value yet (the first of several replicas wins); true when this call set it. */
  async setIfAbsent(connector: string, key: string, value: unknown, now: number): Promise<boolean> {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`state value of ${key} is not JSON-serialisable`);
    const { changes } = await this.#db.run(
      `insert into connector_state (connector, key, value, updated_at) values (?, ?, ?, ?) on conflict (connector, key) do nothing`,
      [connector, key, text, now],
    );
    return changes === 1;
  }

  /** Keys starting with `prefix` (compared as text, no LIKE patterns), in key order. */
  async keys(connector: string, prefix: string, limit: number): Promise<string[]> {
    const rows = await this.#db.all<{ key: string }>(
      `select key from connector_state where connector = ? and substr(key, 1, ?) = ? order by key limit ?`,
      [connector, prefix.length, prefix, limit],
    );
    return rows.map((r) => r.key);
  }

  async delete(connector: string, key: string): Promise<void> {
    await this.#db.run(`delete from connector_state where connector = ? and key = ?`, [connector, key]);
  }
}
