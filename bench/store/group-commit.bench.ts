/**
 * Group commit against one commit per write, side by side on one real SQLite
 * file (synchronous=full): 50 concurrent writers, each inserting a ~1 KB job
 * row and waiting for its commit before the next, through `store.write`;
 * then the same rows one at a time (each write its own commit).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobQueue } from '../../src/jobs/queue.ts';
import { openStore } from '../../src/store/database.ts';
import type { Repos } from '../../src/store/repos.ts';
import type { Measured } from '../support/measure.ts';

const WRITERS = 50;
const GROUPED_WRITES = 50_000;
const SINGLE_WRITES = 5_000;

export async function benchGroupCommit(): Promise<Measured[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-group-'));
  let groups = 0;
  const store = openStore({ path: join(dir, 'bench.db'), synchronous: 'full', groupCommit: { onCommit: () => void (groups += 1) } });
  try {
    const queue = new JobQueue(store);
    const payload = { connector: 'mail', body: 'x'.repeat(900) };
    const enqueue = (tx: Repos) => queue.enqueue(tx, { kind: 'bench', payload });

    let started = 0;
    let t = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (started < GROUPED_WRITES) {
          started += 1;
          await store.write(enqueue);
        }
      }),
    );
    const grouped = Number(process.hrtime.bigint() - t) / 1e9;

    t = process.hrtime.bigint();
    for (let i = 0; i < SINGLE_WRITES; i++) await store.write(enqueue);
    const single = Number(process.hrtime.bigint() - t) / 1e9;
    const row = (name: string, ops: number, seconds: number): Measured => ({ name, ops, seconds, opsPerSecond: ops / seconds, microsPerOp: (seconds * 1e6) / ops });
    return [
      row(`group commit, ${WRITERS} writers (${(GROUPED_WRITES / groups).toFixed(0)} a group)`, GROUPED_WRITES, grouped),
      row('one commit per write', SINGLE_WRITES, single),
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
