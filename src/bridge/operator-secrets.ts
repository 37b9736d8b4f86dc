/**
 * Credentials an operator replaces while the gateway runs (`threadgate
 * secrets set <connector> <key>`), behind `ctx.secrets` of the connector API.
 *
 * A value is kept in the connector's state under `operator-secret:<key>`,
 * sealed with `store.encryption_key` (never in clear in the store), beside a
 * digest of what the settings held at that key when it was set. It is in
 * force only while the settings still hold that: an operator who later
 * writes a new value into the settings file (and reloads or restarts) gets
 * the settings' value, so the newest of the two always wins. Every replica
 * reads the same row; connectors ask at each use, so no restart is needed.
 */
import { createHash } from 'node:crypto';
import type { ConnectorSecrets, Logger, Sealer } from '../connector/api.ts';

export const OPERATOR_SECRET_PREFIX = 'operator-secret:';

export interface OperatorSecretRecord {
  /** The value, sealed (`v1.…`). */
  sealed: string;
  /** SHA-256 (hex, first 32) of what the settings held at the key when this was set; of '' when nothing. */
  over: string;
  /** When it was set (ISO 8601). */
  set_at: string;
}

/** The digest an operator secret is tied to: never the value itself. */
export function settingsDigest(configured: string | undefined): string {
  return createHash('sha256').update(configured ?? '', 'utf8').digest('hex').slice(0, 32);
}

export function operatorSecretRecord(sealer: Sealer, value: string, configured: string | undefined, now = new Date()): OperatorSecretRecord {
  return { sealed: sealer.seal(value), over: settingsDigest(configured), set_at: now.toISOString() };
}

/** The value at a dotted key of a settings entry, when it is a string. */
export function entryValueAt(entry: Readonly<Record<string, unknown>>, key: string): string | undefined {
  let at: unknown = entry;
  for (const part of key.split('.')) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  return typeof at === 'string' ? at : undefined;
}

/** `ctx.secrets` of one connector: `read` is its state's get. */
export function connectorSecrets(read: (key: string) => Promise<unknown>, sealer: Sealer | undefined, logger: Logger): ConnectorSecrets {
  const warned = new Set<string>();
  return Object.freeze({
    async get(key: string, configured: string | undefined): Promise<string | undefined> {
      if (sealer === undefined) return undefined;
      const record = (await read(OPERATOR_SECRET_PREFIX + key)) as OperatorSecretRecord | undefined;
      if (record === undefined || record.over !== settingsDigest(configured)) return undefined;
      try {
        return sealer.open(record.sealed);
      } catch {
        if (!warned.has(key)) logger.warn({ key }, `the value set for ${key} with threadgate secrets does not open with store.encryption_key (changed?); using the settings' value`);
        warned.add(key);
        return undefined;
      }
    },
  });
}
