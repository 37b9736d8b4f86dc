/**
 * Wake-ups across replicas on PostgreSQL: a job queued on one replica starts
 * on another at once, not at that one's next poll.
 *
 * Sending: after a write that queued a job committed, the job queue calls
 * `queued(kind, lane)`, which notifies `threadgate_jobs` with
 * `["kind", "lane"]` (throttled per kind and lane, pg-wakeup-sender.ts; no
 * kind: `*`, look everywhere). The trigger of
 * migrations/postgres/0011_lease_wakeups.sql notifies `threadgate_leases` with
 * a lease's name when it is given back (poller-lease.ts: a replica waiting for
 * it asks at once), in sessions that set `threadgate.wakeups` (`watchPool`, on
 * every pooled connection of a store opened with wake-ups on). `wakePoller`
 * notifies `threadgate_pollers` with a connector's name: the replica running
 * its poll gives it a turn (src/connector/runtime.ts).
 *
 * Listening: one connection of its own, outside the pool, opened on the first
 * `subscribe` (a CLI command that only queues never listens). Notifications
 * sent by this process's own pooled connections are dropped (its runner knew
 * already); the rest are gathered for one event-loop turn and passed on once
 * per kind and lane. When the connection drops (a database restart, a
 * failover) it is opened again with backoff, and each LISTEN that succeeds
 * again is followed by one `{ all: true }`: look everywhere once, for what was
 * queued while nobody listened. The runners' polls stay the safety net.
 */
import pg from 'pg';
import type { Wakeup } from '../store.ts';
import { PG_TYPES } from './pg-sql.ts';
import { WakeupSender } from './pg-wakeup-sender.ts';

export const WAKEUP_CHANNEL = 'threadgate_jobs';
/** Leases given back (migrations/postgres/0011_lease_wakeups.sql): a replica waiting for one asks at once. */
export const LEASE_CHANNEL = 'threadgate_leases';
/** A connector's poll asked for a turn (`wakePoller`): the replica running it gives it one. */
export const POLLER_CHANNEL = 'threadgate_pollers';
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

export type WakeupListener = (wakeup: Wakeup) => void;

export interface PgWakeupsOptions {
  url: string;
  ssl?: pg.ConnectionConfig['ssl'];
  /** Told when the listening connection failed or could not be opened (it is opened again). */
  onError?: (err: Error) => void;
}

