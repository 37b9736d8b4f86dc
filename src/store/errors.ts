/** Errors of the store room. */
import { ThreadgateError } from '../base/errors.ts';

/** The database file cannot be opened or migrated. */
export class StoreOpenError extends ThreadgateError {
  readonly code = 'TG_STORE_OPEN_FAILED';
  override readonly statusCode = 503;
}

export class StoreMigrationError extends ThreadgateError {
  readonly code = 'TG_STORE_MIGRATION_FAILED';
  override readonly statusCode = 503;
}

/** A write was asked for after the store closed. */
export class StoreClosedError extends ThreadgateError {
  readonly code = 'TG_STORE_CLOSED';
  override readonly statusCode = 503;
}

/** A write's transaction handle was used after the write settled. */
export class StoreTxEndedError extends ThreadgateError {
  readonly code = 'TG_STORE_TX_ENDED';
}

/** Copying a SQLite store into PostgreSQL (`threadgate migrate --from sqlite:PATH`) was refused or failed; nothing was written. */
export class StoreImportError extends ThreadgateError {
  readonly code = 'TG_STORE_IMPORT_FAILED';
}

/** The database cannot be reached or dropped the connection (a server restart, a failover): try again later. */
export class StoreUnavailableError extends ThreadgateError {
  readonly code = 'TG_STORE_UNAVAILABLE';
  override readonly statusCode = 503;
}

/**
 * PostgreSQL: a write went on after one of its statements failed (it caught the error), so the server had aborted
 * its transaction and answered its COMMIT with a rollback: nothing of it is stored.
 */
export class StoreTxAbortedError extends ThreadgateError {
  readonly code = 'TG_STORE_TX_ABORTED';
}

/** PostgreSQL: a merged statement (sql.ts `Mergeable`) answered a different number of rows than it was given: a bug in its `many`. */
export class StoreMergeError extends ThreadgateError {
  readonly code = 'TG_STORE_MERGE_FAILED';
}
