/** Errors of the command line. */
import { ThreadgateError } from '../errors.ts';

/** Wrong words on the command line; printed with the usage, exit 2. */
export class UsageError extends ThreadgateError {
  readonly code = 'TG_USAGE';
}
