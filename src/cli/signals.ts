/**
 * Graceful stop on SIGTERM/SIGINT: run `stop` once, bounded by a timeout,
 * then exit 0 (1 if stopping failed or timed out). A second signal exits at
 * once. SIGHUP reloads the settings (`reload.ts`) and keeps running.
 *
 * Started by npm (`npx threadgate serve`, `npm exec`; npm sets npm_command),
 * the process stops the same way when the npm that started it is gone: npm
 * passes a SIGTERM to its child, but `npm exec` runs the command through
 * `sh -c`, and the shell dies of the signal without passing it on, leaving
 * the gateway behind with parent 1, still holding its port.
 */
import type { Logger } from '../log/logger.ts';

export function stopOnSignals(logger: Logger, stop: () => Promise<void>, timeoutMs: number): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: timeoutMs }, 'stop timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  if (process.env.npm_command !== undefined) stopWhenOrphaned(logger, () => onSignal('SIGTERM'));
}

/** How often a process started by npm looks whether its parent is still there. */
export const ORPHAN_CHECK_MS = 500;

/** Calls `stop` once the parent process is gone (the process was handed to another parent, pid 1 or a subreaper). */
function stopWhenOrphaned(logger: Logger, stop: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    logger.info({ parent_pid: parent, npm_command: process.env.npm_command }, 'the npm process that started threadgate is gone: stopping as on SIGTERM');
    stop();
  }, ORPHAN_CHECK_MS);
  timer.unref();
}

/**
 * Runs `reload` on every SIGHUP (it may wait, e.g. for the start to end); a failing reload is logged and the process
 * goes on.
 */
export function reloadOnHangup(logger: Logger, reload: () => unknown): void {
  process.on('SIGHUP', () => {
    logger.info({ signal: 'SIGHUP' }, 'reloading the settings');
    Promise.resolve()
      .then(reload)
      .catch((err: unknown) => logger.error({ err }, 'reloading the settings failed; nothing changed'));
  });
}

/**
 * Runs a command that goes on until stopped (`listen`, `--follow`): `run` gets a signal that aborts on SIGINT or
 * SIGTERM; its answer is the exit code (0 when stopped). The handlers are removed when it ends.
 */
export async function untilStopped(run: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await run(stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
