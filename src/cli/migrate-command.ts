/** `threadgate migrate [--config PATH]`: apply pending store migrations and report. */
import { resolve } from 'node:path';
import { loadSettings } from '../config/load.ts';
import { openStore } from '../store/database.ts';
import { applyMigrations } from '../store/migrations.ts';
import { configOption, parse } from './args.ts';

export async function migrateCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, configOption);
  const { settings, baseDir } = loadSettings({ path: values.config });
  const path = resolve(baseDir, settings.store.path);
  const store = openStore({ path, synchronous: settings.store.synchronous, migrate: false });
  try {
    const before = store.migrationStatus();
    const after = applyMigrations(store.sqlite);
    process.stdout.write(
      `${path}: ${after.applied - before.applied} migration(s) applied, ${after.applied} of ${after.known} in place\n`,
    );
    return 0;
  } finally {
    store.close();
  }
}
