/**
 * How far the delivery of one agent reply got, kept in the connector's state
 * so that a retry (the job run again: `attempt` > 1) resumes instead of
 * posting again —
 *
 *   reply:<YYYY-MM-DD of the message>:<platform message id>
 *     { parts: ["1718000042.000200", null, …],      the ts of each text part posted, by its place
 *       files: [{ id: "F…", title }, { notSent }],  each agent file uploaded (not yet shared) or why it is not sent
 *       shared: true,                               the uploaded files were shared in the thread
 *       done: true, externalId }                    all of it is in Slack
 *
 * written after each step Slack confirmed. A step Slack took whose answer
 * was lost (a timeout, a crash before the write) is found again in the
 * thread by the reply-writer before it is done twice. The first attempt of a
 * delivery starts afresh (an operator's replay sends the reply again).
 * Records are deleted after `KEEP_DAYS` by the poller (`pruneReplyProgress`),
 * long after the job queue stops retrying.
 */
import { createHash } from 'node:crypto';
import type { ConnectorState, MessageCreatedEvent } from '../../src/connector/api.ts';
import { webhookEventKey } from '../../src/platform/schemas/unified-messaging.ts';

export const KEEP_DAYS = 14;
const PREFIX = 'reply:';

export type FileStep = { id: string; title: string; bytes?: number } | { notSent: string };

export interface ReplyProgress {
  parts: (string | null)[];
  /** Each agent file's step, by its place among the attachments; null: to be uploaded (again). */
  files?: (FileStep | null)[];
  shared: boolean;
  done: boolean;
  externalId?: string;
}

export function progressKey(event: MessageCreatedEvent): string {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(event.message.created_at)?.[0] ?? '0000-00-00';
  return `${PREFIX}${day}:${event.message.id}`;
}

/** The reference each posted part carries in its metadata: from the platform's own id of the message. */
export function replyRef(event: MessageCreatedEvent): string {
  return createHash('sha256').update(webhookEventKey(event)).digest('hex').slice(0, 24);
}

export function freshProgress(): ReplyProgress {
  return { parts: [], shared: false, done: false };
}

export async function loadProgress(state: ConnectorState, key: string, attempt: number): Promise<ReplyProgress> {
  if (attempt <= 1) return freshProgress();
  return (await state.get<ReplyProgress>(key)) ?? freshProgress();
}

/** Deletes records of replies made more than `KEEP_DAYS` before `nowMs`; resolves how many. */
export async function pruneReplyProgress(state: ConnectorState, nowMs: number): Promise<number> {
  const before = new Date(nowMs - KEEP_DAYS * 86_400_000).toISOString().slice(0, 10);
  let pruned = 0;
  for (const key of await state.keys(PREFIX, 500)) {
    if (key.slice(PREFIX.length, PREFIX.length + 10) >= before) break;
    await state.delete(key);
    pruned += 1;
  }
  return pruned;
}
