/**
 * The receiver's write, as the writer-thread benchmark runs it on either
 * thread: the dedup read, the delivery, its job, the job's id on the
 * delivery — the statements of `WebhookIntake`'s write (webhook-intake.ts),
 * through the real repositories, without the job runner's take.
 */
import type { Repos } from '../src/store/repos.ts';

export interface IntakeArgs {
  connector: string;
  dedupKey: string;
  threadId: string;
  body: string;
  now: number;
}

export async function intakeWrite(tx: Repos, a: IntakeArgs): Promise<number> {
  const eventAt = new Date(a.now).toISOString();
  const original = await tx.deliveries.originalOf(a.connector, eventAt, a.dedupKey);
  const base = {
    connector: a.connector,
    eventType: 'message.created',
    dedupKey: a.dedupKey,
    eventAt,
    threadId: a.threadId,
    chatId: 'chat-1',
    body: a.body,
    bodyTruncated: false,
    headers: { 'content-type': 'application/json' },
    verification: 'valid',
    error: null,
  };
  if (original !== undefined) return tx.deliveries.insert({ ...base, duplicateOf: original, status: 'duplicate' }, a.now);
  const id = await tx.deliveries.insert({ ...base, duplicateOf: null, status: 'accepted' }, a.now);
  const payload = JSON.stringify({ connector: a.connector, delivery: id, thread: a.threadId });
  const job = await tx.jobs.insert(
    { kind: 'connector.deliver', payload, orderKey: `deliver:${a.connector}:${a.threadId}`, maxAttempts: 10, retryForMs: 86_400_000, giveUpAt: a.now + 86_400_000, runAt: a.now },
    a.now,
  );
  await tx.deliveries.setJob(id, job);
  return id;
}
