/**
 * Opening the configured store — the SQLite file (`store.path`) or, with
 * `store.url`, PostgreSQL — from `serve` or from a command beside a running
 * `serve` (SQLite: WAL and a busy timeout; PostgreSQL: a pool of its own).
 * The log commands open only a store that exists: a missing file or an empty
 * database means the settings point elsewhere than the gateway's store, and
 * is said so instead of being made.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadSettings, type LoadedSettings } from '../config/load.ts';
import { openStore, type Store, type StoreOptions } from '../store/database.ts';
import { redactUrl } from '../store/postgres/redact-url.ts';
import { StoreNotFoundError } from './errors.ts';

export interface OpenedStore {
  loaded: LoadedSettings;
  store: Store;
}

export interface OpenOptions {
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  /**
   * Refuse (StoreNotFoundError) a SQLite file that does not exist or a
   * database without threadgate's tables, instead of creating or migrating
   * it; a store with some migrations in place is brought up to date as usual.
   */
  mustExist?: boolean;
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
  if (options.mustExist) return openExisting(loaded, options);
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
    ...(store.write_connections !== undefined ? { writeConnections: store.write_connections } : {}),
    preparedStatements: store.prepared_statements,
    wakeups: store.wakeups,
    ...(store.ssl !== undefined ? { ssl: store.ssl } : {}),
    ...(options.migrate === false ? { migrate: false } : {}),
    ...(logger ? { onIdleError: (err: Error) => logger.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'a pooled PostgreSQL connection failed; it is replaced on next use') } : {}),
    ...(logger ? { onWakeupsError: (err: Error) => logger.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'the PostgreSQL connection that listens for jobs queued elsewhere failed; opening it again') } : {}),
  });
}

/**
 * What the commands that only read or requeue from the store need of the settings. A `${VAR}` elsewhere (a
 * connector's secret, the platform token) may be unset where they run: it is left unread (config/partial-settings.ts).
 */
export const STORE_ONLY: readonly string[] = ['store'];

/** The store of the settings at `configPath` (or THREADGATE_CONFIG), for a log command: only one that exists. */
export async function openConfiguredStore(configPath: string | undefined): Promise<OpenedStore> {
  const loaded = loadSettings({ path: configPath, needs: STORE_ONLY });
  return { loaded, store: await openSettingsStore(loaded, { mustExist: true }) };
}

async function openExisting(loaded: LoadedSettings, options: OpenOptions): Promise<Store> {
  const where = storeLocation(loaded);
  const from = loaded.file === null ? 'the defaults: no settings file was named' : `the settings file ${loaded.file}`;
  const sqlite = loaded.settings.store.url === undefined;
  if (sqlite && !existsSync(where)) {
    throw new StoreNotFoundError(
      `no store at ${where} (from ${from}); nothing was created. Name the gateway's settings with --config PATH ` +
        `or THREADGATE_CONFIG, or point store.path (THREADGATE_STORE_PATH) at its store file`,
    );
  }
  const store = await openSettingsStore(loaded, { ...options, mustExist: false, migrate: false });
  try {
    const status = await store.migrationStatus();
    if (status.applied === 0) {
      throw new StoreNotFoundError(
        `the ${sqlite ? 'file' : 'database'} ${where} (from ${from}) holds no threadgate store; nothing was ` +
          `${sqlite ? 'created' : 'migrated'} in it. Name the gateway's settings with --config PATH or THREADGATE_CONFIG, ` +
          `or point ${sqlite ? 'store.path (THREADGATE_STORE_PATH)' : 'store.url (THREADGATE_STORE_URL)'} at its store` +
          `${sqlite ? '' : '; threadgate migrate sets up a new one'}`,
      );
    }
    if (!status.current && options.migrate !== false) await store.migrate();
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}
