/**
 * Leases: one holder at a time for a named task across replicas (a
 * connector's poller). Taking one is a single upsert that succeeds only when
 * the row is new or expired, and bumps `generation` — the fencing token the
 * holder's writes check (`holds`) in the transaction that stores them.
 */
import type { Sql } from './sql.ts';

export interface LeaseRow {
  name: string;
  holder: string;
  generation: number;
  expiresAt: number;
}

export class LeasesRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  /** Takes `name` for `holder` until `until` when nobody holds it (or the hold expired); its new generation, else undefined. */
  async acquire(name: string, holder: string, until: number, now: number): Promise<number | undefined> {
    const row = await this.#db.get<{ generation: number }>(
      `insert into leases (name, holder, generation, expires_at) values (?, ?, 1, ?)
       on conflict (name) do update set holder = excluded.holder, generation = leases.generation + 1, expires_at = excluded.expires_at
       where leases.expires_at <= ?
       returning generation`,
      [name, holder, until, now],
    );
    return row === undefined ? undefined : Number(row.generation);
  }

  /** Extends a hold; false when it was lost (taken over after it expired). */
  async renew(name: string, holder: string, generation: number, until: number): Promise<boolean> {
    const { changes } = await this.#db.run(`update leases set expires_at = ? where name = ? and holder = ? and generation = ?`, [until, name, holder, generation]);
    return changes === 1;
  }

  /** Gives a hold up at once (a stopping replica), so another takes over without waiting for the expiry. */
  async release(name: string, holder: string, generation: number): Promise<void> {
    await this.#db.run(`update leases set expires_at = 0 where name = ? and holder = ? and generation = ?`, [name, holder, generation]);
  }

  /** Whether `holder` still holds `name` at `generation` (in a write: checked in that write's transaction). */
  async holds(name: string, holder: string, generation: number): Promise<boolean> {
    return (await this.#db.get(`select 1 as held from leases where name = ? and holder = ? and generation = ?`, [name, holder, generation])) !== undefined;
  }

  async get(name: string): Promise<LeaseRow | undefined> {
    const row = await this.#db.get<{ name: string; holder: string; generation: number; expires_at: number }>(
      `select name, holder, generation, expires_at from leases where name = ?`,
      [name],
    );
    return row && { name: row.name, holder: row.holder, generation: Number(row.generation), expiresAt: Number(row.expires_at) };
  }
}
