/**
 * Slack's signature on every request to the Request URL
 * (https://api.slack.com/authentication/verifying-requests-from-slack):
 *
 *   X-Slack-Request-Timestamp: <unix seconds>             (refused when more than 5 minutes from now, either way)
 *   X-Slack-Signature:         v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>" under the signing secret>
 *
 * checked over the raw body bytes, in constant time (`verifyHmacSignature`).
 * A refusal is `401 TG_SIGNATURE_INVALID` naming which check failed; it never
 * repeats the signature or the secret.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { RouteError, verifyHmacSignature, type HmacRefusal, type RouteRequest } from '../../src/connector/api.ts';

export const SIGNATURE_HEADER = 'x-slack-signature';
export const TIMESTAMP_HEADER = 'x-slack-request-timestamp';
/** Slack's advice: refuse a request whose timestamp is more than five minutes away. */
export const TOLERANCE_SECONDS = 5 * 60;

const WORDS: Record<HmacRefusal, string> = {
  missing: 'X-Slack-Signature or X-Slack-Request-Timestamp is missing',
  malformed: 'X-Slack-Request-Timestamp is not a number of seconds',
  too_old: 'X-Slack-Request-Timestamp is more than 5 minutes old (a replay?)',
  too_new: 'X-Slack-Request-Timestamp is more than 5 minutes ahead',
  mismatch: 'X-Slack-Signature does not match the body under the signing secret',
};

/** A request whose signature does not hold (401). */
export class SlackSignatureRefusedError extends RouteError {
  readonly refusal: HmacRefusal;

  constructor(refusal: HmacRefusal) {
    super(401, 'TG_SIGNATURE_INVALID', `Slack signature check failed: ${WORDS[refusal]}`);
    this.refusal = refusal;
  }
}

/** Checks requests against one signing secret (a KeyObject made once). */
export class RequestVerifier {
  #key: KeyObject;

  constructor(signingSecret: string) {
    this.#key = createSecretKey(Buffer.from(signingSecret, 'utf8'));
  }

  /** A new signing secret (a settings reload). */
  setSecret(signingSecret: string): void {
    this.#key = createSecretKey(Buffer.from(signingSecret, 'utf8'));
  }

  /** Throws `SlackSignatureRefusedError` unless `request` is signed, within the tolerance, by the signing secret. */
  verify(request: Pick<RouteRequest, 'headers' | 'rawBody'>, nowSeconds = Math.floor(Date.now() / 1000)): void {
    const timestamp = request.headers[TIMESTAMP_HEADER];
    const verdict = verifyHmacSignature({
      secret: this.#key,
      payload: [`v0:${timestamp ?? ''}:`, request.rawBody],
      signature: request.headers[SIGNATURE_HEADER],
      algorithm: 'sha256',
      encoding: 'hex',
      prefix: 'v0=',
      timestamp: { value: timestamp, toleranceSeconds: TOLERANCE_SECONDS, nowSeconds },
    });
    if (!verdict.ok) throw new SlackSignatureRefusedError(verdict.reason);
  }
}
