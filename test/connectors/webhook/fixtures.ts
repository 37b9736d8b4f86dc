/** Secrets, signed requests and platform events for the webhook connector's tests. */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { ConnectorInstance, RouteRequest, WebhookEvent } from '../../../src/connector/api.ts';
import {
  MessageCreatedEvent,
  ReplySuggestionCreatedEvent,
} from '../../../src/platform/schemas/unified-messaging.ts';
import webhookConnector from '../../../connectors/webhook/index.ts';
import { recordingContext, type RecordingContext } from './recording-context.ts';
import { messageCreatedEnvelope } from '../../support/events.ts';

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export const INBOUND_SECRET = newSecret();
export const OUTBOUND_SECRET = newSecret();

/** Outside the library's ±5 minute window. */
export const STALE_MS = 10 * 60_000;

export interface RequestOptions {
  /** Sign with this secret; `null` sends no signature headers at all. */
  secret?: string | null;
  timestamp?: Date;
  contentType?: string | null;
  /** Extra or replacing headers (lower-case names). */
  headers?: Record<string, string | undefined>;
  /** Bytes sent instead of the signed ones (tampering). */
  sentBody?: string;
}

let nextId = 0;

/** A RouteRequest as the gateway hands it over: raw bytes, lower-case headers. */
export function routeRequest(path: string, body: unknown, options: RequestOptions = {}): RouteRequest {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string | undefined> = {};
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  const secret = options.secret === undefined ? INBOUND_SECRET : options.secret;
  if (secret !== null) {
    const id = `msg_test_${++nextId}`;
    const at = options.timestamp ?? new Date();
    headers['webhook-id'] = id;
    headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
    headers['webhook-signature'] = new Webhook(secret).sign(id, at, text);
  }
  Object.assign(headers, options.headers);
  return {
    method: 'POST',
    path,
    params: {},
    query: {},
    headers,
    rawBody: Buffer.from(options.sentBody ?? text, 'utf8'),
  };
}

export interface Created {
  ctx: RecordingContext;
  instance: ConnectorInstance;
}

/** Parses `settings` with the connector's own schema and creates it on a recording context. */
export async function createConnector(settings: Record<string, unknown>, name?: string): Promise<Created> {
  const ctx = recordingContext(name);
  const config = webhookConnector.configSchema.parse(settings);
  const instance = await webhookConnector.create(config, ctx);
  return { ctx, instance };
}

export const CHAT_ID = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const ROOM_ID = '7d0c2e4a-8b1f-4c6d-9e2a-3b4c5d6e7f80';
const CONFIG_ID = 'c1a2b3c4-d5e6-4f70-8a9b-0c1d2e3f4a5b';
const ORG_ID = '0b4f1c9e-5d7a-4e2b-9c3d-1a2b3c4d5e6f';

export function messageCreated(messageId = '11111111-2222-4333-8444-555555555555', text = 'Your order ships today.'): WebhookEvent {
  return MessageCreatedEvent.parse(
    messageCreatedEnvelope({
      threadId: 'partner-hooks:order-42',
      chatId: CHAT_ID,
      roomId: ROOM_ID,
      configId: CONFIG_ID,
      messageId,
      text,
      senderId: '22222222-3333-4444-8555-666666666666',
      senderName: 'Agent Smith',
      createdAt: '2025-01-02T03:04:05Z',
    }),
  );
}

export function replySuggestionCreated(): WebhookEvent {
  return ReplySuggestionCreatedEvent.parse({
    event_type: 'reply_suggestion_created',
    thread_id: 'partner-hooks:order-42',
    chat_id: CHAT_ID,
    messaging_channel: 'webhook',
    channel_config_id: CONFIG_ID,
    reply_suggestion: {
      id: '33333333-4444-4555-8666-777777777777',
      created_by_user_id: null,
      created_by_user: null,
      updated_by_user_id: null,
      updated_by_user: null,
      chat_id: CHAT_ID,
      message_id: null,
      room_id: ROOM_ID,
      organization_id: ORG_ID,
      created_at: '2025-01-02T03:04:05Z',
      updated_at: '2025-01-02T03:04:05Z',
      suggestion: 'Try turning it off and on again.',
      relevancy_score: 0.8,
      target_organization: null,
    },
  });
}