export class PgWakeups {
  readonly #o: PgWakeupsOptions;
  readonly #listeners = new Set<WakeupListener>();
  /** Server process ids of this process's pooled connections: their notifications are our own. */
  readonly #own = new Set<number>();
  readonly #pending = new Map<string, Wakeup>();
  #pool: pg.Pool | undefined;
  #sender: WakeupSender | undefined;
  #client: pg.Client | undefined;
  #listening = false;
  #closed = false;
  #retryMs = FIRST_RETRY_MS;
  /** Whether a LISTEN succeeded before: the next one follows a lost connection. */
  #listenedBefore = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(options: PgWakeupsOptions) {
    this.#o = options;
  }

  /** Makes the pool's connections notify, and remembers them as our own. */
  watchPool(pool: pg.Pool): void {
    this.#pool = pool;
    this.#sender = new WakeupSender(pool, WAKEUP_CHANNEL, this.#o.onError ? { onError: this.#o.onError } : {});
    pool.on('connect', (client) => {
      const pid = (client as pg.PoolClient & { processID?: number }).processID;
      if (pid !== undefined) this.#own.add(pid);
      // Queued ahead of the first statement of whoever checked the connection out.
      client.query(`select set_config('threadgate.wakeups', 'on', false)`).catch(() => {});
    });
    pool.on('remove', (client) => {
      const pid = (client as pg.PoolClient & { processID?: number }).processID;
      if (pid !== undefined) this.#own.delete(pid);
    });
  }

  /** Tells `listener` of jobs queued by other processes; listens from the first call on. Returns its unsubscribe. */
  subscribe(listener: WakeupListener): () => void {
    this.#listeners.add(listener);
    if (!this.#listening && !this.#closed) {
      this.#listening = true;
      void this.#connect();
    }
    return () => this.#listeners.delete(listener);
  }

  /**
   * A job of `kind` (in `lane`) is queued: call after its write committed. Other processes are told at once, or at
   * the end of the kind and lane's throttle window. Without `kind`: look at every kind (jobs given back, made due).
   */
  queued(kind?: string, lane: string | null = null): void {
    this.#sender?.send(kind === undefined ? '*' : JSON.stringify([kind, lane]));
  }

  /** Notifies `threadgate_pollers` with `name` (on commit of its own statement): the process running that poll wakes it. */
  async wakePoller(name: string): Promise<void> {
    await this.#pool?.query('select pg_notify($1, left($2, 1900))', [POLLER_CHANNEL, name]);
  }

  /** Whether the listening connection is open and LISTENs (for tests and health). */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  async close(): Promise<void> {
    await this.#sender?.flush();
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#o.url,
      types: PG_TYPES,
      application_name: 'threadgate-wakeups',
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      ...(this.#o.ssl !== undefined ? { ssl: this.#o.ssl } : {}),
    });
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.#client === client) this.#client = undefined;
      if (err && !this.#closed) this.#o.onError?.(err);
      void client.end().catch(() => {});
      this.#again();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (msg) => this.#notified(msg));
    try {
      await client.connect();
      await client.query(`listen ${WAKEUP_CHANNEL}; listen ${LEASE_CHANNEL}; listen ${POLLER_CHANNEL}`);
    } catch (err) {
      onLost(err as Error);
      return;
    }
    if (lost) return;
    if (this.#closed) {
      await client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#retryMs = FIRST_RETRY_MS;
    // Whatever was queued while the connection was lost: one look everywhere. Not after the first LISTEN: the runner
    // looked everywhere as it started (and an extra look then, at every replica's start, costs more than it finds).
    if (this.#listenedBefore) this.#queue('*', { all: true });
    this.#listenedBefore = true;
  }

  #again(): void {
    if (this.#closed) return;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#retryMs = Math.min(LAST_RETRY_MS, this.#retryMs * 2);
  }

  #notified(msg: pg.Notification): void {
    if (this.#own.has(msg.processId)) return;
    if (msg.channel === LEASE_CHANNEL || msg.channel === POLLER_CHANNEL) {
      if (!msg.payload) return;
      if (msg.channel === LEASE_CHANNEL) this.#queue(`lease\u0000${msg.payload}`, { lease: msg.payload });
      else this.#queue(`poller\u0000${msg.payload}`, { poller: msg.payload });
      return;
    }
    if (msg.channel !== WAKEUP_CHANNEL) return;
    const wakeup = parseWakeup(msg.payload);
    if (wakeup) this.#queue(`${wakeup.kind}\u0000${wakeup.lane ?? ''}`, wakeup);
    else this.#queue('*', { all: true }); // not ours to read: looking everywhere is always right
  }

  /** Gathers the wake-ups of one turn (a burst of commits) and passes each on once. */
  #queue(key: string, wakeup: Wakeup): void {
    const first = this.#pending.size === 0;
    this.#pending.set(key, wakeup);
    if (first) setImmediate(() => this.#flush());
  }

  #flush(): void {
    const all = this.#pending.get('*');
    const wakeups = all ? [all] : [...this.#pending.values()];
    this.#pending.clear();
    for (const wakeup of wakeups) for (const listener of this.#listeners) listener(wakeup);
  }
}

/** A job's payload, `["kind", "lane" | null]`; undefined when it is not that (`*`). */
export function parseWakeup(payload: string | undefined): { kind: string; lane: string | null } | undefined {
  try {
    const value = JSON.parse(payload ?? '') as unknown;
    if (!Array.isArray(value) || typeof value[0] !== 'string') return undefined;
    const lane = value[1];
    return { kind: value[0], lane: typeof lane === 'string' ? lane : null };
  } catch {
    return undefined;
  }
}
