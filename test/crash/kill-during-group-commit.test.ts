/**
 * SIGKILL while a group commit is being collected and committed. A gateway
 * child takes distinct signed platform webhooks on many connections at once,
 * so its store commits them in groups of tens to hundreds; it is killed after
 * a different number of answers in each round, with requests in flight. After
 * every kill the store file itself is read (not through the gateway's code):
 * every webhook answered 2xx is stored as accepted with its delivery job, and
 * nothing is half-written — no accepted delivery without its job, no job
 * without its delivery. After the last round a gateway on the same file
 * delivers every stored webhook to its connector.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { stringify } from 'yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { signWebhook, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../../src/platform/signature.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { startCli, type LongRunning } from '../support/cli.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { freePort } from '../support/ports.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const NOOP_CONNECTOR = join(import.meta.dirname, '../../bench/support/noop-connector.ts');
const IN_FLIGHT = 96;
/** Answers a round waits for before its kill: different moments of the group cycle. */
const KILL_AFTER = [150, 700, 1_300, 2_200] as const;

interface Round {
  answered: number[];
  /** Requests sent but not answered when the kill was sent. */
  inFlightAtKill: number;
}

function deliveredCount(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`select count(*) as n from deliveries where status = 'delivered'`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** What the file holds, read straight from it. */
function inspect(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const accepted = new Map<number, number | null>();
    const delivered = new Set<number>();
    for (const r of db.prepare(`select id, job_id, status from deliveries where status in ('accepted', 'delivered')`).all() as { id: number; job_id: number | null; status: string }[]) {
      accepted.set(r.id, r.job_id);
      if (r.status === 'delivered') delivered.add(r.id);
    }
    const jobs = new Map<number, number>();
    for (const r of db.prepare(`select id, payload from jobs where kind = 'connector.deliver'`).all() as { id: number; payload: string }[]) {
      jobs.set(r.id, (JSON.parse(r.payload) as { delivery: number }).delivery);
    }
    return { accepted, delivered, jobs };
  } finally {
    db.close();
  }
}

describe('SIGKILL during a group commit', () => {
  it('answers 2xx only for webhooks stored whole with their job, and leaves nothing half-written', { timeout: 180_000 }, async () => {
    const sandbox = await startTestSandbox();
    const dir = tempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const config = join(dir, 'threadgate.yaml');
    const storeFile = join(dir, 'crash.db');
    writeFileSync(
      config,
      stringify({
        platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
        server: { port, public_url: url, shutdown_timeout_ms: 2_000 },
        store: { path: storeFile },
        log: { level: 'warn' },
        jobs: { lease_seconds: 2 },
        connectors: [{ name: 'bench', type: 'noop', module: NOOP_CONNECTOR, room_id: sandbox.roomId }],
      }),
    );
    let gateway: LongRunning | undefined;
    onTestFinished(async () => {
      if (gateway && gateway.child.exitCode === null) {
        gateway.child.kill('SIGKILL');
        await gateway.exited;
      }
    });
    const start = async () => {
      gateway = startCli(['serve', '--config', config]);
      await until(async () => {
        try {
          const res = await fetch(`${url}/readyz`);
          return res.status === 200;
        } catch {
          return false;
        }
      }, 20_000, 'the gateway to be ready');
    };

    await start();
    const registration = (() => {
      const db = new Database(storeFile, { readonly: true });
      try {
        return db.prepare(`select config_id, secret from channel_registrations where connector = 'bench'`).get() as { config_id: string; secret: string };
      } finally {
        db.close();
      }
    })();
    expect(registration.secret).toBeTruthy();

    const body = () =>
      JSON.stringify(
        messageCreatedEnvelope({ threadId: `crash-${randomUUID().slice(0, 4)}`, roomId: sandbox.roomId, configId: registration.config_id, messagingChannel: 'noop' }),
      );
    const acked = new Set<number>();
    const rounds: Round[] = [];

    for (const killAfter of KILL_AFTER) {
      if (rounds.length > 0) await start();
      const pool = new Pool(url, { connections: IN_FLIGHT, pipelining: 1 });
      const round: Round = { answered: [], inFlightAtKill: 0 };
      let inFlight = 0;
      let killing = false;
      let killed = false;
      const send = async (): Promise<void> => {
        while (!killed) {
          const raw = body();
          const timestamp = Math.floor(Date.now() / 1000);
          inFlight += 1;
          try {
            const res = await pool.request({
              method: 'POST',
              path: '/webhooks/bench',
              headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signWebhook(registration.secret, raw, timestamp), [TIMESTAMP_HEADER]: String(timestamp) },
              body: raw,
            });
            const text = await res.body.text();
            if (res.statusCode === 200) round.answered.push((JSON.parse(text) as { delivery_id: number }).delivery_id);
            else if (!killed) throw new Error(`answered ${res.statusCode}: ${text}`);
          } catch (err) {
            if (!killed) throw err;
            return; // the gateway died under this request: it may or may not be stored, it was not acknowledged
          } finally {
            inFlight -= 1;
          }
          if (round.answered.length >= killAfter && !killing) {
            // A few milliseconds later: somewhere in the collect → BEGIN … COMMIT → answer cycle.
            killing = true;
            setTimeout(() => {
              killed = true;
              round.inFlightAtKill = inFlight;
              gateway!.child.kill('SIGKILL');
            }, Math.random() * 6);
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, send));
      await gateway!.exited;
      await pool.destroy();
      rounds.push(round);

      const stored = inspect(storeFile);
      for (const id of round.answered) acked.add(id);
      // Every acknowledged webhook is stored, with its job.
      const missing = [...acked].filter((id) => !stored.accepted.has(id));
      expect(missing, 'acknowledged but not stored').toEqual([]);
      // Nothing half-written: each delivery still to deliver has its job, each job its delivery, and a delivered one's
      // job went with the outcome, in its commit (docs/decisions/done-deliveries-forgotten.md).
      const waiting = [...stored.accepted].filter(([id]) => !stored.delivered.has(id));
      const withoutJob = waiting.filter(([, job]) => job === null || stored.jobs.get(job) === undefined).map(([id]) => id);
      expect(withoutJob, 'deliveries without their job').toEqual([]);
      const jobLeft = [...stored.delivered].filter((id) => stored.jobs.get(stored.accepted.get(id) ?? -1) !== undefined);
      expect(jobLeft, 'delivered, their job left').toEqual([]);
      const orphanJobs = [...stored.jobs].filter(([, delivery]) => !stored.accepted.has(delivery)).map(([job]) => job);
      expect(orphanJobs, 'jobs without their delivery').toEqual([]);
    }

    // The kills fell among requests in flight, i.e. while groups were being collected or committed.
    expect(rounds.every((r) => r.inFlightAtKill > 0)).toBe(true);
    const final = inspect(storeFile);
    console.log(
      `group-commit crash test: ${rounds.length} SIGKILLs with ${rounds.map((r) => r.inFlightAtKill).join('/')} requests in flight; ` +
        `${acked.size} acknowledged, ${final.accepted.size} stored (${final.accepted.size - acked.size} stored unanswered)`,
    );

    // A gateway on the same file delivers everything stored.
    await start();
    await until(() => deliveredCount(storeFile) === final.accepted.size, 60_000, 'every stored webhook delivered');
  });
});
