/**
 * The wait of a poll or reconnect loop: resolves after `ms`, or at once when
 * `signal` aborts (already aborted: at once), never rejects, leaves no timer
 * or listener behind. Imports nothing of ours, so every room may use it;
 * connectors get it from `src/connector/api.ts`.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
