/**
 * `threadgate config check [--config PATH]`: parse the settings and every
 * connector's own keys, print each problem with its path and exit 1, or print
 * a summary and exit 0.
 */
import { ConfigInvalidError, formatProblem } from '../config/errors.ts';
import { loadSettings } from '../config/load.ts';
import { assertNoEntryProblems, loadConnectors } from '../connector/registry.ts';
import { configOption, parse } from './args.ts';
import { storeLocation } from './store-access.ts';
import { UsageError } from './errors.ts';

export async function configCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, configOption);
  if (positionals[0] !== 'check' || positionals.length > 1) {
    throw new UsageError('usage: threadgate config check [--config PATH]');
  }
  try {
    const { settings, file, baseDir } = loadSettings({ path: values.config });
    const { problems } = await loadConnectors(settings.connectors, baseDir);
    assertNoEntryProblems(file ?? '(defaults)', problems);
    const platform = settings.platform.url ?? 'embedded sandbox';
    process.stdout.write(
      `${file ?? '(no file: defaults)'}: ok — platform ${platform}, ` +
        `${settings.connectors.length} connector(s), store ${storeLocation({ settings, file, baseDir })}\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigInvalidError)) throw err;
    process.stderr.write(`${err.source}: ${err.problems.length} problem(s)\n`);
    for (const p of err.problems) process.stderr.write(`  ${formatProblem(p)}\n`);
    return 1;
  }
}
