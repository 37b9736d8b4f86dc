/**
 * What makes a `DeliveryReceipt` acceptable, and which of two receipts of one
 * message is kept: the bridge checks every receipt with these rules before it
 * is written, and the author kit's recording context (`threadgate/testing`)
 * keeps receipts by the same ones, so a connector's tests see what the
 * gateway would record. The store keeps the same order in SQL
 * (src/store/receipts-repo.ts).
 */
import { ThreadgateError } from '../base/errors.ts';
import type { DeliveryReceipt, ReceiptStatus } from './receipts-api.ts';

/** The statuses, each further than the ones before it (`failed` last: final). */
export const RECEIPT_STATUSES: readonly ReceiptStatus[] = ['sent', 'delivered', 'read', 'failed'];
/** `externalId` is at most this long. */
export const MAX_RECEIPT_ID = 2_000;
/** Of a `reason`, this many characters are kept. */
export const MAX_RECEIPT_REASON = 2_000;

/** A receipt the connector handed over cannot be recorded. */
export class ReceiptInvalidError extends ThreadgateError {
  readonly code = 'TG_RECEIPT_INVALID';
  override readonly statusCode = 400;
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/** Throws `ReceiptInvalidError` naming the first field of `r` that breaks a rule. */
export function checkReceipt(r: { externalId: unknown; status: unknown; at: unknown; reason?: unknown }): asserts r is DeliveryReceipt {
  if (typeof r.externalId !== 'string' || r.externalId.trim() === '') throw new ReceiptInvalidError('externalId', 'must be a non-blank string');
  if (r.externalId.length > MAX_RECEIPT_ID) throw new ReceiptInvalidError('externalId', `must have at most ${MAX_RECEIPT_ID} characters`);
  if (!RECEIPT_STATUSES.includes(r.status as ReceiptStatus)) throw new ReceiptInvalidError('status', `must be one of ${RECEIPT_STATUSES.join(', ')}`);
  if (!(r.at instanceof Date) || Number.isNaN(r.at.getTime())) throw new ReceiptInvalidError('at', 'must be a valid Date');
  if (r.reason !== undefined && typeof r.reason !== 'string') throw new ReceiptInvalidError('reason', 'must be a string when given');
}

/** Whether `next` is further than `kept` (no receipt kept yet: always), i.e. replaces it. */
export function receiptAdvances(kept: ReceiptStatus | undefined, next: ReceiptStatus): boolean {
  return kept === undefined || RECEIPT_STATUSES.indexOf(next) > RECEIPT_STATUSES.indexOf(kept);
}

/** The reason as kept: trimmed, at most MAX_RECEIPT_REASON characters; null when absent or blank. */
export function keptReason(reason: string | undefined): string | null {
  const text = reason?.trim() ?? '';
  return text === '' ? null : text.slice(0, MAX_RECEIPT_REASON);
}
