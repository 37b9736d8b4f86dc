/**
 * Unified messaging (spec 03): channel configurations, inbound messages,
 * session closing and the two webhook envelopes.
 *
 * Requests are strict (unknown keys refused, documented limits enforced) so a
 * typo never leaves the gateway; responses are loose (unknown keys kept) so a
 * platform that adds fields never breaks us.
 */
import { z } from 'zod';

export const LIMITS = {
  name: 255,
  messagingChannel: 64,
  replyWebhookUrl: 2048,
  threadId: 512,
  senderId: 512,
  messageId: 512,
} as const;

export const DEFAULT_MAX_RETRY_COUNT = 3;

/** A string that is not blank after trimming, with a maximum length. */
const nonBlank = (max: number) =>
  z.string().trim().min(1, { error: 'This field may not be blank.' }).max(max, {
    error: `Ensure this field has no more than ${max} characters.`,
  });

const isoDateTime = z.string();

// ─── Channel configuration ──────────────────────────────────────────────────

export const ChannelConfiguration = z.looseObject({
  id: z.uuid(),
  name: z.string(),
  messaging_channel: z.string(),
  organization_id: z.uuid(),
  room_id: z.uuid(),
  reply_webhook_url: z.string(),
  max_retry_count: z.number().int(),
  /** Present on create and when the secret was changed by PUT or PATCH. */
  webhook_secret_key: z.string().nullable().optional(),
  created_at: isoDateTime,
  modified_at: isoDateTime,
});
export type ChannelConfiguration = z.infer<typeof ChannelConfiguration>;

const channelConfigurationFields = {
  name: nonBlank(LIMITS.name),
  messaging_channel: nonBlank(LIMITS.messagingChannel),
  room_id: z.uuid(),
  reply_webhook_url: z
    .url({ protocol: /^https?$/, error: 'Enter a valid URL.' })
    .max(LIMITS.replyWebhookUrl, {
      error: `Ensure this field has no more than ${LIMITS.replyWebhookUrl} characters.`,
    }),
  max_retry_count: z.number().int().min(0).max(100),
  webhook_secret_key: z.string().min(1).max(255).nullable(),
};

/** POST (collection) and PUT: required fields must be present. */
export const ChannelConfigurationCreate = z.strictObject({
  name: channelConfigurationFields.name,
  messaging_channel: channelConfigurationFields.messaging_channel,
  room_id: channelConfigurationFields.room_id,
  reply_webhook_url: channelConfigurationFields.reply_webhook_url,
  max_retry_count: channelConfigurationFields.max_retry_count.optional(),
  webhook_secret_key: channelConfigurationFields.webhook_secret_key.optional(),
});
export type ChannelConfigurationCreate = z.input<typeof ChannelConfigurationCreate>;

/** PATCH: any subset of the writable fields. */
export const ChannelConfigurationPatch = ChannelConfigurationCreate.partial();
export type ChannelConfigurationPatch = z.input<typeof ChannelConfigurationPatch>;

export const CONFIGURATION_ORDERINGS = [
  'created_at',
  '-created_at',
  'modified_at',
  '-modified_at',
  'messaging_channel',
] as const;

export const ChannelConfigurationListQuery = z.strictObject({
  ordering: z.enum(CONFIGURATION_ORDERINGS).default('-created_at'),
  cursor: z.string().optional(),
  page_size: z.coerce.number().int().min(1).max(100).optional(),
});

// ─── Messages ───────────────────────────────────────────────────────────────

export const SENDER_TYPES = ['visitor', 'user'] as const;

export const InboundMessage = z.strictObject({
  body: z.string().refine((s) => s.trim().length > 0, { error: 'This field may not be blank.' }),
  thread_id: nonBlank(LIMITS.threadId),
  sender_id: nonBlank(LIMITS.senderId),
  message_id: nonBlank(LIMITS.messageId),
  sender_type: z.enum(SENDER_TYPES).default('visitor'),
  selected_reply_suggestion_id: z.uuid().nullable().default(null),
});
export type InboundMessage = z.input<typeof InboundMessage>;

export const CreateMessagesRequest = z
  .strictObject({
    messages: z.array(InboundMessage).min(1, { error: 'Ensure this field has at least 1 elements.' }),
    skip_waiting_state: z.boolean().default(false),
    close_session: z.boolean().default(false),
    /** Saved as visitor variables; null values are ignored. */
    variables: z.record(z.string(), z.string().nullable()).optional(),
  })
  .superRefine((req, ctx) => {
    const first = req.messages[0]?.thread_id;
    req.messages.forEach((m, i) => {
      if (m.thread_id !== first) {
        ctx.addIssue({
          code: 'custom',
          path: ['messages', i, 'thread_id'],
          message: 'All messages must share one thread_id.',
        });
      }
    });
  });
export type CreateMessagesRequest = z.input<typeof CreateMessagesRequest>;

export const CreateMessagesResponse = z.looseObject({
  chat_id: z.uuid(),
  mapping_id: z.uuid(),
  message_ids: z.array(z.uuid()),
  messages_created: z.number().int(),
  is_new_session: z.boolean(),
});
export type CreateMessagesResponse = z.infer<typeof CreateMessagesResponse>;

