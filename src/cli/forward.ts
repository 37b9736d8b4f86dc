/**
 * Sending a stored webhook somewhere else: the stored body re-signed with a
 * fresh timestamp in the platform's scheme (the connector's current secret
 * unless one is given) and POSTed to any URL — to point production traffic
 * at a local or staging gateway. Redirects are not followed; the answer is
 * read whole and returned for printing.
 */
import { request } from 'undici';
import { signedHeaders, type SignaturePayload } from '../platform/signature.ts';

export interface ForwardResult {
  status: number;
  body: string;
}

export const FORWARD_TIMEOUT_MS = 10_000;

export async function forwardSigned(url: string, body: string, secret: string, payload: SignaturePayload): Promise<ForwardResult> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'threadgate-replay', ...signedHeaders(secret, body, payload) },
    body,
    headersTimeout: FORWARD_TIMEOUT_MS,
    bodyTimeout: FORWARD_TIMEOUT_MS,
  });
  return { status: res.statusCode, body: (await res.body.text()).slice(0, 4_096) };
}

/** One line of `deliveries export`: enough to send the webhook again anywhere. */
export interface ExportedDelivery {
  id: number;
  connector: string;
  event_type: string | null;
  status: string;
  received_at: string;
  headers: Record<string, unknown>;
  body: string;
  body_truncated: boolean;
}
