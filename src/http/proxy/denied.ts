/** A proxied request refused by the gateway itself (405, 401, 403, 429, 413), with the status and TG_ code given. */
import { ThreadgateError } from '../../base/errors.ts';

export class ProxyDeniedError extends ThreadgateError {
  readonly code: string;
  override readonly statusCode: number;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.statusCode = status;
    this.code = code;
  }
}
