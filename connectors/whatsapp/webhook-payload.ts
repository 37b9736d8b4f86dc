/**
 * The webhook notifications Meta POSTs for the `messages` field, as far as
 * the connector reads them (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components):
 *
 *   {"object": "whatsapp_business_account",
 *    "entry": [{"id": "<WABA id>", "changes": [{"field": "messages", "value": {
 *      "messaging_product": "whatsapp",
 *      "metadata": {"display_phone_number": "15550001111", "phone_number_id": "106540352242922"},
 *      "contacts": [{"profile": {"name": "Ann"}, "wa_id": "4915112345678"}],
 *      "messages": [{"from": "4915112345678", "id": "wamid.…", "timestamp": "1764230400", "type": "text", "text": {"body": "Hi"}}],
 *      "statuses": [{"id": "wamid.…", "status": "read", "timestamp": "1764230460", "recipient_id": "4915112345678",
 *                    "errors": [{"code": 131026, "title": "Message undeliverable", "error_data": {"details": "…"}}]}]}}]}]}
 *
 * Read loosely: fields Meta adds are kept, a change of another field or
 * object is passed over, and each message's own part (`text`, `image`, …) is
 * read by inbound-message.ts for its `type`.
 */
import { z } from 'zod';

const Contact = z.looseObject({
  wa_id: z.string().min(1),
  profile: z.looseObject({ name: z.string().optional() }).optional(),
});

export const WaMessage = z.looseObject({
  id: z.string().min(1),
  from: z.string().min(1),
  timestamp: z.string().optional(),
  type: z.string(),
});
export type WaMessage = z.output<typeof WaMessage> & Record<string, unknown>;

const StatusError = z.looseObject({
  code: z.number().optional(),
  title: z.string().optional(),
  message: z.string().optional(),
  error_data: z.looseObject({ details: z.string().optional() }).optional(),
});

export const WaStatus = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  timestamp: z.string().regex(/^\d{1,12}$/),
  recipient_id: z.string().optional(),
  errors: z.array(StatusError).optional(),
});
export type WaStatus = z.output<typeof WaStatus>;

/** One change's value for the `messages` field. */
export const MessagesValue = z.looseObject({
  metadata: z.looseObject({ phone_number_id: z.string().min(1) }),
  contacts: z.array(Contact).optional(),
  messages: z.array(WaMessage).optional(),
  statuses: z.array(WaStatus).optional(),
});
export type MessagesValue = z.output<typeof MessagesValue>;

export const Notification = z.looseObject({
  object: z.string(),
  entry: z.array(z.looseObject({ changes: z.array(z.looseObject({ field: z.string(), value: z.unknown() })).default([]) })),
});

/** The `messages` changes of a notification for any business account, each value checked; others left out. */
export function messagesChanges(body: unknown): { values: MessagesValue[]; problem?: string } {
  const notification = Notification.safeParse(body);
  if (!notification.success) return { values: [], problem: problemOf(notification.error) };
  if (notification.data.object !== 'whatsapp_business_account') return { values: [] };
  const values: MessagesValue[] = [];
  for (const [e, entry] of notification.data.entry.entries()) {
    for (const [c, change] of entry.changes.entries()) {
      if (change.field !== 'messages') continue;
      const value = MessagesValue.safeParse(change.value);
      if (!value.success) return { values: [], problem: problemOf(value.error, `entry.${e}.changes.${c}.value`) };
      values.push(value.data);
    }
  }
  return { values };
}

function problemOf(error: z.ZodError, at = ''): string {
  const issue = error.issues[0];
  const path = [at, ...(issue?.path ?? []).map(String)].filter((p) => p !== '').join('.');
  return `${path || 'body'}: ${issue?.message ?? 'invalid'}`;
}

/** The customer's wa_id and profile name for a message: its contact (by `from`), else `from` itself. */
export function senderOf(value: MessagesValue, message: WaMessage): { waId: string; name: string | undefined } {
  const contact = value.contacts?.find((c) => c.wa_id === message.from) ?? (value.contacts?.length === 1 ? value.contacts[0] : undefined);
  return { waId: contact?.wa_id ?? message.from, name: contact?.profile?.name?.trim() || undefined };
}
