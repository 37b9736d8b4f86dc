/**
 * `threadgate health [--config PATH] [--host H] [--port P]`: asks the gateway
 * the settings describe for `/healthz`. Exit 0 when it answers 200, exit 1
 * (TG_HEALTH_FAILED) when nothing listens, it answers otherwise, or not within
 * the timeout. The container's HEALTHCHECK runs it, so the check follows
 * `server.port` from the same settings the gateway reads.
 */
import { loadSettings } from '../config/load.ts';
import { configOption, parse, portOption } from './args.ts';
import { HealthCheckError } from './errors.ts';
import { connectHost } from './gateway-address.ts';
import { commandHelp, configHelp } from './help.ts';

/** Below the container's HEALTHCHECK timeout, so an answer that never comes is reported, not killed. */
const TIMEOUT_MS = 2_500;

export const OPTIONS = { ...configOption, host: { type: 'string' }, port: { type: 'string', short: 'p' } } as const;

export const HELP = [
  commandHelp({
    name: 'health',
    summary: "ask the configured gateway's /healthz: exit 0 healthy, 1 not (the container health check)",
    usage: ['health [--config PATH] [--host H] [--port P]'],
    options: OPTIONS,
    describe: {
      ...configHelp,
      host: { value: 'H', text: 'the address of the gateway (0.0.0.0 and :: are asked on 127.0.0.1)', default: 'server.host of the settings' },
      port: { value: 'P', text: 'its port', default: 'server.port of the settings' },
    },
    examples: ['health --config /etc/threadgate/threadgate.yaml', 'health --port 8080'],
  }),
];

export async function healthCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS);
  // It asks the gateway's /healthz: of the settings it needs only where the gateway listens, unless given.
  const needs = [...(values.host === undefined ? ['server.host'] : []), ...(values.port === undefined ? ['server.port'] : [])];
  const { settings } = loadSettings({ path: values.config, needs });
  const port = portOption(values.port, '--port') ?? settings.server.port;
  if (port === 0) throw new HealthCheckError('server.port is 0 (the gateway picks a free port at start): give --port');
  const url = `http://${connectHost(values.host ?? settings.server.host)}:${port}/healthz`;
  let status: number;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    await res.body?.cancel();
    status = res.status;
  } catch (err) {
    throw new HealthCheckError(`${url}: ${failureReason(err)}`, { cause: err });
  }
  if (status !== 200) throw new HealthCheckError(`${url}: answered ${status}`);
  process.stdout.write(`${url}: ok\n`);
  return 0;
}

function failureReason(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS} ms`;
  const cause = err instanceof Error ? (err.cause as NodeJS.ErrnoException | undefined) : undefined;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused (is the gateway running on this port?)';
  return cause?.message ?? (err as Error).message;
}
