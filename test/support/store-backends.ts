/**
 * The two store backends, for tests that must hold on both: a SQLite file in
 * a temp folder, or a fresh database on the run's PostgreSQL cluster
 * (./postgres.ts). Closed when the test finishes.
 *
 *   describe.each(STORE_BACKENDS)('%s store', (backend) => { … const { store } = await openTestStore(backend) … })
 */
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { openStore } from '../../src/store/database.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { Store } from '../../src/store/store.ts';
import { postgresDatabase } from './postgres.ts';
import { tempDir } from './temp-dir.ts';

export const STORE_BACKENDS = ['sqlite', 'postgres'] as const;
export type TestBackend = (typeof STORE_BACKENDS)[number];

export interface TestStore {
  store: Store;
  /** Opens the same data again (a restart), closed after the test too. */
  reopen(): Promise<Store>;
  /** PostgreSQL: the database's URL (for a second replica); undefined for SQLite. */
  url: string | undefined;
}

export async function openTestStore(backend: TestBackend): Promise<TestStore> {
  const path = join(tempDir(), 'contract.db');
  const url = backend === 'postgres' ? await postgresDatabase() : undefined;
  const open = async () => {
    const store = url === undefined ? openStore({ path }) : await openPostgresStore({ url, poolSize: 5 });
    onTestFinished(() => store.close());
    return store;
  };
  return { store: await open(), reopen: open, url };
}
