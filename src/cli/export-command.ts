/**
 * `threadgate deliveries export [filters] > file.ndjson`: every matching
 * delivery (oldest first, all pages), one JSON object a line with its raw
 * body and headers — for `threadgate replay --from file.ndjson --to URL`.
 */
import { matchingDeliveryIds, type DeliveryFilter } from '../store/log-queries.ts';
import type { ExportedDelivery } from './forward.ts';
import { assertKnownConnector } from './known-connectors.ts';
import { openConfiguredStore } from './store-access.ts';

export async function exportDeliveries(configPath: string | undefined, filter: DeliveryFilter, write: (line: string) => void): Promise<number> {
  const { loaded, store } = await openConfiguredStore(configPath);
  try {
    await assertKnownConnector(store, loaded, filter.connector);
    const ids = await matchingDeliveryIds(store.read.sql, filter);
    for (const id of ids) {
      const d = await store.read.deliveries.byId(id);
      if (!d) continue;
      const line: ExportedDelivery = {
        id: d.id,
        connector: d.connector,
        event_type: d.eventType,
        status: d.status,
        received_at: new Date(d.receivedAt).toISOString(),
        headers: d.headers,
        body: d.body,
        body_truncated: d.bodyTruncated,
      };
      write(`${JSON.stringify(line)}\n`);
    }
    return ids.length;
  } finally {
    await store.close();
  }
}
