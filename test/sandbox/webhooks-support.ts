/**
 * Shared by the outgoing webhook suites: the retry timing used, the recorded
 * attempts, signature verification as the gateway's receiver does it, and a
 * chat linked to a configuration that sends to a receiver.
 */
import { WebhookEvent } from '../../src/platform/schemas/unified-messaging.ts';
import { verifyWebhook, type SignaturePayload } from '../../src/platform/signature.ts';
import type { WebhookAttempt } from '../../src/sandbox/model.ts';
import { until, visitorMessage, type ReceivedWebhook, type TestSandbox } from './support.ts';

/** The retry unit used here: retries after ~40, ~80, ~160 ms. */
export const RETRY_BASE_MS = 20;
/** Long enough for every retry of RETRY_BASE_MS with max_retry_count ≤ 3 to have happened. */
export const AFTER_ALL_RETRIES_MS = 500;

export type Attempt = WebhookAttempt;

export async function attempts(sb: TestSandbox, configId?: string): Promise<Attempt[]> {
  const query = configId === undefined ? '' : `?config_id=${configId}`;
  return (await sb.call('GET', `/_sandbox/webhook_attempts${query}`)).body.results;
}

export async function attemptsReach(sb: TestSandbox, count: number, timeoutMs = 5000): Promise<Attempt[]> {
  await until(async () => (await attempts(sb)).length >= count, timeoutMs, `${count} recorded attempts`);
  return attempts(sb);
}

/** Verifies the signature and parses the envelope, as the gateway's receiver does. */
export function verified(hook: ReceivedWebhook, secret: string, payload: SignaturePayload = 'timestamp.body') {
  verifyWebhook({
    secrets: [secret],
    rawBody: hook.rawBody,
    signature: hook.headers['x-svc-signature'] as string | undefined,
    timestamp: hook.headers['x-svc-timestamp'] as string | undefined,
    payload,
  });
  return WebhookEvent.parse(JSON.parse(hook.rawBody));
}

export async function linkedChat(sb: TestSandbox, receiverUrl: string, fields: Record<string, unknown> = {}) {
  const config = await sb.createConfig({ reply_webhook_url: receiverUrl, messaging_channel: 'email', ...fields });
  const res = await sb.postMessages(config.id, { messages: [visitorMessage('thread-w', 'Where is my parcel?')] });
  return { config, secret: config.webhook_secret_key as string, chatId: res.body.chat_id as string };
}
