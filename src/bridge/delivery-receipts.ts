/**
 * `ctx.receipts` (the bridge's side of src/connector/receipts-api.ts): a
 * connector's report of what became of a message it sent, checked by the
 * contract's rules and written in one grouped write, where the store keeps
 * only the furthest status per message. A change is logged at debug (an id
 * and a status, never a body); the delivery log reads it by the delivery's
 * external id.
 */
import type { Logger } from 'pino';
import type { DeliveryReceipt, DeliveryReceipts } from '../connector/api.ts';
import { checkReceipt, keptReason } from '../connector/receipt-rules.ts';
import type { Store } from '../store/database.ts';

export function deliveryReceipts(connector: string, store: Store, logger: Logger, now: () => number): DeliveryReceipts {
  return Object.freeze({
    async record(receipt: DeliveryReceipt): Promise<{ changed: boolean }> {
      checkReceipt(receipt);
      const { externalId, status } = receipt;
      const input = { connector, externalId, status, at: receipt.at.getTime(), reason: keptReason(receipt.reason) };
      const changed = await store.write((tx) => tx.receipts.record(input, now()));
      if (changed) logger.debug({ connector, external_id: externalId, status }, 'delivery receipt recorded');
      return { changed };
    },
  });
}
