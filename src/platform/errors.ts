/** Errors of the platform room: webhook signatures and platform API calls. */
import { ThreadgateError } from '../errors.ts';

export type SignatureProblem =
  | 'TG_SIGNATURE_MISSING'
  | 'TG_SIGNATURE_MALFORMED'
  | 'TG_SIGNATURE_INVALID'
  | 'TG_TIMESTAMP_MISSING'
  | 'TG_TIMESTAMP_MALFORMED'
  | 'TG_TIMESTAMP_STALE'
  | 'TG_TIMESTAMP_FUTURE';

/** A webhook whose signature or timestamp does not check out: 401. */
export class WebhookSignatureError extends ThreadgateError {
  readonly code: SignatureProblem;
  override readonly statusCode = 401;

  constructor(code: SignatureProblem, message: string) {
    super(message);
    this.code = code;
  }
}
