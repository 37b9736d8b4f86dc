/**
 * `npm run bench`: every benchmark, with the machine it ran on. The write
 * path's (issue "durable write path"): the store's micro-benchmarks (its hot
 * reads prepared as the gateway does and as written, and
 * the writer on the main thread against a worker thread), the
 * receiver against a bare Fastify route (50 connections, `full` and `normal`,
 * and latency at a steady 1,000 req/s), the drain of 20,000 webhooks through
 * the webhook connector, the connector's intake against a bare route, and an
 * e-mail backlog against imapflow + mailparser alone; then the receiver on
 * PostgreSQL with one and two replicas beside SQLite (issue "PostgreSQL
 * store"). The proxy, the live e-mail round trip and the PostgreSQL driver
 * comparison have their own scripts (bench:proxy, bench:email, bench:pg-driver),
 * and so has `serve`'s start-up, spawn to ready, with and without the compile
 * cache (bench:start).
 */
import { cpus, totalmem } from 'node:os';
import { benchConnectorIntake, reportIntake } from './connector-intake.bench.ts';
import { benchDrain, reportDrain } from './drain.bench.ts';
import { reportBacklog } from './email-backlog-report.ts';
import { benchEmailBacklog } from './email-backlog.bench.ts';
import { benchGroupCommit } from './group-commit.bench.ts';
import { benchJobs } from './jobs.bench.ts';
import { report } from './measure.ts';
import { benchReceiver } from './receiver.bench.ts';
import { benchReceiverReplicas } from './receiver-replicas.bench.ts';
import { benchSignature } from './signature.bench.ts';
import { benchStatements } from './statements.bench.ts';
import { benchWriterThread } from './writer-thread.bench.ts';

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const section = (title: string) => console.log(`\n## ${title}\n`);
console.log(`node ${process.version}, ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB`);
section('signatures, job queue, group commit');
report(benchSignature());
report(await benchJobs());
report(await benchGroupCommit());
report(await benchStatements());
await benchWriterThread();
section('receiver');
const receiverOk = await benchReceiver();
section('drain');
reportDrain(await benchDrain());
section('webhook connector intake');
reportIntake(await benchConnectorIntake());
section('e-mail backlog');
reportBacklog(await benchEmailBacklog());
section('receiver on PostgreSQL replicas');
await benchReceiverReplicas();
if (!receiverOk) process.exitCode = 1;