export const CloseSessionRequest = z.strictObject({
  thread_id: nonBlank(LIMITS.threadId),
});
export type CloseSessionRequest = z.input<typeof CloseSessionRequest>;

export const CloseSessionResponse = z.looseObject({
  chat_session_id: z.uuid(),
  thread_id: z.string(),
  message: z.string(),
  is_ended: z.literal(true),
});
export type CloseSessionResponse = z.infer<typeof CloseSessionResponse>;

// ─── Webhook envelopes ──────────────────────────────────────────────────────

const nullableObject = z.record(z.string(), z.unknown()).nullable();

/**
 * One element of a message's `attachments`. Spec 03 says only "attachments
 * (array)"; we read them as the spec's own message chunks `file` and `image`
 * (docs/decisions/webhook-attachments.md). Loose: extra keys kept.
 */
const attachmentUrl = z.url({ protocol: /^https?$/, error: 'Enter a valid http(s) URL.' });

export const FileAttachment = z.looseObject({
  type: z.literal('file'),
  url: attachmentUrl,
  name: z.string(),
  /** Optional (spec 03); null is read as absent. */
  size: z.number().nonnegative().nullish(),
});

export const ImageAttachment = z.looseObject({
  type: z.literal('image'),
  url: attachmentUrl,
});

export const MessageAttachment = z.discriminatedUnion('type', [FileAttachment, ImageAttachment]);
export type MessageAttachment = z.infer<typeof MessageAttachment>;

/** The attachments of a message that are a readable file or image, in order; any other element is left out. */
export function knownAttachments(list: readonly unknown[]): MessageAttachment[] {
  const known: MessageAttachment[] = [];
  for (const item of list) {
    const parsed = MessageAttachment.safeParse(item);
    if (parsed.success) known.push(parsed.data);
  }
  return known;
}

export const WebhookMessage = z.looseObject({
  id: z.uuid(),
  type: z.string(),
  chat_id: z.uuid(),
  room_id: z.uuid(),
  created_at: isoDateTime,
  sender_type: z.string(),
  sender_id: z.string(),
  sender_public_name: z.string().nullable(),
  sender_name: z.string().nullable(),
  sender_avatar: nullableObject,
  message: z.string(),
  is_encrypted: z.boolean(),
  is_edited: z.boolean(),
  sensitive_data_purged_at: z.string().nullable(),
  selected_reply_suggestion_id: z.uuid().nullable(),
  selected_reply_suggestion: nullableObject,
  /** Files and images as `MessageAttachment`; an element of another shape is kept as it came (`knownAttachments`). */
  attachments: z.array(z.union([MessageAttachment, z.unknown()])),
  attachment_template: z.string().nullable(),
  response_to_message_id: z.uuid().nullable(),
  response_to_attachment_id: z.uuid().nullable(),
  response_to_action_id: z.uuid().nullable(),
  response_to_attachment: nullableObject,
  response_to_action: nullableObject,
  response_text: z.string().nullable(),
  response_value: z.string().nullable(),
});
export type WebhookMessage = z.infer<typeof WebhookMessage>;

export const ReplySuggestion = z.looseObject({
  id: z.uuid(),
  created_by_user_id: z.uuid().nullable(),
  created_by_user: nullableObject,
  updated_by_user_id: z.uuid().nullable(),
  updated_by_user: nullableObject,
  chat_id: z.uuid(),
  message_id: z.uuid().nullable(),
  room_id: z.uuid(),
  organization_id: z.uuid(),
  created_at: isoDateTime,
  updated_at: isoDateTime,
  suggestion: z.string(),
  relevancy_score: z.number().min(0).max(1).nullable(),
  target_organization: z.string().nullable(),
});
export type ReplySuggestion = z.infer<typeof ReplySuggestion>;

const envelopeBase = {
  thread_id: z.string(),
  chat_id: z.uuid(),
  messaging_channel: z.string(),
  channel_config_id: z.uuid(),
};

export const MessageCreatedEvent = z.looseObject({
  event_type: z.literal('message_created'),
  ...envelopeBase,
  message: WebhookMessage,
});
export type MessageCreatedEvent = z.infer<typeof MessageCreatedEvent>;

export const ReplySuggestionCreatedEvent = z.looseObject({
  event_type: z.literal('reply_suggestion_created'),
  ...envelopeBase,
  reply_suggestion: ReplySuggestion,
});
export type ReplySuggestionCreatedEvent = z.infer<typeof ReplySuggestionCreatedEvent>;

export const WebhookEvent = z.discriminatedUnion('event_type', [
  MessageCreatedEvent,
  ReplySuggestionCreatedEvent,
]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/**
 * A webhook event's own time, as the platform wrote it: the `created_at` of what it carries. The same event sent
 * again carries the same bytes, so with the dedup key it names the event; it leads the store's dedup index, whose
 * keys then come in time order.
 */
export function webhookEventTime(event: WebhookEvent): string {
  return event.event_type === 'message_created' ? event.message.created_at : event.reply_suggestion.created_at;
}

/** The dedup key of a webhook event: its type plus the id of what it carries. */
export function webhookEventKey(event: WebhookEvent): string {
  return event.event_type === 'message_created'
    ? `message_created:${event.message.id}`
    : `reply_suggestion_created:${event.reply_suggestion.id}`;
}
