/**
 * `threadgate config check [--config PATH]`: check the settings and every
 * connector's own keys in one pass (src/config/checked-settings.ts), print
 * each problem with its path (a YAML syntax error with its line and column)
 * and exit 1, or print a summary and exit 0.
 */
import { loadCheckedSettings } from '../config/checked-settings.ts';
import { ConfigInvalidError, formatProblem } from '../config/errors.ts';
import { configOption, parse, subcommandError } from './args.ts';
import { storeLocation } from './store-access.ts';
import { UsageError } from './errors.ts';

export async function configCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, configOption);
  if (positionals[0] !== 'check' || positionals.length > 1) {
    const usage = 'usage: threadgate config check [--config PATH]';
    if (positionals[0] !== 'check') throw subcommandError('config', ['check'], positionals[0], usage);
    throw new UsageError(`config check takes no arguments, got "${positionals.slice(1).join(' ')}"`, { usage });
  }
  try {
    const loaded = await loadCheckedSettings({ path: values.config });
    const { settings, file } = loaded;
    const platform = settings.platform.url ?? 'embedded sandbox';
    process.stdout.write(
      `${file ?? '(no file: defaults)'}: ok — platform ${platform}, ` +
        `${settings.connectors.length} connector(s), store ${storeLocation(loaded)}\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigInvalidError)) throw err;
    process.stderr.write(`${err.source}: ${err.problems.length} problem(s)\n`);
    for (const p of err.problems) process.stderr.write(`  ${formatProblem(p)}\n`);
    return 1;
  }
}
