/**
 * `threadgate serve [--config PATH] [--host H] [--port P]`: run the gateway
 * until a signal; SIGHUP reloads the settings. A start that fails (the store
 * cannot be opened, the port is taken) is logged and printed as one line with
 * its code, without a stack.
 */
import { loadSettings } from '../config/load.ts';
import { ThreadgateError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { configOption, parse, portOption } from './args.ts';
import { ListenError } from './errors.ts';
import { startGateway } from './gateway.ts';
import { reloadOnHangup, stopOnSignals } from './signals.ts';

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    ...configOption,
    host: { type: 'string' },
    port: { type: 'string', short: 'p' },
  });
  const loaded = loadSettings({ path: values.config });
  const logger = createLogger(loaded.settings.log.level);
  const gateway = await startGateway(loaded, logger, {
    host: values.host,
    port: portOption(values.port, '--port'),
  }).catch((err: unknown) => {
    const failure = ListenError.from(err) ?? err;
    if (failure instanceof ThreadgateError) logger.fatal({ code: failure.code }, failure.message);
    throw failure;
  });
  stopOnSignals(logger, () => gateway.close(), loaded.settings.server.shutdown_timeout_ms);
  reloadOnHangup(logger, () => gateway.reload());
  return new Promise<number>(() => {}); // runs until a signal
}
