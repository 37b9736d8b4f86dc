/**
 * A `message_created` webhook envelope with every field spec 03 lists, for
 * tests and benchmarks that play the platform's side by hand: the author
 * kit's builder (src/connector/testing/events.ts) under the names these
 * tests use. The sandbox builds the real ones (src/sandbox/webhook-envelopes.ts).
 */
import { messageCreated } from '../../src/connector/testing/events.ts';
import type { MessageCreatedEvent } from '../../src/platform/schemas/unified-messaging.ts';

export interface MessageCreatedFields {
  threadId: string;
  chatId?: string;
  roomId?: string;
  configId?: string;
  messagingChannel?: string;
  messageId?: string;
  text?: string;
  senderId?: string;
  senderName?: string;
  createdAt?: string;
  /** The message's `attachments` (files and images as `MessageAttachment`, or anything a platform could send); default []. */
  attachments?: unknown[];
}

export function messageCreatedEnvelope(f: MessageCreatedFields): MessageCreatedEvent {
  const { configId, attachments, ...rest } = f;
  return messageCreated({ ...rest, ...(configId ? { channelConfigId: configId } : {}), files: (attachments ?? []) as Record<string, unknown>[] });
}
