/**
 * The webhook receiver's logic on a PostgreSQL store, without HTTP: a store,
 * a registered connector, a running job runner whose deliveries never end
 * (their jobs stay taken) and the intake, with a signed sender. For tests of
 * what a group of webhooks costs and leaves stored (test/store/pg-round-trips.test.ts).
 *
 * Run as a script (test/crash/pg-kill-between-group-statements.test.ts), it
 * takes the webhooks named on its command line in one event-loop turn (one
 * group, one batch) with one more write of their batch, which SIGKILLs this
 * process once `statements` of its own statements were answered: the group's
 * transaction is cut between its statements. Arguments: the database URL,
 * the statements, the message ids (JSON); the webhook of message i is of
 * thread `t-<i>`.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { DELIVER_JOB, WebhookIntake } from '../../src/bridge/webhook-intake.ts';
import { DEFAULT_RETRY_BUDGET } from '../../src/jobs/retry-budget.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { signedHeaders } from '../../src/platform/signature.ts';
import { openPostgresStore } from '../../src/store/postgres/pg-store.ts';
import type { Store } from '../../src/store/store.ts';
import { messageCreatedEnvelope } from './events.ts';

const SECRET = 'pg-intake-secret';
const CONFIG = '0b1c6a52-7a0e-4d55-9a53-3f1f4c1d2e01';
const ROOM = '6f0d2c1e-93b4-4c1a-8d2e-5b7a9c0e1f02';
/** The events' own time: with their id, what makes two webhooks one event. */
const SENT_AT = '2026-11-29T08:00:00.000Z';

export interface PgIntake {
  store: Store;
  /** Accepts one webhook of `thread` (message `messageId`, a new one by default). */
  send(thread: string, messageId?: string): Promise<unknown>;
  close(): Promise<void>;
}

export async function startPgIntake(url: string): Promise<PgIntake> {
  const store = await openPostgresStore({ url, poolSize: 5 });
  await store.write((tx) => tx.registrations.save({ connector: 'desk', configId: CONFIG, name: 'Desk', roomId: ROOM, replyWebhookUrl: 'http://x/y', secret: SECRET }, 1));
  const logger = pino({ level: 'silent' });
  const queue = new JobQueue(store);
  const runner = new JobRunner(queue, { logger, pollMs: 60_000 });
  runner.register(DELIVER_JOB, { handler: () => new Promise(() => {}), takeOnEnqueue: true, concurrency: 100 });
  runner.start();
  const intake = new WebhookIntake({
    store,
    queue,
    isConnector: (name) => name === 'desk',
    signature: { payload: 'timestamp.body', toleranceSeconds: 300 },
    budget: DEFAULT_RETRY_BUDGET,
    logger,
  });
  const send = (thread: string, messageId = randomUUID()) => {
    const body = JSON.stringify(messageCreatedEnvelope({ threadId: thread, messageId, configId: CONFIG, roomId: ROOM, createdAt: SENT_AT }));
    return intake.accept('desk', Buffer.from(body), signedHeaders(SECRET, body));
  };
  await send('warm-up'); // the secret is read and cached, the runner's first claim is done
  await new Promise((r) => setTimeout(r, 200));
  return {
    store,
    send,
    close: async () => {
      await runner.stop(100);
      await store.close();
    },
  };
}

if (import.meta.main) {
  const [url, statements, ids] = process.argv.slice(2) as [string, string, string];
  const intake = await startPgIntake(url);
  (JSON.parse(ids) as string[]).forEach((id, i) => void intake.send(`t-${i}`, id).catch(() => {}));
  void intake.store.write(
    async (tx) => {
      for (let i = 0; i < Number(statements); i++) await tx.sql.get('select 1');
      process.kill(process.pid, 'SIGKILL');
    },
    { batch: 'webhook' },
  );
}
