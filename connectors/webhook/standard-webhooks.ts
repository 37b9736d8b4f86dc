/**
 * Standard Webhooks (https://www.standardwebhooks.com) both ways:
 *
 *   webhook-id:        msg_…           (the receiver's dedup key)
 *   webhook-timestamp: <unix seconds>  (±5 minutes accepted)
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">
 *
 * Inbound: `inboundVerifier` checks those headers over the raw body bytes.
 * Outbound: `signedHeaders` signs one attempt; `webhookIdOf` names an event so
 * every retry of it carries the same webhook-id.
 *
 * Written on node:crypto rather than through the `standardwebhooks` library,
 * whose HMAC is JavaScript (fast-sha256): the library's check took 15-24 µs
 * a request, 5 % of the connector intake's CPU. The library stays in the
 * tests, as the other side of every exchange (the signer of inbound requests,
 * the verifier of outbound ones), and its refusal messages are kept.
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { RouteError, verifyHmacSignature, type HmacRefusal, type RouteRequest, type WebhookEvent } from '../../src/connector/api.ts';
import { webhookEventKey } from '../../src/platform/schemas/unified-messaging.ts';

export const HEADER_ID = 'webhook-id';
export const HEADER_TIMESTAMP = 'webhook-timestamp';
export const HEADER_SIGNATURE = 'webhook-signature';

/** Why a request's signature was refused (401); never carries the signature or secret. */
export class SignatureRefusedError extends RouteError {
  /** Which check failed, for tools that explain it (`threadgate webhooks verify`); the answer stays TG_SIGNATURE_INVALID. */
  readonly refusal: HmacRefusal;

  constructor(message: string, refusal: HmacRefusal = 'mismatch') {
    super(401, 'TG_SIGNATURE_INVALID', message);
    this.refusal = refusal;
  }
}

/** The tolerance of webhook-timestamp either way, as the standard and its libraries have it. */
export const TOLERANCE_SECONDS = 5 * 60;
const PREFIX = 'whsec_';

/** A Standard Webhooks secret (`whsec_` and base64, as the connector's settings check it) as the HMAC key. */
export class SigningKey {
  // A KeyObject made once: createHmac given the key's bytes (a Buffer) prepares a key of its own for every
  // message, 14 µs against 2.6 (docs/benchmarks.md at 65810b0, "Standard Webhooks on node:crypto").
  readonly #key: KeyObject;

  constructor(secret: string) {
    const bytes = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
    if (bytes.length === 0) throw new Error('a Standard Webhooks secret cannot be empty');
    this.#key = createSecretKey(bytes);
  }

  /** The HMAC key, for the check of a signature (`verifyHmacSignature`). */
  get key(): KeyObject {
    return this.#key;
  }

  /** `v1,` and the base64 HMAC-SHA256 of `<id>.<seconds>.<body>` (a Buffer as its bytes, a string as UTF-8). */
  sign(id: string, seconds: number, body: string | Buffer): string {
    return `v1,${createHmac('sha256', this.#key).update(`${id}.${seconds}.`).update(body).digest('base64')}`;
  }
}

/** Checks a request's signature; `undefined` secret means unsigned requests are allowed. */
export type InboundVerifier = (request: RouteRequest) => void;

export function inboundVerifier(secret: string | undefined): InboundVerifier {
  if (secret === undefined) return () => {};
  const key = new SigningKey(secret);
  return (request) => {
    const reason = refusal(key, request, Math.floor(Date.now() / 1000));
    if (reason !== undefined) throw new SignatureRefusedError(`signature check failed: ${LIBRARY_WORDS[reason]}`, reason);
  };
}

/** Why the request's signature headers do not hold, or undefined when one of its v1 signatures matches. */
function refusal(key: SigningKey, request: RouteRequest, nowSeconds: number): HmacRefusal | undefined {
  const id = request.headers[HEADER_ID];
  const timestamp = request.headers[HEADER_TIMESTAMP];
  const signatures = request.headers[HEADER_SIGNATURE];
  if (!id || !timestamp || !signatures) return 'missing';
  const seconds = Number.parseInt(timestamp, 10);
  if (Number.isNaN(seconds)) return 'malformed';
  const verdict = verifyHmacSignature({
    secret: key.key,
    payload: [`${id}.${seconds}.`, request.rawBody],
    signature: signatures,
    encoding: 'base64',
    prefix: 'v1,',
    separator: ' ',
    timestamp: { value: seconds, toleranceSeconds: TOLERANCE_SECONDS, nowSeconds },
  });
  return verdict.ok ? undefined : verdict.reason;
}

/** The `standardwebhooks` library's words for each refusal, which receivers and tests know. */
const LIBRARY_WORDS: Record<HmacRefusal, string> = {
  missing: 'Missing required headers',
  malformed: 'Invalid Signature Headers',
  too_old: 'Message timestamp too old',
  too_new: 'Message timestamp too new',
  mismatch: 'No matching signature found',
};

/** Signs one outbound attempt: a fresh timestamp, the given (stable) id. */
export function signedHeaders(key: SigningKey, id: string, body: string, now: Date = new Date()): Record<string, string> {
  const seconds = Math.floor(now.getTime() / 1000);
  return { [HEADER_ID]: id, [HEADER_TIMESTAMP]: String(seconds), [HEADER_SIGNATURE]: key.sign(id, seconds, body) };
}

/**
 * The webhook-id of an event: `msg_` + hex SHA-256 of the gateway's own dedup
 * key (event type + message or reply suggestion id). Deterministic, so a
 * retried or replayed delivery carries the same id and receivers can dedup.
 */
export function webhookIdOf(event: WebhookEvent): string {
  return `msg_${createHash('sha256').update(webhookEventKey(event)).digest('hex')}`;
}
