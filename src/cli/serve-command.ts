/**
 * `threadgate serve [--config PATH] [--host H] [--port P] [--pretty]`: run the gateway
 * until a signal; SIGHUP reloads the settings. A start that fails (the store
 * cannot be opened, the port is taken) is logged and printed as one line with
 * its code, without a stack. `--pretty` writes the log as `log.format: pretty`.
 */
import { flushCompileCache } from 'node:module';
import { loadCheckedSettings } from '../config/checked-settings.ts';
import { ThreadgateError } from '../base/errors.ts';
import { createLogger } from '../log/logger.ts';
import { configOption, parse, portOption } from './args.ts';
import { ListenError } from './errors.ts';
import { commandHelp, configHelp } from './help.ts';
import { startGateway } from './gateway.ts';
import { reloadOnHangup, stopOnSignals } from './signals.ts';
import { watchConnectors } from './watch.ts';

export const OPTIONS = { ...configOption, host: { type: 'string' }, port: { type: 'string', short: 'p' }, pretty: { type: 'boolean' }, watch: { type: 'boolean' } } as const;

export const HELP = [
  commandHelp({
    name: 'serve',
    summary: 'run the gateway until a signal (no platform.url: against the embedded sandbox); SIGHUP reloads the settings',
    usage: ['serve [--config PATH] [--host H] [--port P] [--pretty] [--watch]'],
    options: OPTIONS,
    describe: {
      ...configHelp,
      host: { value: 'H', text: 'the address to listen on', default: 'server.host of the settings (127.0.0.1)' },
      port: { value: 'P', text: 'the port to listen on (0: any free one)', default: 'server.port of the settings (8080)' },
      pretty: { text: 'log one readable line per event instead of JSON', default: 'log.format of the settings (json)' },
      watch: { text: "while developing: make a connector of its own module anew when a code file of its folder or its settings entry changes" },
    },
    examples: ['serve --config /etc/threadgate/threadgate.yaml', 'serve --host 0.0.0.0 --port 8080', 'serve --config settings.example.yaml --watch'],
  }),
];

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  const loaded = await loadCheckedSettings({ path: values.config }); // every problem of the file and its connectors at once
  const logger = createLogger(loaded.settings.log.level, undefined, values.pretty ? 'pretty' : loaded.settings.log.format);
  const starting = startGateway(loaded, logger, {
    host: values.host,
    port: portOption(values.port, '--port'),
  }).catch((err: unknown) => {
    const failure = ListenError.from(err) ?? err;
    if (failure instanceof ThreadgateError) logger.fatal({ code: failure.code }, failure.message);
    throw failure;
  });
  // Taken before the start ends: a SIGTERM sent as soon as `gateway_ready` is read (or during the start) stops the
  // gateway gracefully once it has started, and a SIGHUP during the start reloads the settings then, instead of
  // either ending the process before its handler was there.
  stopOnSignals(logger, async () => (await starting).close(), loaded.settings.server.shutdown_timeout_ms);
  reloadOnHangup(logger, async () => (await starting).reload());
  const gateway = await starting;
  if (values.watch) watchConnectors(gateway, loaded, logger);
  // Everything the gateway loads at start is loaded: its compiled code is written to the compile cache now (main.ts),
  // not only at exit, which a container that is killed or replaced never reaches.
  flushCompileCache();
  return new Promise<number>(() => {}); // runs until a signal
}
