/**
 * Opening the configured store — the SQLite file (`store.path`) or, with
 * `store.url`, PostgreSQL — from `serve` or from a command beside a running
 * `serve` (SQLite: WAL and a busy timeout; PostgreSQL: a pool of its own).
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadSettings, type LoadedSettings } from '../config/load.ts';
import { openStore, type Store, type StoreOptions } from '../store/database.ts';
import { redactUrl } from '../store/postgres/redact-url.ts';

export interface OpenedStore {
  loaded: LoadedSettings;
  store: Store;
}

export interface OpenOptions {
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /** For `serve`: SQLite's WAL checkpoints in a worker thread; PostgreSQL's dropped idle connections logged. */
  logger?: Logger;
  backgroundCheckpoints?: StoreOptions['backgroundCheckpoints'];
}

/** How the settings open a SQLite store: its path (from the config file's folder), synchronous mode and busy timeout. */
export function storeOptions({ settings, baseDir }: LoadedSettings): StoreOptions {
  return { path: resolve(baseDir, settings.store.path), synchronous: settings.store.synchronous, busyTimeoutMs: settings.store.busy_timeout_ms };
}

/** Where the settings put the store, for messages: the SQLite file, or the PostgreSQL URL without its password. */
export function storeLocation(loaded: LoadedSettings): string {
  const url = loaded.settings.store.url;
  return url === undefined ? storeOptions(loaded).path : redactUrl(url);
}

export async function openSettingsStore(loaded: LoadedSettings, options: OpenOptions = {}): Promise<Store> {
  const { store } = loaded.settings;
  if (store.url === undefined) {
    return openStore({ ...storeOptions(loaded), ...(options.migrate === false ? { migrate: false } : {}), ...(options.backgroundCheckpoints ? { backgroundCheckpoints: options.backgroundCheckpoints } : {}) });
  }
  // Loaded only when configured: a SQLite deployment does not hold the PostgreSQL driver.
  const { openPostgresStore } = await import('../store/postgres/pg-store.ts');
  const logger = options.logger;
  return openPostgresStore({
    url: store.url,
    poolSize: store.pool_size,
    preparedStatements: store.prepared_statements,
    ...(store.ssl !== undefined ? { ssl: store.ssl } : {}),
    ...(options.migrate === false ? { migrate: false } : {}),
    ...(logger ? { onIdleError: (err: Error) => logger.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'a pooled PostgreSQL connection failed; it is replaced on next use') } : {}),
  });
}

export async function openConfiguredStore(configPath: string | undefined): Promise<OpenedStore> {
  const loaded = loadSettings({ path: configPath });
  return { loaded, store: await openSettingsStore(loaded) };
}
