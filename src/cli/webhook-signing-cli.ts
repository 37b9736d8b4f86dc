/**
 * What `threadgate webhooks sign|verify` does for each scheme, on the very
 * functions the gateway runs: the platform's `X-Svc-*` headers through
 * src/platform/signature.ts (the receiver's `verifyWebhook`), Standard
 * Webhooks through the webhook connector's `SigningKey` and `inboundVerifier`
 * — so the tool and the gateway cannot disagree. Only the words explaining a
 * refusal are the tool's own. No result ever repeats the secret.
 */
import { randomBytes } from 'node:crypto';
import { WebhookConnectorConfig } from '../../connectors/webhook/config.ts';
import {
  HEADER_ID,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  inboundVerifier,
  SignatureRefusedError,
  SigningKey,
  TOLERANCE_SECONDS,
} from '../../connectors/webhook/standard-webhooks.ts';
import { WebhookSignatureError } from '../platform/errors.ts';
import { signWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook, type SignaturePayload } from '../platform/signature.ts';

export const SCHEMES = ['platform', 'standard'] as const;
export type Scheme = (typeof SCHEMES)[number];

/** The connector's fixed tolerance of webhook-timestamp, either way. */
export const STANDARD_TOLERANCE_SECONDS = TOLERANCE_SECONDS;

/** Headers as the platform sends them: `[display name, value]`. */
export type HeaderLines = [string, string][];

/** `valid`, or why not with a stable code. */
export type Verdict = { valid: true } | { valid: false; code: string; reason: string };

/** The display names of the headers (matched case-insensitively). */
const NAMES: Record<string, string> = {
  [SIGNATURE_HEADER]: 'X-Svc-Signature',
  [TIMESTAMP_HEADER]: 'X-Svc-Timestamp',
  [HEADER_ID]: HEADER_ID,
  [HEADER_TIMESTAMP]: HEADER_TIMESTAMP,
  [HEADER_SIGNATURE]: HEADER_SIGNATURE,
};

/** The two headers the platform sends with a body signed at `timestamp`. */
export function platformHeaders(secret: string, body: Buffer, timestamp: number, payload: SignaturePayload): HeaderLines {
  return [
    [NAMES[SIGNATURE_HEADER]!, signWebhook(secret, body, timestamp, payload)],
    [NAMES[TIMESTAMP_HEADER]!, String(timestamp)],
  ];
}

/** Why a secret is not one the webhook connector takes (its settings' check), or undefined. Never repeats it. */
export function standardSecretProblem(secret: string): string | undefined {
  const checked = WebhookConnectorConfig.safeParse({ inbound_secret: secret });
  return checked.success ? undefined : checked.error.issues.find((i) => i.path[0] === 'inbound_secret')?.message;
}

/** A fresh webhook-id like the connector's: `msg_` and hex. */
export function newWebhookId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}

/** The Standard Webhooks headers the connector sends with a body (its SigningKey signs the bytes). */
export function standardHeaders(secret: string, body: Buffer, timestamp: number, id: string): HeaderLines {
  const key = new SigningKey(secret);
  return [
    [HEADER_ID, id],
    [HEADER_TIMESTAMP, String(timestamp)],
    [HEADER_SIGNATURE, key.sign(id, timestamp, body)],
  ];
}

export interface VerifyRequest {
  secret: string;
  body: Buffer;
  /** Lower-case header names. */
  headers: ReadonlyMap<string, string>;
  nowMs: number;
}

const refused = (code: string, reason: string): Verdict => ({ valid: false, code, reason });

/** How far outside the tolerance a timestamp lies, in the tool's words. */
function outside(seconds: number, nowSeconds: number, tolerance: number): string {
  const age = nowSeconds - seconds;
  return age > 0
    ? `timestamp outside the tolerance: ${age} s old, ${age - tolerance} s older than the ${tolerance} s tolerance`
    : `timestamp outside the tolerance: ${-age} s in the future, ${-age - tolerance} s beyond the ${tolerance} s tolerance`;
}

/** The receiver's check (`verifyWebhook`) of X-Svc-Signature and X-Svc-Timestamp. */
export function verifyPlatform(request: VerifyRequest & { payload: SignaturePayload; toleranceSeconds: number }): Verdict {
  const { headers, toleranceSeconds } = request;
  const timestamp = headers.get(TIMESTAMP_HEADER);
  try {
    verifyWebhook({
      secrets: [request.secret],
      rawBody: request.body,
      signature: headers.get(SIGNATURE_HEADER),
      timestamp,
      payload: request.payload,
      toleranceSeconds,
      now: request.nowMs,
    });
    return { valid: true };
  } catch (err) {
    if (!(err instanceof WebhookSignatureError)) throw err;
    const nowSeconds = Math.floor(request.nowMs / 1000);
    switch (err.code) {
      case 'TG_SIGNATURE_MISSING':
        return refused(err.code, `header missing: ${NAMES[SIGNATURE_HEADER]}`);
      case 'TG_TIMESTAMP_MISSING':
        return refused(err.code, `header missing: ${NAMES[TIMESTAMP_HEADER]}`);
      case 'TG_SIGNATURE_MALFORMED':
      case 'TG_TIMESTAMP_MALFORMED':
        return refused(err.code, `header malformed: ${err.message}`);
      case 'TG_TIMESTAMP_STALE':
      case 'TG_TIMESTAMP_FUTURE':
        return refused(err.code, outside(Number(timestamp), nowSeconds, toleranceSeconds));
      case 'TG_SIGNATURE_INVALID':
        return refused(err.code, `signature mismatch: X-Svc-Signature is not of this body and timestamp under this secret (payload ${request.payload})`);
    }
  }
}

/** The webhook connector's check of its inbound route (`inboundVerifier`), over the same bytes. */
export function verifyStandard(request: VerifyRequest): Verdict {
  const problem = standardSecretProblem(request.secret);
  if (problem !== undefined) return refused('TG_SECRET_MALFORMED', `secret in the wrong form: ${problem}`);
  const headers = Object.fromEntries(request.headers);
  try {
    inboundVerifier(request.secret)({ method: 'POST', path: '/', params: {}, query: {}, headers, rawBody: request.body });
    return { valid: true };
  } catch (err) {
    if (!(err instanceof SignatureRefusedError)) throw err;
    const nowSeconds = Math.floor(request.nowMs / 1000);
    switch (err.refusal) {
      case 'missing': {
        const absent = [HEADER_ID, HEADER_TIMESTAMP, HEADER_SIGNATURE].find((h) => !headers[h]) ?? HEADER_SIGNATURE;
        return refused(absent === HEADER_TIMESTAMP ? 'TG_TIMESTAMP_MISSING' : 'TG_SIGNATURE_MISSING', `header missing: ${absent}`);
      }
      case 'malformed':
        return refused('TG_TIMESTAMP_MALFORMED', `header malformed: ${HEADER_TIMESTAMP} is not Unix seconds`);
      case 'too_old':
      case 'too_new': {
        const seconds = Number.parseInt(headers[HEADER_TIMESTAMP] ?? '', 10);
        return refused(err.refusal === 'too_old' ? 'TG_TIMESTAMP_STALE' : 'TG_TIMESTAMP_FUTURE', outside(seconds, nowSeconds, TOLERANCE_SECONDS));
      }
      case 'mismatch':
        return refused('TG_SIGNATURE_INVALID', `signature mismatch: no v1 signature of ${HEADER_SIGNATURE} is of this id, timestamp and body under this secret`);
    }
  }
}
