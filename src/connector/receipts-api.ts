/**
 * The connector contract's delivery receipts (re-exported by api.ts, where a connector imports them from): what
 * the other side later reports of a message the connector sent — a chat app's "sent", "delivered" and "read"
 * ticks, or its failure — recorded against the id it gave that message (the `externalId` a `deliver` returned),
 * so the delivery log shows it beside the delivery.
 */

/** How far a sent message got, in order: sent < delivered < read; `failed` is final. */
export type ReceiptStatus = 'sent' | 'delivered' | 'read' | 'failed';

/** One report of the other side about one message the connector sent. */
export interface DeliveryReceipt {
  /** The other side's id of the message: the `externalId` a `deliver` returned (a WhatsApp wamid), at most 2,000 characters. */
  externalId: string;
  status: ReceiptStatus;
  /** When it happened, by the other side's clock. */
  at: Date;
  /** Why it failed, in the other side's words (its code and title); at most 2,000 characters are kept. */
  reason?: string;
}

/**
 * The gateway's record of receipts, one per `externalId` of the connector: the furthest status reported so far.
 * A report that comes again, late or out of order (`delivered` after `read`) changes nothing; `failed` replaces
 * any other status and is never replaced. Receipts post nothing to the platform.
 */
export interface DeliveryReceipts {
  /**
   * Records one receipt; resolves after the commit with `changed`: false when the message already had this status
   * or a further one. A receipt that breaks a rule (a blank `externalId`, an unknown `status`, an invalid `at`) is
   * refused with `TG_RECEIPT_INVALID` naming the field.
   */
  record(receipt: DeliveryReceipt): Promise<{ changed: boolean }>;
}
