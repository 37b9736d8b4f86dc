/** The durable job queue on a real SQLite file with synchronous=FULL and NORMAL. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobQueue } from '../src/jobs/queue.ts';
import { openStore } from '../src/store/database.ts';
import { measure, type Measured } from './measure.ts';

export function benchJobs(): Measured[] {
  const rows: Measured[] = [];
  for (const synchronous of ['full', 'normal'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'tg-bench-'));
    const store = openStore({ path: join(dir, 'bench.db'), synchronous });
    const queue = new JobQueue(store);
    const payload = { connector: 'mail', message_id: '<abc@example.test>', thread_id: 't'.repeat(40) };
    rows.push(
      measure(`enqueue, one transaction each (sync=${synchronous})`, 5_000, () =>
        store.transaction(() => queue.enqueue({ kind: 'bench', payload })),
      ),
    );
    rows.push(
      measure(`claim 1 + complete (sync=${synchronous})`, 5_000, () => {
        const [job] = queue.claim('bench', 'w', 60_000, 1);
        if (job) queue.complete(job.id, 'w');
      }),
    );
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
