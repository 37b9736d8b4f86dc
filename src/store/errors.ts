/** Errors of the store room. */
import { ThreadgateError } from '../errors.ts';

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

/** A grouped write returned a promise: it would hold the group's transaction open across other work. */
export class StoreWriteAsyncError extends ThreadgateError {
  readonly code = 'TG_STORE_WRITE_ASYNC';
}
