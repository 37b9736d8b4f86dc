/** Opening the configured store from a command, beside a running `serve` (WAL, busy timeout). */
import { resolve } from 'node:path';
import { loadSettings, type LoadedSettings } from '../config/load.ts';
import { openStore, type Store, type StoreOptions } from '../store/database.ts';

export interface OpenedStore {
  loaded: LoadedSettings;
  store: Store;
}

/** How the settings open the store: its path (from the config file's folder), synchronous mode and busy timeout. */
export function storeOptions({ settings, baseDir }: LoadedSettings): StoreOptions {
  return { path: resolve(baseDir, settings.store.path), synchronous: settings.store.synchronous, busyTimeoutMs: settings.store.busy_timeout_ms };
}

export function openConfiguredStore(configPath: string | undefined): OpenedStore {
  const loaded = loadSettings({ path: configPath });
  return { loaded, store: openStore(storeOptions(loaded)) };
}
