/**
 * A connector's state in memory, for tests of connector parts without a
 * gateway (a watcher, the token manager, the Sent copies): the same contract
 * as the gateway's (`ConnectorState`: JSON values, copied in; keys by prefix
 * in key order), with the map itself open for assertions.
 */
import type { ConnectorState } from '../../src/connector/api.ts';

export function memoryState(): ConnectorState & { values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return {
    values,
    get: async <T>(key: string) => values.get(key) as T | undefined,
    set: async (key, value) => void values.set(key, structuredClone(value)),
    delete: async (key) => void values.delete(key),
    keys: async (prefix, limit = 100) => [...values.keys()].filter((k) => k.startsWith(prefix)).sort().slice(0, limit),
  };
}
