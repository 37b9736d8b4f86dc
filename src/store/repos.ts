/**
 * Every repository of the store, bound to one executor: the reader's (what is
 * committed) as `store.read`, or a write's transaction (`store.write(async
 * (tx) => …)`). Built lazily: a write that touches two repositories builds
 * two small objects.
 */
import { AttemptsRepo } from './attempts-repo.ts';
import { DeliveriesRepo } from './deliveries-repo.ts';
import { FilesRepo } from './files-repo.ts';
import { InboundRepo } from './inbound-repo.ts';
import { JobsRepo } from './jobs-repo.ts';
import { LeasesRepo } from './leases-repo.ts';
import { ProxyPostsRepo } from './proxy-posts-repo.ts';
import { ReceiptsRepo } from './receipts-repo.ts';
import { RegistrationsRepo } from './registrations-repo.ts';
import { SkippedRepo } from './skipped-repo.ts';
import type { Sql } from './sql.ts';
import { ConnectorStateRepo } from './state-repo.ts';
import { ThreadsRepo } from './threads-repo.ts';
import { TxSql, type CommitListener } from './tx-sql.ts';

export class Repos {
  /** The executor the repositories run on, for the query modules (log-queries, job-queries, status-counts, retention). */
  readonly sql: Sql;
  #attempts?: AttemptsRepo;
  #deliveries?: DeliveriesRepo;
  #files?: FilesRepo;
  #inbound?: InboundRepo;
  #jobs?: JobsRepo;
  #leases?: LeasesRepo;
  #proxyPosts?: ProxyPostsRepo;
  #receipts?: ReceiptsRepo;
  #registrations?: RegistrationsRepo;
  #skipped?: SkippedRepo;
  #state?: ConnectorStateRepo;
  #threads?: ThreadsRepo;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /**
   * In a write: `listener` is told, once the write's fate is known, whether it is stored (after the COMMIT that
   * holds it, and its fsync, before the write's caller is answered; in the order the writes of a group ran) or was
   * rolled back. Work that must follow a commit at once (a job taken in the write starts running) goes here.
   */
  afterCommit(listener: CommitListener): void {
    if (!(this.sql instanceof TxSql)) throw new TypeError('afterCommit is for a write, not for reads');
    this.sql.afterCommit(listener);
  }

  /**
   * In a write: it issues no more statements, only awaits those it sent (TxSql `sent`). On PostgreSQL its COMMIT
   * may then travel with them, a round trip less; after this the write may fail only through its statements.
   */
  sent(): void {
    if (this.sql instanceof TxSql) this.sql.sent();
  }

  /** In a write on PostgreSQL: whether it said it sent all its statements (`sent`); false for reads and on SQLite. */
  get allSent(): boolean {
    return this.sql instanceof TxSql && this.sql.allSent;
  }

  get attempts(): AttemptsRepo {
    return (this.#attempts ??= new AttemptsRepo(this.sql));
  }

  get deliveries(): DeliveriesRepo {
    return (this.#deliveries ??= new DeliveriesRepo(this.sql));
  }

  get files(): FilesRepo {
    return (this.#files ??= new FilesRepo(this.sql));
  }

  get inbound(): InboundRepo {
    return (this.#inbound ??= new InboundRepo(this.sql));
  }

  get jobs(): JobsRepo {
    return (this.#jobs ??= new JobsRepo(this.sql));
  }

  get leases(): LeasesRepo {
    return (this.#leases ??= new LeasesRepo(this.sql));
  }

  get proxyPosts(): ProxyPostsRepo {
    return (this.#proxyPosts ??= new ProxyPostsRepo(this.sql));
  }

  get receipts(): ReceiptsRepo {
    return (this.#receipts ??= new ReceiptsRepo(this.sql));
  }

  get registrations(): RegistrationsRepo {
    return (this.#registrations ??= new RegistrationsRepo(this.sql));
  }

  get skipped(): SkippedRepo {
    return (this.#skipped ??= new SkippedRepo(this.sql));
  }

  get state(): ConnectorStateRepo {
    return (this.#state ??= new ConnectorStateRepo(this.sql));
  }

  get threads(): ThreadsRepo {
    return (this.#threads ??= new ThreadsRepo(this.sql));
  }
}
