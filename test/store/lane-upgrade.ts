/**
 * Platform jobs stored before jobs had lanes (SQLite up to migration 0014,
 * PostgreSQL up to 0008), and what the upgrade must make of them: each that
 * may still run (queued, running, or dead and so retried by hand) gets its
 * connector as its lane, so a lane's claim finds it; finished and other
 * kinds' jobs keep none.
 */
import { expect } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.ts';
import type { Store } from '../../src/store/store.ts';

const OLD_JOBS: [kind: string, status: string, connector: string][] = [
  ['platform.post_messages', 'queued', 'mail'],
  ['platform.post_messages', 'running', 'mail'],
  ['platform.close_session', 'queued', 'desk'],
  ['platform.post_messages', 'dead', 'tickets'],
  ['platform.post_messages', 'done', 'old'],
  ['connector.deliver', 'queued', 'mail'],
];

export async function storeOldJobs(store: Store): Promise<void> {
  await store.write(async (tx) => {
    for (const [kind, status, connector] of OLD_JOBS) {
      await tx.sql.run(
        `insert into jobs (kind, payload, status, max_attempts, run_at, created_at, updated_at, lease_owner, lease_until)
         values (?, ?, ?, 8, 0, 1000, 1000, ?, ?)`,
        [kind, JSON.stringify({ connector, thread: 1, messages: [1] }), status, status === 'running' ? 'gone.1' : null, status === 'running' ? 1 : null],
      );
    }
  });
}

/** Each job's lane, and the lanes the runner finds: the queued posts' and the one left running. */
export async function expectLanes(store: Store): Promise<void> {
  const rows = await store.read.sql.all<{ lane: string | null }>('select lane from jobs order by id');
  expect(rows.map((r) => r.lane)).toEqual(['mail', 'mail', 'desk', 'tickets', null, null]);
  const queue = new JobQueue(store);
  expect(await queue.lanes('platform.post_messages')).toEqual(['mail']);
  expect(await queue.lanes('platform.close_session')).toEqual(['desk']);
  // A lane's claim takes its queued job, and its running one whose lease ran out.
  const claimed = await store.write((tx) => queue.claimIn(tx, 'platform.post_messages', 'me.1', 30_000, 5, true, 'mail'));
  expect(claimed.map((j) => j.payload)).toEqual([
    { connector: 'mail', thread: 1, messages: [1] },
    { connector: 'mail', thread: 1, messages: [1] },
  ]);
}
