/** Named writes for the writer-thread tests (test/store/writer-thread.test.ts), loaded by the thread by URL. */
import type { Repos } from '../../src/store/repos.ts';
import type { WriteCommand } from '../../src/store/store.ts';

const job = (kind: string, now: number) => ({ kind, payload: '{}', orderKey: null, maxAttempts: 3, retryForMs: 60_000, giveUpAt: now + 60_000, runAt: now });

class CodedError extends Error {
  readonly code = 'TG_TEST_REFUSED';
}

export const INSERT_JOB: WriteCommand<{ kind: string }, number> = {
  name: 'test.insertJob',
  run: (tx: Repos, a) => tx.jobs.insert(job(a.kind, Date.now()), Date.now()),
};

/** Inserts a job, then throws: nothing of it may stay. */
export const INSERT_THEN_FAIL: WriteCommand<{ kind: string }, number> = {
  name: 'test.insertThenFail',
  run: async (tx: Repos, a) => {
    await tx.jobs.insert(job(a.kind, Date.now()), Date.now());
    throw new CodedError(`${a.kind} refused`);
  },
};

/** Ends the thread it runs in (a worker's `process.exit` ends that thread only). */
export const END_THREAD: WriteCommand<Record<string, never>, never> = {
  name: 'test.endThread',
  run: () => process.exit(3),
};

export const WRITE_COMMANDS = Object.fromEntries([INSERT_JOB, INSERT_THEN_FAIL, END_THREAD].map((c) => [c.name, c]));
