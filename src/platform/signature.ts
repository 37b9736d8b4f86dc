/**
 * Webhook signing and verification, shared by the receiver and the sandbox.
 *
 * Header `X-Svc-Signature: sha256=<hex>` is HMAC-SHA256 with the channel
 * configuration's `webhook_secret_key` over the signed string, and
 * `X-Svc-Timestamp` is the Unix time in seconds of signing. The spec does not
 * show the signed string; the default is `<timestamp>.<raw body>`, and
 * `body` signs the raw body alone (docs/decisions/webhook-signature.md).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookSignatureError } from './errors.ts';

export const SIGNATURE_HEADER = 'x-svc-signature';
export const TIMESTAMP_HEADER = 'x-svc-timestamp';
export const SIGNATURE_PREFIX = 'sha256=';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignaturePayload = 'timestamp.body' | 'body';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const UNIX_SECONDS = /^\d{1,12}$/;

function digest(secret: string, timestamp: number, rawBody: Uint8Array | string, payload: SignaturePayload): Buffer {
  const hmac = createHmac('sha256', secret);
  if (payload === 'timestamp.body') hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return hmac.digest();
}

/** The `X-Svc-Signature` value for a body signed at `timestamp` (Unix seconds). */
export function signWebhook(
  secret: string,
  rawBody: Uint8Array | string,
  timestamp: number,
  payload: SignaturePayload = 'timestamp.body',
): string {
  return SIGNATURE_PREFIX + digest(secret, timestamp, rawBody, payload).toString('hex');
}

/** Both headers for a body signed now; what the sandbox sends. */
export function signedHeaders(
  secret: string,
  rawBody: Uint8Array | string,
  payload: SignaturePayload = 'timestamp.body',
  now: number = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    [SIGNATURE_HEADER]: signWebhook(secret, rawBody, timestamp, payload),
    [TIMESTAMP_HEADER]: String(timestamp),
  };
}

export interface VerifyInput {
  /** Secrets accepted, current first (rotation keeps the previous one valid). */
  secrets: readonly string[];
  rawBody: Uint8Array | string;
  signature: string | undefined;
  timestamp: string | undefined;
  payload?: SignaturePayload;
  toleranceSeconds?: number;
  now?: number;
}

/**
 * Checks the timestamp window, then the signature against each secret in
 * constant time. Returns the index of the secret that matched; throws
 * WebhookSignatureError naming the problem otherwise.
 */
export function verifyWebhook(input: VerifyInput): { secretIndex: number; timestamp: number } {
  const { secrets, rawBody, signature, timestamp } = input;
  const payload = input.payload ?? 'timestamp.body';
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);

  if (timestamp === undefined || timestamp === '') {
    throw new WebhookSignatureError('TG_TIMESTAMP_MISSING', `missing ${TIMESTAMP_HEADER} header`);
  }
  if (!UNIX_SECONDS.test(timestamp)) {
    throw new WebhookSignatureError('TG_TIMESTAMP_MALFORMED', `${TIMESTAMP_HEADER} is not Unix seconds`);
  }
  const ts = Number(timestamp);
  if (nowSeconds - ts > tolerance) {
    throw new WebhookSignatureError('TG_TIMESTAMP_STALE', `${TIMESTAMP_HEADER} is older than ${tolerance} s`);
  }
  if (ts - nowSeconds > tolerance) {
    throw new WebhookSignatureError('TG_TIMESTAMP_FUTURE', `${TIMESTAMP_HEADER} is more than ${tolerance} s ahead`);
  }

  if (signature === undefined || signature === '') {
    throw new WebhookSignatureError('TG_SIGNATURE_MISSING', `missing ${SIGNATURE_HEADER} header`);
  }
  const hex = signature.startsWith(SIGNATURE_PREFIX) ? signature.slice(SIGNATURE_PREFIX.length) : '';
  if (!HEX_SHA256.test(hex)) {
    throw new WebhookSignatureError('TG_SIGNATURE_MALFORMED', `${SIGNATURE_HEADER} is not sha256=<64 hex>`);
  }
  const given = Buffer.from(hex, 'hex');
  let matched = -1;
  // Compare against every secret so the time taken does not reveal which one matched.
  secrets.forEach((secret, i) => {
    if (timingSafeEqual(given, digest(secret, ts, rawBody, payload)) && matched < 0) matched = i;
  });
  if (matched < 0) {
    throw new WebhookSignatureError('TG_SIGNATURE_INVALID', 'signature does not match');
  }
  return { secretIndex: matched, timestamp: ts };
}
