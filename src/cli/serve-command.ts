/** `threadgate serve [--config PATH] [--host H] [--port P]`: run the gateway until a signal; SIGHUP reloads the settings. */
import { loadSettings } from '../config/load.ts';
import { createLogger } from '../logger.ts';
import { configOption, parse, portOption } from './args.ts';
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
  });
  stopOnSignals(logger, () => gateway.close(), loaded.settings.server.shutdown_timeout_ms);
  reloadOnHangup(logger, () => gateway.reload());
  return new Promise<number>(() => {}); // runs until a signal
}
