/**
 * `npm run bench:writer-thread`: should the SQLite writer live in a worker
 * thread? The receiver's write (intake-write.ts: dedup read, delivery, job,
 * the job's id on the delivery) through the real group committer at
 * `synchronous: full`, driven by 50 concurrent callers, each doing a
 * request's worth of other work on the main thread first (a busy loop of
 * BENCH_REQUEST_US µs, default 60: parsing, the signature, answering) —
 *   (a) the store on the main thread, as `threadgate serve` runs it;
 *   (b) the same store in a worker thread (writer-thread-worker.ts): the
 *       writes posted in batches (at the end of the turn, or as soon as
 *       BENCH_POST_EVERY, default 8, are waiting, so the worker starts while
 *       this thread goes on), answered with their ids.
 * Every answered write is checked in the file afterwards.
 * Prints writes/s, the main thread's CPU a write (`process.threadCpuUsage`)
 * and the process's (both threads, the fsyncs), side by side.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { openStore } from '../src/store/database.ts';
import { intakeWrite, type IntakeArgs } from './intake-write.ts';

const CALLERS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const REQUEST_US = Number(process.env.BENCH_REQUEST_US ?? 60);
const POST_EVERY = Number(process.env.BENCH_POST_EVERY ?? 8);
const BODY = JSON.stringify({ event_type: 'message.created', text: 'x'.repeat(700) });

type WriteFn = (a: IntakeArgs) => Promise<number>;

interface Row {
  name: string;
  writes: number;
  perSecond: number;
  mainMicros: number;
  processMicros: number;
}

function spin(us: number): void {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
}

async function drive(name: string, write: WriteFn): Promise<Row> {
  let n = 0;
  const stopAt = performance.now() + SECONDS * 1000;
  const main0 = process.threadCpuUsage();
  const proc0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      while (performance.now() < stopAt) {
        spin(REQUEST_US);
        const i = n++;
        await write({ connector: 'bench', dedupKey: `message.created:${c}:${i}`, threadId: `thread-${i % 500}`, body: BODY, now: Date.now() });
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const main = process.threadCpuUsage(main0);
  const proc = process.cpuUsage(proc0);
  return { name, writes: n, perSecond: n / seconds, mainMicros: (main.user + main.system) / n, processMicros: (proc.user + proc.system) / n };
}

async function onMainThread(path: string): Promise<Row> {
  const store = openStore({ path, synchronous: 'full' });
  try {
    return await drive('store on the main thread', (a) => store.write((tx) => intakeWrite(tx, a)));
  } finally {
    await store.close();
  }
}

async function inWorker(path: string): Promise<Row> {
  await openStore({ path, synchronous: 'full' }).close(); // migrated here; the worker opens it as it is
  const worker = new Worker(join(import.meta.dirname, 'writer-thread-worker.ts'), { workerData: { path } });
  await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  type Caller = { resolve: (id: number) => void; reject: (err: Error) => void };
  const waiting = new Map<number, Caller[]>();
  let batch: { args: IntakeArgs[]; done: Caller[] } | null = null;
  let seq = 0;
  worker.on('message', (msg: { seq: number; results: ({ id: number } | { error: string })[] }) => {
    const done = waiting.get(msg.seq) as Caller[];
    waiting.delete(msg.seq);
    msg.results.forEach((r, i) => ('id' in r ? done[i]?.resolve(r.id) : done[i]?.reject(new Error(r.error))));
  });
  const post = (): void => {
    const b = batch;
    if (b === null) return;
    batch = null;
    seq += 1;
    waiting.set(seq, b.done);
    worker.postMessage({ seq, writes: b.args });
  };
  const write: WriteFn = (a) =>
    new Promise((resolve, reject) => {
      if (batch === null) {
        batch = { args: [], done: [] };
        setImmediate(post);
      }
      batch.args.push(a);
      batch.done.push({ resolve, reject });
      // Posted before the turn ends once it holds POST_EVERY writes: the worker starts while this thread goes on.
      if (batch.args.length >= POST_EVERY) post();
    });
  try {
    return await drive('store in a worker thread', write);
  } finally {
    worker.postMessage('close');
    await new Promise((r) => worker.once('exit', r));
  }
}

/** Every answered write is in the file: its delivery, and its job named on it. */
function checkStored(file: string, writes: number): void {
  const db = new Database(file, { readonly: true });
  try {
    const { n } = db.prepare(`select count(*) as n from deliveries d join jobs j on j.id = d.job_id`).get() as { n: number };
    if (n !== writes) throw new Error(`${file}: ${n} deliveries with their jobs stored, ${writes} writes answered`);
  } finally {
    db.close();
  }
}

/** Both cases twice, interleaved; prints the table. */
export async function benchWriterThread(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-writer-'));
  try {
    console.log(`writer thread: ${CALLERS} callers, ${SECONDS} s a case, ${REQUEST_US} µs of other main-thread work a request, a batch posted every ${POST_EVERY} writes; synchronous: full\n`);
    console.log('| case | writes/s | main thread CPU µs/write | process CPU µs/write |\n|---|---:|---:|---:|');
    for (const [i, run] of [onMainThread, inWorker, onMainThread, inWorker].entries()) {
      const file = join(dir, `bench-${i}.db`);
      const r = await run(file);
      checkStored(file, r.writes);
      console.log(`| ${r.name} | ${Math.round(r.perSecond).toLocaleString('en-US')} | ${r.mainMicros.toFixed(1)} | ${r.processMicros.toFixed(1)} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchWriterThread();
