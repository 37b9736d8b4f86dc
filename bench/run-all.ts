/**
 * `npm run bench`: the write path's benchmarks in one process, after a line
 * naming the machine (docs/benchmarks.md): the micro-benchmarks (signatures,
 * bench/receiver/signature.bench.ts; the job queue, group commit and the hot
 * reads as prepared and as written, bench/store/), the receiver against a bare
 * Fastify route and its floors, the drain of 20,000 webhooks, the webhook
 * connector's intake (bench/receiver/), the e-mail backlog against imapflow +
 * mailparser alone (bench/email/), the receiver on PostgreSQL with one and
 * two replicas beside SQLite and the reply latency across two replicas
 * (bench/replicas/), then the gateway's memory, idle and in a 256 MiB limit
 * (bench/footprint/). The proxy, the live e-mail
 * round trip, the PostgreSQL driver comparison and `serve`'s start-up have
 * their own scripts: bench:proxy, bench:email, bench:pg-driver, bench:start.
 */
import { cpus, totalmem } from 'node:os';
import { benchConnectorIntake, reportIntake } from './receiver/connector-intake.bench.ts';
import { benchDrain, reportDrain } from './receiver/drain.bench.ts';
import { reportBacklog } from './email/email-backlog-report.ts';
import { benchFootprint } from './footprint/footprint.bench.ts';
import { reportFootprint } from './footprint/footprint-report.ts';
import { benchEmailBacklog } from './email/email-backlog.bench.ts';
import { benchGroupCommit } from './store/group-commit.bench.ts';
import { benchJobs } from './store/jobs.bench.ts';
import { report } from './support/measure.ts';
import { benchReceiver } from './receiver/receiver.bench.ts';
import { benchReceiverReplicas } from './replicas/receiver-replicas.bench.ts';
import { benchReplyLatency } from './replicas/reply-latency.bench.ts';
import { benchSignature } from './receiver/signature.bench.ts';
import { benchStatements } from './store/statements.bench.ts';

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const section = (title: string) => console.log(`\n## ${title}\n`);
console.log(`node ${process.version}, ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB`);
section('signatures, job queue, group commit, statements');
report(benchSignature());
report(await benchJobs());
report(await benchGroupCommit());
report(await benchStatements());
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
section('reply latency across PostgreSQL replicas');
await benchReplyLatency();
section('footprint');
reportFootprint(await benchFootprint());
if (!receiverOk) process.exitCode = 1;
