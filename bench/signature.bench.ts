/** Webhook signature verification, the receiver's per-request cost. */
import { signWebhook, verifyWebhook } from '../src/platform/signature.ts';
import { measure, type Measured } from './measure.ts';

export function benchSignature(): Measured[] {
  const secret = 'a'.repeat(64);
  const body = JSON.stringify({ event_type: 'message_created', message: { message: 'x'.repeat(2_000) } });
  const ts = Math.floor(Date.now() / 1000);
  const signature = signWebhook(secret, body, ts);
  const previous = 'b'.repeat(64);
  return [
    measure('sign 2 KB body', 100_000, () => signWebhook(secret, body, ts)),
    measure('verify 2 KB body (current secret)', 100_000, () =>
      verifyWebhook({ secrets: [secret], rawBody: body, signature, timestamp: String(ts) }),
    ),
    measure('verify 2 KB body (current + previous secret)', 100_000, () =>
      verifyWebhook({ secrets: [previous, secret], rawBody: body, signature, timestamp: String(ts) }),
    ),
  ];
}
