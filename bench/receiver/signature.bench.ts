/**
 * Webhook signature verification, the receiver's and the webhook connector's
 * per-request cost; the Standard Webhooks check beside the `standardwebhooks`
 * package's in the same run.
 */
import { Webhook } from 'standardwebhooks';
import { inboundVerifier } from '../../connectors/webhook/standard-webhooks.ts';
import { signWebhook, verifyWebhook } from '../../src/platform/signature.ts';
import { measure, type Measured } from '../support/measure.ts';

export function benchSignature(): Measured[] {
  const secret = 'a'.repeat(64);
  const body = JSON.stringify({ event_type: 'message_created', message: { message: 'x'.repeat(2_000) } });
  const ts = Math.floor(Date.now() / 1000);
  const signature = signWebhook(secret, body, ts);
  const previous = 'b'.repeat(64);
  const whsec = `whsec_${Buffer.from('standard-webhooks-bench-secret!!').toString('base64')}`;
  const at = new Date(ts * 1000);
  const rawBody = Buffer.from(body);
  const library = new Webhook(whsec);
  const headers = { 'webhook-id': 'msg_bench', 'webhook-timestamp': String(ts), 'webhook-signature': library.sign('msg_bench', at, body) };
  const ours = inboundVerifier(whsec);
  const request = { method: 'POST', path: '/messages', params: {}, query: {}, headers, rawBody };
  return [
    measure('sign 2 KB body', 100_000, () => signWebhook(secret, body, ts)),
    measure('verify 2 KB body (current secret)', 100_000, () =>
      verifyWebhook({ secrets: [secret], rawBody: body, signature, timestamp: String(ts) }),
    ),
    measure('verify 2 KB body (current + previous secret)', 100_000, () =>
      verifyWebhook({ secrets: [previous, secret], rawBody: body, signature, timestamp: String(ts) }),
    ),
    measure('Standard Webhooks check, 2 KB body: standardwebhooks package (reference)', 100_000, () =>
      library.verify(rawBody, headers, { jsonParse: false }),
    ),
    measure('Standard Webhooks check, 2 KB body: webhook connector', 100_000, () => ours(request)),
  ];
}
