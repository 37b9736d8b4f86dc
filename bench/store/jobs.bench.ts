/** The durable job queue on a real SQLite file with synchronous=FULL and NORMAL. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/database.ts';
import { measureAsync, type Measured } from '../support/measure.ts';

export async function benchJobs(): Promise<Measured[]> {
  const rows: Measured[] = [];
  for (const synchronous of ['full', 'normal'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'tg-bench-'));
    const store = openStore({ path: join(dir, 'bench.db'), synchronous });
    const queue = new JobQueue(store);
    const payload = { connector: 'mail', message_id: '<abc@example.test>', thread_id: 't'.repeat(40) };
    rows.push(
      await measureAsync(`enqueue, one commit each (sync=${synchronous})`, 5_000, () =>
        store.write((tx) => queue.enqueue(tx, { kind: 'bench', payload })),
      ),
    );
    rows.push(
      await measureAsync(`claim 1 + complete (sync=${synchronous})`, 5_000, async () => {
        const [job] = await queue.claim('bench', 'w', 60_000, 1);
        if (job) await queue.completeWith(job.id, 'w');
      }),
    );
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
