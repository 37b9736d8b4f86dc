/**
 * A job row as the store's tests insert it straight through `JobsRepo`: due
 * `now`, three attempts within a minute, an empty payload.
 */
import { DELIVER_JOB } from '../../src/bridge/webhook-intake.ts';
import type { NewJobRow } from '../../src/store/jobs-repo.ts';

export const jobRow = (orderKey: string | null, now: number, kind: string = DELIVER_JOB): NewJobRow => ({
  kind,
  payload: '{}',
  orderKey,
  maxAttempts: 3,
  retryForMs: 60_000,
  giveUpAt: now + 60_000,
  runAt: now,
});
