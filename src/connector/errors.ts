/** Errors of the connector room. */
import { ThreadgateError } from '../base/errors.ts';

/** A connector module cannot be found or does not export a definition. */
export class ConnectorLoadError extends ThreadgateError {
  readonly code = 'TG_CONNECTOR_LOAD';
}

/** A connector's `create` or `start` threw. */
export class ConnectorStartError extends ThreadgateError {
  readonly code = 'TG_CONNECTOR_START';
}
