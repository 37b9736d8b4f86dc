/**
 * `threadgate secrets rotate <connector> [--grace 24h] [--config PATH]`: a new
 * webhook secret for the connector's channel configuration. The new secret is
 * stored first with the old one kept valid for the grace period, then PATCHed
 * to the platform; a running `serve` reads both from the store on every
 * webhook, so nothing is refused while the platform switches over.
 * `secrets set` / `secrets unset` (secret-set-command.ts) replace a
 * connector's credential at run time.
 */
import { Registrar, DEFAULT_ROTATION_GRACE_MS } from '../bridge/registrar.ts';
import { loadSettings } from '../config/load.ts';
import { createLogger } from '../logger.ts';
import { PlatformHttpClient } from '../platform/http-client.ts';
import { createUnifiedMessagingClient } from '../platform/unified-messaging-client.ts';
import { configOption, parse } from './args.ts';
import { UsageError } from './errors.ts';
import { parseDuration } from './duration.ts';
import { SET_USAGE, secretSetCommand } from './secret-set-command.ts';
import { openSettingsStore } from './store-access.ts';

const USAGE = `usage: threadgate secrets rotate <connector> [--grace 24h] [--config PATH]\n       ${SET_USAGE.replace(/^usage: /, '').replace('; ', '\n       ')}`;

export async function secretsCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'set' || argv[0] === 'unset') return secretSetCommand(argv[0], argv.slice(1));
  const { values, positionals } = parse(argv, { ...configOption, grace: { type: 'string' } });
  const [verb, connector, ...rest] = positionals;
  if (verb !== 'rotate' || connector === undefined || rest.length > 0) throw new UsageError(USAGE);
  const graceMs = values.grace === undefined ? DEFAULT_ROTATION_GRACE_MS : parseDuration(values.grace, '--grace');

  const loaded = loadSettings({ path: values.config });
  const { settings } = loaded;
  if (settings.platform.url === undefined) {
    throw new UsageError('the embedded sandbox lives inside `serve`; rotate secrets against a configured platform.url');
  }
  const logger = createLogger('warn');
  const store = await openSettingsStore(loaded);
  const http = new PlatformHttpClient({
    baseUrl: settings.platform.url,
    token: settings.platform.token ?? '',
    tokenType: settings.platform.token_type,
    timeoutMs: settings.platform.timeout_ms,
  });
  try {
    if (!(await store.read.registrations.get(connector))) throw new UsageError(`connector ${connector} has no channel configuration in ${store.location} (has serve run?)`);
    const client = createUnifiedMessagingClient({ http, organizationId: settings.platform.organization_id ?? '' });
    const row = await new Registrar({ client, store, logger }).rotate(connector, graceMs);
    const until = new Date(row.previousSecretExpiresAt ?? Date.now()).toISOString();
    process.stdout.write(`${connector}: new webhook secret sent to configuration ${row.configId}; the previous one is accepted until ${until}\n`);
    return 0;
  } finally {
    await http.close();
    await store.close();
  }
}
