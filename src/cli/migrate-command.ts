/** `threadgate migrate [--config PATH]`: apply pending store migrations and report. */
import { loadSettings } from '../config/load.ts';
import { openStore } from '../store/database.ts';
import { applyMigrations } from '../store/migrations.ts';
import { configOption, parse } from './args.ts';
import { storeOptions } from './store-access.ts';

export async function migrateCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, configOption);
  const store = openStore({ ...storeOptions(loadSettings({ path: values.config })), migrate: false });
  try {
    const before = store.migrationStatus();
    const after = applyMigrations(store.sqlite);
    process.stdout.write(
      `${store.path}: ${after.applied - before.applied} migration(s) applied, ${after.applied} of ${after.known} in place\n`,
    );
    return 0;
  } finally {
    store.close();
  }
}
