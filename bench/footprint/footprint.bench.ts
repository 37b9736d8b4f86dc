/**
 * `npm run bench:footprint`: the gateway's memory, beside what bounds it.
 *   - Idle (idle-footprint.ts): `serve` with an e-mail connector (a real
 *     Dovecot mailbox, scripts/install-mail-servers) and an external platform
 *     (the sandbox in a process of its own), beside Node.js alone and beside
 *     the libraries `serve` imports, imported alone; all started together,
 *     read after the same idle time (BENCH_IDLE_SECONDS, 40: past the
 *     gateway's first idle platform probe), BENCH_ROUNDS rounds (3), medians.
 *     Then 200 mails arrive at that gateway; its RSS once they are posted and
 *     the idle time passed again.
 *   - Loaded (backlog-in-limit.ts): 10,000 waiting mails read by a gateway
 *     inside a 256 MiB memory limit (a cgroup made by the benchmark), beside
 *     imapflow + mailparser alone in the same limit.
 * Every process with the gateway's Node.js flags and environment
 * (BENCH_GATEWAY_NODE_ARGS adds flags, e.g. `--max-semi-space-size=16`).
 * BENCH_FOOTPRINT_PARTS=idle or =backlog runs one half. Root, for the cgroup.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import setupMailServers from '../../test/support/mail-global-setup.ts';
import type { MailServersInfo } from '../../test/support/mail-servers.ts';
import { startChildSandbox } from '../support/child-sandbox.ts';
import { backlogInLimit, type BacklogInLimit } from './backlog-in-limit.ts';
import { reportFootprint } from './footprint-report.ts';
import { idleRound, type IdleRound } from './idle-footprint.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 40);
const PARTS = (process.env.BENCH_FOOTPRINT_PARTS ?? 'idle,backlog').split(',');

export interface FootprintResult {
  idleSeconds: number;
  rounds: IdleRound[];
  backlog: BacklogInLimit | undefined;
}

export async function benchFootprint(): Promise<FootprintResult> {
  let info: MailServersInfo | undefined;
  const teardown = await setupMailServers({ provide: (_key: string, value: MailServersInfo) => void (info = value) } as unknown as TestProject);
  const dir = mkdtempSync(join(tmpdir(), 'tg-bench-footprint-'));
  const sandbox = await startChildSandbox();
  try {
    const mail = info as MailServersInfo;
    const rounds: IdleRound[] = [];
    if (PARTS.includes('idle')) for (let i = 0; i < ROUNDS; i++) rounds.push(await idleRound(dir, sandbox, mail, IDLE_SECONDS * 1000));
    const backlog = PARTS.includes('backlog') ? await backlogInLimit(dir, sandbox, mail) : undefined;
    return { idleSeconds: IDLE_SECONDS, rounds, backlog };
  } finally {
    await sandbox.close();
    await teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const result = await benchFootprint();
  reportFootprint(result);
  const b = result.backlog;
  if (b && (b.gateway.ended !== undefined || b.posted < b.mails)) process.exitCode = 1;
}
