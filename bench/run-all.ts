/** `npm run bench`: every benchmark, with the machine it ran on. */
import { cpus, totalmem } from 'node:os';
import { benchGroupCommit } from './group-commit.bench.ts';
import { benchJobs } from './jobs.bench.ts';
import { report } from './measure.ts';
import { benchSignature } from './signature.bench.ts';

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(`node ${process.version}, ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB`);
report(benchSignature());
report(await benchJobs());
report(await benchGroupCommit());
