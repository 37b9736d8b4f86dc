/**
 * How bench:receiver-replicas counts the deliveries stored and delivered,
 * and what that costs the server. On PostgreSQL it counts on a connection of
 * its own, whose server process's CPU is then left out of the figure for the
 * gateways' work: a count of 60,000 deliveries took 44 ms of the server, and
 * polled every 50 ms during the drain it was a quarter of the CPU measured.
 * The drain's poll asks only whether any delivery waits, not how many: whether
 * a delivery job is queued or running (`exists`, by jobs_due and jobs_status;
 * PostgreSQL indexes no delivery status the poll could read).
 *
 * With BENCH_PG_STATEMENTS=1 the cluster loads pg_stat_statements and each
 * PostgreSQL case prints its statements by time, a webhook's share of each,
 * the WAL a webhook wrote, and how many updates of deliveries, jobs and
 * attempts were made in place (HOT: no index entry written).
 */
import pg from 'pg';
import { DELIVER_JOB } from '../../src/bridge/webhook-intake.ts';
import type { Store } from '../../src/store/store.ts';
import { processCpuMicros } from '../support/measure.ts';

export const STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';
/** The server settings that make `statements()` possible. */
export const STATEMENT_SETTINGS = STATEMENTS ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track_planning=on'] : [];

const UNDELIVERED = `select (exists (select 1 from jobs where kind = '${DELIVER_JOB}' and status = 'queued')
  or exists (select 1 from jobs where kind = '${DELIVER_JOB}' and status = 'running')) as waiting`;

export class DeliveryCounter {
  readonly #store: Store;
  readonly #client: pg.Client | undefined;
  readonly #pid: number | undefined;
  readonly #cpuAtOpen: number;

  private constructor(store: Store, client?: pg.Client, pid?: number) {
    this.#store = store;
    this.#client = client;
    this.#pid = pid;
    this.#cpuAtOpen = pid === undefined ? 0 : processCpuMicros(pid);
  }

  /** Counts through `store` (SQLite), or on a connection of its own to `url` (PostgreSQL). */
  static async open(store: Store, url: string | undefined): Promise<DeliveryCounter> {
    if (url === undefined) return new DeliveryCounter(store);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    if (STATEMENTS) await client.query(`create extension if not exists pg_stat_statements; select pg_stat_statements_reset(); select pg_stat_reset_shared('wal')`);
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return new DeliveryCounter(store, client, rows[0]!.pid);
  }

  /** Deliveries whose status is one of `statuses` (SQL literals). */
  async count(statuses: string): Promise<number> {
    const sql = `select count(*) as n from deliveries where status in (${statuses})`;
    if (this.#client === undefined) return (await this.#store.read.sql.get<{ n: number }>(sql))!.n;
    return Number((await this.#client.query<{ n: string }>(sql)).rows[0]!.n);
  }

  /** Whether any delivery waits for its connector. */
  async undelivered(): Promise<boolean> {
    if (this.#client === undefined) return Boolean((await this.#store.read.sql.get<{ waiting: number }>(UNDELIVERED))!.waiting);
    return (await this.#client.query<{ waiting: boolean }>(UNDELIVERED)).rows[0]!.waiting;
  }

  /** CPU µs the server spent on this counter's connection since it opened (0 on SQLite: the bench's own process). */
  serverMicros(): number {
    return this.#pid === undefined ? 0 : processCpuMicros(this.#pid) - this.#cpuAtOpen;
  }

  /** With BENCH_PG_STATEMENTS=1: the statements run since the counter opened, by time, each with its calls a webhook. */
  async statements(webhooks: number): Promise<string[]> {
    if (!STATEMENTS || this.#client === undefined) return [];
    const { rows } = await this.#client.query<{ calls: string; exec: number; plan: number; rows: string; query: string }>(
      `select calls, total_exec_time as exec, total_plan_time as plan, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) as query
       from pg_stat_statements where query not like '%pg_stat_statements%' order by total_exec_time + total_plan_time desc limit 20`,
    );
    const wal = (
      await this.#client.query<{ records: string; fpi: string; bytes: string; syncs: string; commits: string }>(
        `select wal_records as records, wal_fpi as fpi, wal_bytes as bytes, wal_sync as syncs,
           (select xact_commit from pg_stat_database where datname = current_database()) as commits from pg_stat_wal`,
      )
    ).rows[0]!;
    const each = (n: string, digits = 1) => (Number(n) / webhooks).toFixed(digits);
    const head = `  WAL a webhook: ${each(wal.records)} records, ${each(wal.fpi)} full pages, ${each(wal.bytes)} bytes, ${each(wal.syncs, 3)} syncs; ${each(wal.commits, 3)} commits`;
    // Updates in place (HOT) write no index entry; the others one in every index (the database is the case's own).
    const updates = await this.#client.query<{ relname: string; upd: string; hot: string }>(
      `select relname, n_tup_upd as upd, n_tup_hot_upd as hot from pg_stat_user_tables
       where relname in ('deliveries', 'jobs', 'delivery_attempts') order by relname`,
    );
    const inPlace = `  updates in place: ${updates.rows.map((u) => `${u.relname} ${u.hot} of ${u.upd}`).join(', ')}`;
    return [head, inPlace, ...rows.map((r) => {
      const perWebhook = (Number(r.calls) / webhooks).toFixed(2);
      const micros = (((r.exec + r.plan) * 1000) / webhooks).toFixed(1);
      return `  ${perWebhook} calls, ${micros} µs (plan ${((r.plan * 1000) / webhooks).toFixed(1)}) a webhook, ${r.rows} rows: ${r.query}`;
    })];
  }

  async close(): Promise<void> {
    await this.#client?.end();
  }
}
