/**
 * `threadgate sandbox [--host H] [--port P] [--organization-id U] [--room-id U] [--token T]`:
 * the platform emulator on its own. Prints one `sandbox_ready` JSON line with
 * what a client needs (the token is the sandbox's own, not a secret).
 */
import { createLogger } from '../log/logger.ts';
import { startSandbox } from '../sandbox/index.ts';
import { parse, portOption } from './args.ts';
import { ListenError, UsageError } from './errors.ts';
import { commandHelp } from './help.ts';
import { stopOnSignals } from './signals.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const OPTIONS = {
  host: { type: 'string', default: '127.0.0.1' },
  port: { type: 'string', short: 'p', default: '8090' },
  'organization-id': { type: 'string' },
  'room-id': { type: 'string' },
  token: { type: 'string' },
  'log-level': { type: 'string', default: 'info' },
} as const;

export const HELP = [
  commandHelp({
    name: 'sandbox',
    summary: 'run the platform emulator on its own; prints one sandbox_ready JSON line with its URL, ids and token',
    usage: ['sandbox [--host H] [--port P] [--organization-id U] [--room-id U] [--token T] [--log-level info|silent]'],
    options: OPTIONS,
    describe: {
      host: { value: 'H', text: 'the address to listen on' },
      port: { value: 'P', text: 'the port to listen on (0: any free one)' },
      'organization-id': { value: 'U', text: 'the id (a UUID) of its organization', default: 'a random one, printed' },
      'room-id': { value: 'U', text: 'the id (a UUID) of its room', default: 'a random one, printed' },
      token: { value: 'T', text: 'the API token of its agent', default: '40 random hex characters, printed' },
      'log-level': { value: 'L', text: 'info, or silent for no log lines' },
    },
    examples: ['sandbox --port 8090', 'sandbox --port 0 --log-level silent'],
  }),
];

export async function sandboxCommand(argv: string[]): Promise<number> {
  // The running gateway's embedded sandbox, played from the command line (sandbox-control-command.ts).
  if (argv[0] === 'chats') return (await import('./sandbox-control-command.ts')).sandboxChatsCommand(argv.slice(1));
  if (argv[0] === 'reply') return (await import('./sandbox-control-command.ts')).sandboxReplyCommand(argv.slice(1));
  const { values, positionals } = parse(argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`sandbox takes no arguments but its options, or the subcommand chats or reply; got "${positionals.join(' ')}"`);
  for (const key of ['organization-id', 'room-id'] as const) {
    const v = values[key];
    if (v !== undefined && !UUID.test(v)) throw new UsageError(`--${key} must be a UUID, got "${v}"`);
  }
  const logger = createLogger(values['log-level'] === 'silent' ? 'silent' : 'info').child({ room: 'sandbox' });
  const sandbox = await startSandbox({
    host: values.host,
    port: portOption(values.port, '--port') ?? 8090,
    organizationId: values['organization-id'],
    roomId: values['room-id'],
    token: values.token,
    logger,
  }).catch((err: unknown) => {
    throw ListenError.from(err) ?? err;
  });
  // Before the ready line: a SIGTERM sent as soon as it is read finds its handler.
  stopOnSignals(logger, () => sandbox.close(), 10_000);
  process.stdout.write(
    `${JSON.stringify({
      event: 'sandbox_ready',
      url: sandbox.url,
      organization_id: sandbox.organizationId,
      room_id: sandbox.roomId,
      token: sandbox.token,
      token_type: sandbox.tokenType,
    })}\n`,
  );
  return new Promise<number>(() => {}); // runs until a signal
}
