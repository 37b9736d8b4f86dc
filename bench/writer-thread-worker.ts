/**
 * The writer-thread benchmark's worker: it owns the store (the group
 * committer, its connection and its fsync) and runs the intake writes the
 * main thread posts, each batch's writes grouped as the store groups them;
 * it answers every batch with the delivery ids (or the errors), in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../src/store/database.ts';
import { intakeWrite, type IntakeArgs } from './intake-write.ts';

const store = openStore({ path: (workerData as { path: string }).path, synchronous: 'full', migrate: false });
const port = parentPort as NonNullable<typeof parentPort>;
port.on('message', (msg: { seq: number; writes: IntakeArgs[] } | 'close') => {
  if (msg === 'close') {
    void store.close().then(() => port.close());
    return;
  }
  void Promise.allSettled(msg.writes.map((a) => store.write((tx) => intakeWrite(tx, a)))).then((results) =>
    port.postMessage({ seq: msg.seq, results: results.map((r) => (r.status === 'fulfilled' ? { id: r.value } : { error: String(r.reason) })) }),
  );
});
port.postMessage('ready');
