/**
 * Graceful stop on SIGTERM/SIGINT: run `stop` once, bounded by a timeout,
 * then exit 0 (1 if stopping failed or timed out). A second signal exits at
 * once. SIGHUP reloads the settings (`reload.ts`) and keeps running.
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
