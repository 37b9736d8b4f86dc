/**
 * One HTTP thread of the threaded receiver floor (receiver-floor-threads.ts):
 * Fastify on the floor's port (`reusePort`, the kernel spreads connections
 * over the threads), the signature checked and the body parsed here, the
 * write asked of the main thread, which owns the store; each request answered
 * when the main thread says its group was committed and synced.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { floorApp, platformWebhooks, standardWebhooks } from './receiver-floor.ts';

export type FloorAsk = [n: number, eventId: string, threadId: string, body: string];
export type FloorAnswer = [n: number, id: number];

const { kind: kindName, secret, port } = workerData as { kind: 'platform' | 'standard'; secret: string; port: number };
const kind = kindName === 'platform' ? platformWebhooks(secret) : standardWebhooks(secret);
const toMain = parentPort as NonNullable<typeof parentPort>;

let next = 0;
const waiting = new Map<number, (id: number) => void>();
let asks: FloorAsk[] = [];
toMain.on('message', (answers: FloorAnswer[]) => {
  for (const [n, id] of answers) {
    waiting.get(n)?.(id);
    waiting.delete(n);
  }
});
// The turn's asks go to the main thread in one message, after the turn's I/O callbacks.
const post = () => {
  toMain.postMessage(asks);
  asks = [];
};

// The store is the main thread's: a row is asked for in the turn's message, its id comes back with its group's.
const app = floorApp(kind, (row) => {
  const n = next++;
  const stored = new Promise<number>((resolve) => waiting.set(n, resolve));
  if (asks.length === 0) setImmediate(post);
  asks.push([n, row.eventId, row.threadId, row.body]);
  return stored;
});
// Node's listen, as Fastify's options do not name `reusePort`.
await app.ready();
await new Promise<void>((resolve) => app.server.listen({ host: '127.0.0.1', port, reusePort: true }, resolve));
toMain.postMessage('ready');
