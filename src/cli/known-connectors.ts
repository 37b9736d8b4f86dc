/**
 * A `--connector` filter must name a connector the log can hold: one of the
 * settings, or one the store has records of (a connector since removed from
 * the settings). Any other name is a typo or the wrong settings, and is
 * refused naming the known ones, instead of matching nothing.
 */
import type { LoadedSettings } from '../config/load.ts';
import type { Store } from '../store/store.ts';
import { oneOf } from './args.ts';
import { UsageError } from './errors.ts';

/** Every connector the store has a channel configuration, a thread or a webhook delivery of. */
async function storedConnectors(store: Store): Promise<string[]> {
  const rows = await store.read.sql.all<{ connector: string }>(
    'select connector from channel_registrations union select connector from threads union select connector from deliveries',
  );
  return rows.map((r) => r.connector);
}

export async function assertKnownConnector(store: Store, { settings }: LoadedSettings, connector: string | undefined): Promise<void> {
  if (connector === undefined) return;
  const configured = settings.connectors.map((c) => c.name);
  if (configured.includes(connector)) return;
  const stored = await storedConnectors(store);
  if (stored.includes(connector)) return;
  const known = [...new Set([...configured, ...stored])].sort();
  throw new UsageError(
    `--connector ${connector} names no connector of the settings or of the store ${store.location}: ` +
      (known.length > 0 ? `the known ones are ${oneOf(known)}` : 'there are none (is this the right --config?)'),
  );
}
