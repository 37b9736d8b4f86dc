/**
 * The receiver's floor with its HTTP on threads (`BENCH_CASES=floor-threads`):
 * the floor of receiver-floor.ts, but the requests are read, their signatures
 * checked and their bodies parsed by `BENCH_FLOOR_THREADS` worker threads
 * (default 2) listening on one port (`reusePort`), while the main thread only
 * writes: each thread's asks of a turn come in one message, are stored in the
 * floor's groups (one `BEGIN IMMEDIATE … COMMIT` and an fdatasync of the log)
 * and marked delivered, and the answers of a group go back to each thread in
 * one message. It asks whether a second core for the HTTP lifts a receiver
 * with the gateway's durability past what one thread reaches.
 */
import { Worker } from 'node:worker_threads';
import { freePort } from '../test/support/ports.ts';
import type { FloorAnswer, FloorAsk } from './receiver-floor-worker.ts';
import { openFloorStore, type ReceiverFloor } from './receiver-floor.ts';

const THREADS = Number(process.env.BENCH_FLOOR_THREADS ?? 2);

/** A thread serving the floor's HTTP, resolved once it listens. */
async function httpThread(kind: 'platform' | 'standard', secret: string, port: number): Promise<Worker> {
  const worker = new Worker(new URL('./receiver-floor-worker.ts', import.meta.url), { workerData: { kind, secret, port } });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => resolve());
  });
  return worker;
}

export async function startThreadedReceiverFloor(dir: string, kind: 'platform' | 'standard', secret: string, path: string): Promise<ReceiverFloor> {
  const store = openFloorStore(dir);
  const port = await freePort();
  const workers = await Promise.all(Array.from({ length: THREADS }, () => httpThread(kind, secret, port)));
  for (const worker of workers) {
    let answers: FloorAnswer[] = [];
    const send = () => {
      worker.postMessage(answers);
      answers = [];
    };
    worker.on('message', (asks: FloorAsk[]) => {
      for (const [n, eventId, threadId, body] of asks) {
        void store.store({ eventId, threadId, body }).then((id) => {
          // A group's answers settle in one run of microtasks: one message a group.
          if (answers.length === 0) queueMicrotask(send);
          answers.push([n, id]);
        });
      }
    });
  }
  return {
    url: `http://127.0.0.1:${port}${path}`,
    counts: store.counts,
    drained: store.drained,
    close: async () => {
      await Promise.all(workers.map((w) => w.terminate()));
      store.close();
    },
  };
}
