/**
 * close() must release everything the sandbox holds: a process that closed
 * its sandbox with a webhook retry pending and a webhook request in flight
 * exits on its own, promptly.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./fixtures/close-then-exit.ts', import.meta.url));
/** Far below the pending retry (≥ 120 s) and the in-flight request's timeout (60 s). */
const EXIT_WITHIN_MS = 8000;

it('a process exits by itself after close(), with a retry pending and a request in flight', () => {
  const started = Date.now();
  const child = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', timeout: EXIT_WITHIN_MS });
  expect(child.stderr).toBe('');
  expect(child.stdout).toBe('closed\n');
  expect(child.signal).toBeNull(); // not killed by the timeout
  expect(child.status).toBe(0);
  expect(Date.now() - started).toBeLessThan(EXIT_WITHIN_MS);
});
