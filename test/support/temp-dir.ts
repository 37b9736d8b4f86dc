/**
 * A fresh temp folder per test, removed after it (even when the test fails). A process the test started may still
 * be writing in it as it goes (a gateway closing its store): the removal tries again then (ENOTEMPTY, EBUSY), for up
 * to about 5 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

export function tempDir(prefix = 'threadgate-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 9, retryDelay: 100 }));
  return dir;
}
