/** `threadgate migrate [--config PATH]`: apply pending store migrations and report. */
import { loadSettings } from '../config/load.ts';
import { configOption, parse } from './args.ts';
import { openSettingsStore } from './store-access.ts';

export async function migrateCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, configOption);
  const store = await openSettingsStore(loadSettings({ path: values.config }), { migrate: false });
  try {
    const before = await store.migrationStatus();
    const after = await store.migrate();
    process.stdout.write(
      `${store.location}: ${after.applied - before.applied} migration(s) applied, ${after.applied} of ${after.known} in place\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}
