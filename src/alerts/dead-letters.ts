/**
 * The dead letters since the last check, as alerts name them: the jobs that
 * deliver an agent event (`connector.deliver`) or post a connector's messages
 * (`platform.post_messages`, `platform.close_session`) dead-lettered after
 * the mark, each with what it was about, read from the delivery log.
 *
 * A dead job is found by its `finished_at` (when it was given up) and id, so a
 * job dead-lettered again after a retry by hand is found again. The mark is
 * kept with the gate's state; the first check of a store starts after the
 * newest dead job (older ones are not alerted).
 */
import { deadInboundOfJob, deadJobsSince, type DeadJobRow, type DeadMark } from '../store/health-queries.ts';
import type { Repos } from '../store/repos.ts';
import type { DeadLetter } from './alert-model.ts';

export const DELIVER_JOB = 'connector.deliver';
export const PLATFORM_JOBS = ['platform.post_messages', 'platform.close_session'] as const;
const KINDS = [DELIVER_JOB, ...PLATFORM_JOBS];
/** At most this many dead jobs are read per check (the rest the next). */
const PAGE = 200;

/** `TG_X: what happened` → its code and the rest; another text is all reason. */
export function splitError(error: string | null): { code: string | null; reason: string } {
  const text = error ?? 'no error was recorded';
  const match = /^(TG_[A-Z0-9_]+): ([\s\S]*)$/.exec(text);
  return match ? { code: match[1]!, reason: match[2]!.slice(0, 500) } : { code: null, reason: text.slice(0, 500) };
}

export async function deadLettersSince(read: Repos, mark: DeadMark, adminUrl: string): Promise<{ letters: DeadLetter[]; mark: DeadMark }> {
  const rows = await deadJobsSince(read.sql, mark, KINDS, PAGE);
  const letters: DeadLetter[] = [];
  for (const row of rows) {
    const letter = await describe(read, row, adminUrl);
    if (letter) letters.push(letter);
  }
  const last = rows.at(-1);
  return { letters, mark: last ? { at: last.finishedAt, id: last.id } : mark };
}

async function describe(read: Repos, job: DeadJobRow, adminUrl: string): Promise<DeadLetter | undefined> {
  let payload: { connector?: unknown; delivery?: unknown };
  try {
    payload = JSON.parse(job.payload) as typeof payload;
  } catch {
    return undefined;
  }
  const connector = typeof payload.connector === 'string' ? payload.connector : '';
  const { code, reason } = splitError(job.lastError);
  if (job.kind === DELIVER_JOB) {
    const id = Number(payload.delivery);
    const delivery = Number.isSafeInteger(id) ? await read.deliveries.byId(id) : undefined;
    const event = delivery?.eventType ?? 'an event';
    const summary = delivery?.threadId ? `${event} for thread ${delivery.threadId}` : event;
    return { kind: 'delivery_dead', connector, id, code, reason, summary, at: job.finishedAt, link: `${adminUrl}#delivery/${id}` };
  }
  const dead = await deadInboundOfJob(read.sql, job.id);
  const first = dead.ids[0] ?? 0;
  const thread = dead.threadKey ? ` (thread ${dead.threadKey})` : '';
  const what = job.kind === PLATFORM_JOBS[1] ? `closing the session${thread}` : `${dead.ids.length === 1 ? 'a message' : `${dead.ids.length} messages`}${dead.sender ? ` from ${dead.sender}` : ''}${thread}`;
  const link = first > 0 ? `${adminUrl}#inbound/${first}` : `${adminUrl}#inbound`;
  return { kind: 'message_dead', connector, id: first, code, reason, summary: what, at: job.finishedAt, link };
}
