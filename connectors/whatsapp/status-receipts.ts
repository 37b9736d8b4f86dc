/**
 * WhatsApp's status callbacks for what the gateway sent — `sent`, `delivered`,
 * `read`, or `failed` with `errors[]` — as delivery receipts
 * (`ctx.receipts.record`), matched to the delivery whose external id is the
 * wamid. They post nothing.
 *
 *   {"id": "wamid.…", "status": "read", "timestamp": "1764230460", "recipient_id": "4915112345678"}
 *   {"id": "wamid.…", "status": "failed", "timestamp": "…", "errors": [{"code": 131026, "title": "Message undeliverable",
 *    "error_data": {"details": "…"}}]}
 *
 * What WhatsApp says of them (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components):
 * each status comes in a notification of its own, and notifications are not
 * ordered — `delivered` may come after `read`, and any may come twice. The
 * store keeps the furthest status, so such a callback changes nothing.
 * `read` comes only from customers with read receipts on; `failed` may
 * follow `sent` (the customer could not be reached) and is final. Any other
 * status (`deleted`, `warning`, ones Meta adds) is passed over. The time is
 * WhatsApp's (`timestamp`, Unix seconds). A failure's reason is each error's
 * code, title and details:
 *
 *   131047 Re-engagement message: Message failed to send because more than 24 hours have passed …
 */
import type { ConnectorContext, ReceiptStatus } from '../../src/connector/api.ts';
import type { WaStatus } from './webhook-payload.ts';

const KNOWN: readonly string[] = ['sent', 'delivered', 'read', 'failed'] satisfies ReceiptStatus[];

/** The reason of a `failed` status, from its errors. */
export function failureReason(status: WaStatus): string {
  const reasons = (status.errors ?? []).map((e) => {
    const words = e.title ?? e.message ?? 'no title';
    const details = e.error_data?.details && e.error_data.details !== words ? `: ${e.error_data.details}` : '';
    return `${e.code ?? '?'} ${words}${details}`;
  });
  return reasons.length > 0 ? reasons.join('; ') : 'WhatsApp reported it failed without saying why';
}

/** Records one status callback as a receipt; false when its status is not one the gateway keeps. */
export async function recordStatus(ctx: ConnectorContext, status: WaStatus): Promise<boolean> {
  if (!KNOWN.includes(status.status)) {
    ctx.logger.debug({ external_id: status.id, status: status.status }, 'a WhatsApp status the gateway does not keep');
    return false;
  }
  await ctx.receipts.record({
    externalId: status.id,
    status: status.status as ReceiptStatus,
    at: new Date(Number(status.timestamp) * 1000),
    ...(status.status === 'failed' ? { reason: failureReason(status) } : {}),
  });
  return true;
}
