/**
 * `threadgate migrate [--config PATH]`: apply pending store migrations and report.
 * `threadgate migrate --from sqlite:PATH [--config PATH]`: copy that SQLite
 * store into the configured (empty) PostgreSQL store, in one transaction
 * (src/store/postgres/import-sqlite.ts).
 */
import { resolve } from 'node:path';
import { loadSettings, type LoadedSettings } from '../config/load.ts';
import { configOption, parse } from './args.ts';
import { UsageError } from './errors.ts';
import { commandHelp, configHelp, usageLines } from './help.ts';
import { openSettingsStore, STORE_ONLY, storeLocation } from './store-access.ts';

const SOURCE_SCHEME = 'sqlite:';

export const OPTIONS = { ...configOption, from: { type: 'string' } } as const;

export const HELP = [
  commandHelp({
    name: 'migrate',
    summary: 'apply pending store migrations; --from: copy a SQLite store into the configured, empty PostgreSQL one',
    usage: ['migrate [--config PATH]', 'migrate --from sqlite:PATH [--config PATH]'],
    options: OPTIONS,
    describe: {
      ...configHelp,
      from: { value: 'sqlite:PATH', text: 'copy this SQLite store file into the PostgreSQL store of store.url (which must be empty), in one transaction' },
    },
    examples: ['migrate --config /etc/threadgate/threadgate.yaml', 'migrate --from sqlite:/data/threadgate.db --config threadgate.yaml'],
  }),
];

export async function migrateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`migrate takes no arguments, got "${positionals.join(' ')}"`, { usage: usageLines(HELP) });
  const loaded = loadSettings({ path: values.config, needs: STORE_ONLY });
  if (values.from !== undefined) return copyFrom(values.from, loaded);
  const store = await openSettingsStore(loaded, { migrate: false });
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

async function copyFrom(from: string, loaded: LoadedSettings): Promise<number> {
  if (!from.startsWith(SOURCE_SCHEME) || from.length === SOURCE_SCHEME.length) {
    throw new UsageError(`--from must be ${SOURCE_SCHEME}PATH (a SQLite store file), got "${from}"`);
  }
  const { url, ssl } = loaded.settings.store;
  if (url === undefined) {
    throw new UsageError(
      '--from copies into the configured PostgreSQL store, and these settings have none: set store.url ' +
        '(or THREADGATE_STORE_URL) to the new, empty database',
    );
  }
  const path = resolve(from.slice(SOURCE_SCHEME.length));
  // Loaded only here: neither a SQLite deployment nor a plain `migrate` loads the copy's code.
  const { importSqliteStore } = await import('../store/postgres/import-sqlite.ts');
  const counts = await importSqliteStore({ from: path, to: { url, ...(ssl !== undefined ? { ssl } : {}) } });
  const width = Math.max(...counts.map((c) => c.table.length));
  for (const { table, rows } of counts) process.stdout.write(`${table.padEnd(width)}  ${rows}\n`);
  const total = counts.reduce((sum, c) => sum + c.rows, 0);
  process.stdout.write(`copied ${total} row(s) from ${path} into ${storeLocation(loaded)} in one transaction\n`);
  return 0;
}
