/**
 * The help of `threadgate config check` (config-command.ts), which parses
 * `configOption` alone: kept here, beside the tables of the other commands'
 * own modules.
 */
import { configOption } from './args.ts';
import { commandHelp, configHelp } from './help.ts';

export const HELP = [
  commandHelp({
    name: 'config check',
    summary: "print every problem of the settings and of each connector's own keys, with its path; exit 1 if any",
    usage: ['config check [--config PATH]'],
    options: configOption,
    describe: configHelp,
    examples: ['config check --config /etc/threadgate/threadgate.yaml'],
  }),
];
