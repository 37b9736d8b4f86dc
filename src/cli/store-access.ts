/** Opening the configured store from a command, beside a running `serve` (WAL, busy timeout). */
import { resolve } from 'node:path';
import { loadSettings, type LoadedSettings } from '../config/load.ts';
import { openStore, type Store } from '../store/database.ts';

export interface OpenedStore {
  loaded: LoadedSettings;
  store: Store;
}

export function openConfiguredStore(configPath: string | undefined): OpenedStore {
  const loaded = loadSettings({ path: configPath });
  const { settings, baseDir } = loaded;
  const store = openStore({
    path: resolve(baseDir, settings.store.path),
    synchronous: settings.store.synchronous,
    busyTimeoutMs: settings.store.busy_timeout_ms,
  });
  return { loaded, store };
}
