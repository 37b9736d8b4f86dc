/**
 * `threadgate alerts test [--config PATH]`: sends one test alert (state
 * `test`) to every destination of the settings' `alerts:` section — the
 * signed webhook, the mail to `email_to` — at once, without the gateway, and
 * prints each answer. Exit 0 when every destination took it, 1
 * (TG_ALERT_TEST_FAILED) otherwise.
 */
import { hostname } from 'node:os';
import { testBody } from '../alerts/alert-body.ts';
import { destinationsOf } from '../alerts/destinations.ts';
import { loadSettings } from '../config/load.ts';
import { configOption, parse } from './args.ts';
import { AlertTestError } from './errors.ts';
import { commandHelp, configHelp } from './help.ts';

export const OPTIONS = { ...configOption } as const;

export const HELP = [
  commandHelp({
    name: 'alerts test',
    summary: 'send one test alert to every destination of the settings’ alerts: section and print the answers',
    usage: ['alerts test [--config PATH]'],
    options: OPTIONS,
    describe: { ...configHelp },
    examples: ['alerts test --config /etc/threadgate/threadgate.yaml'],
  }),
];

export async function alertsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'test') throw new AlertTestError(`expected \`alerts test\`${sub === undefined ? '' : `, got \`alerts ${sub}\``}`);
  const { values } = parse(rest, OPTIONS);
  const { settings } = loadSettings({ path: values.config, needs: ['alerts', 'server.public_url'] });
  if (settings.alerts === undefined) throw new AlertTestError('the settings have no alerts: section (webhook_url and webhook_secret, or email_to and smtp)');
  const destinations = destinationsOf(settings.alerts);
  const alert = testBody({ publicUrl: settings.server.public_url ?? '', replica: `${hostname()} (alerts test)` }, Date.now());
  let failed = 0;
  for (const destination of destinations) {
    try {
      const answer = await destination.send(alert);
      process.stdout.write(`${destination.name} ${destination.target}: ${answer}\n`);
    } catch (err) {
      failed += 1;
      process.stdout.write(`${destination.name} ${destination.target}: failed: ${(err as Error).message}\n`);
    } finally {
      destination.close();
    }
  }
  if (failed > 0) throw new AlertTestError(`${failed} of ${destinations.length} destinations did not take the test alert`);
  return 0;
}
