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
import { createLogger } from '../log/logger.ts';
import { PlatformHttpClient } from '../platform/http-client.ts';
import { createUnifiedMessagingClient } from '../platform/unified-messaging-client.ts';
import { configOption, parse, subcommandError } from './args.ts';
import { UsageError } from './errors.ts';
import { parseDuration } from './duration.ts';
import { commandHelp, configHelp, usageLines } from './help.ts';
import { secretSetCommand } from './secret-set-command.ts';
import { openSettingsStore } from './store-access.ts';

/** What `secrets rotate` parses; `secrets set|unset` parse `configOption` (secret-set-command.ts). */
export const OPTIONS = { ...configOption, grace: { type: 'string' } } as const;

export const HELP = [
  commandHelp({
    name: 'secrets rotate',
    summary: "a new webhook secret for the connector's channel configuration; the old one stays valid for the grace period",
    usage: ['secrets rotate <connector> [--grace 24h] [--config PATH]'],
    options: OPTIONS,
    describe: {
      ...configHelp,
      grace: { value: 'D', text: 'how long the previous secret is still accepted (90s, 15m, 2h, 7d)', default: `${DEFAULT_ROTATION_GRACE_MS / 3_600_000}h` },
    },
    examples: ['secrets rotate helpdesk --grace 2h'],
  }),
  commandHelp({
    name: 'secrets set',
    summary: "a connector credential from standard input, sealed in the store, used by every replica at its next attempt",
    usage: ['secrets set <connector> <key> [--config PATH] < value'],
    notes: ['The value is read from standard input, never from the command line; store.encryption_key must be set.'],
    options: configOption,
    describe: configHelp,
    examples: ['secrets set support-mail imap.auth.refresh_token < refresh-token.txt'],
  }),
  commandHelp({
    name: 'secrets unset',
    summary: "removes a credential set with secrets set: the settings' value is used again",
    usage: ['secrets unset <connector> <key> [--config PATH]'],
    options: configOption,
    describe: configHelp,
    examples: ['secrets unset support-mail imap.auth.refresh_token'],
  }),
];

const USAGE = usageLines(HELP);

export async function secretsCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'set' || argv[0] === 'unset') return secretSetCommand(argv[0], argv.slice(1));
  const { values, positionals } = parse(argv, OPTIONS);
  const [verb, connector, ...rest] = positionals;
  if (verb === 'set' || verb === 'unset') throw new UsageError(`put ${verb} first: threadgate secrets ${verb} <connector> <key> [--config PATH]`);
  if (verb !== 'rotate') throw subcommandError('secrets', ['rotate', 'set', 'unset'], verb, USAGE);
  if (connector === undefined) throw new UsageError("secrets rotate takes the connector's name", { usage: USAGE });
  if (rest.length > 0) throw new UsageError(`secrets rotate takes one connector, got also "${rest.join(' ')}"`, { usage: USAGE });
  const graceMs = values.grace === undefined ? DEFAULT_ROTATION_GRACE_MS : parseDuration(values.grace, '--grace');

  const loaded = loadSettings({ path: values.config });
  const { settings } = loaded;
  if (settings.platform.url === undefined) {
    throw new UsageError('the embedded sandbox lives inside `serve`; rotate secrets against a configured platform.url');
  }
  const logger = createLogger('warn');
  const store = await openSettingsStore(loaded, { mustExist: true });
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
