/**
 * Which parts of an agent's reply Telegram already has, kept in the
 * connector's state so that a reply goes out once even when `deliver` runs
 * again for the same event (a retry after a part failed, `attempt: 2` after
 * a crash, an operator's replay). Telegram has no idempotency key to lean
 * on, so the connector keeps its own record, one key per reply:
 *
 *   reply:<created_at of the message, ISO UTC>:<platform message id>
 *     → { notes: ["[attachment not sent: …]"], files: [{ index: 0, as: "photo" }], sent: [812, 813] }
 *
 * `notes` and `files` are the plan made on the first attempt (which of the
 * agent's files go, and how; which are named as not sent), so that every
 * later attempt cuts the same parts; `sent` holds the Telegram message id of
 * each part sent so far, in order (parts go one after the other). A part is
 * written down right after Telegram answered for it: only a crash between
 * the two can send that one part twice.
 *
 * Records live 30 days, longer than any retry (`jobs.retry_for`, 3 days by
 * default); the key starts with the reply's time, so the oldest come first
 * in the state's key order and are pruned at most once an hour, 100 a time.
 */
import type { ConnectorState, MessageCreatedEvent } from '../../src/connector/api.ts';

export const REPLY_PREFIX = 'reply:';
export const KEEP_RECORDS_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 100;

/** How one of the agent's files goes: as a photo (shown inline) or a document (a file with its name). */
export type FileWay = 'photo' | 'document';

export interface ReplyPlan {
  /** Lines under the text naming files that are not sent, and why. */
  notes: string[];
  /** The agent's files that are sent, by their index among the known attachments, after the text. */
  files: { index: number; as: FileWay }[];
}

export interface ReplyProgress extends ReplyPlan {
  /** Telegram's message id of each part sent, in the order of the parts. */
  sent: number[];
}

/** The state key of `event`'s reply: its time first (for pruning), then the platform's id of the message. */
export function progressKey(event: MessageCreatedEvent): string {
  const at = new Date(event.message.created_at);
  const time = Number.isNaN(at.getTime()) ? event.message.created_at : at.toISOString();
  return `${REPLY_PREFIX}${time}:${event.message.id}`;
}

function isProgress(value: unknown): value is ReplyProgress {
  const v = value as Partial<ReplyProgress> | null;
  return v !== null && typeof v === 'object' && Array.isArray(v.notes) && Array.isArray(v.files) && Array.isArray(v.sent);
}

export class ReplyLedger {
  readonly #state: ConnectorState;
  readonly #now: () => number;
  #prunedAt = 0;

  constructor(state: ConnectorState, now: () => number = Date.now) {
    this.#state = state;
    this.#now = now;
  }

  /** The progress recorded for `key`, if any (a record of another shape counts as none). */
  async get(key: string): Promise<ReplyProgress | undefined> {
    const value = await this.#state.get(key);
    return isProgress(value) ? value : undefined;
  }

  async save(key: string, progress: ReplyProgress): Promise<void> {
    await this.#state.set(key, progress);
  }

  /** Deletes records older than 30 days (by the time in their key), at most once an hour. */
  async prune(): Promise<number> {
    const now = this.#now();
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return 0;
    this.#prunedAt = now;
    const horizon = new Date(now - KEEP_RECORDS_MS).toISOString();
    let deleted = 0;
    for (const key of await this.#state.keys(REPLY_PREFIX, PRUNE_BATCH)) {
      // ISO UTC times sort as text: the first key not older than the horizon ends the old ones.
      if (key.slice(REPLY_PREFIX.length, REPLY_PREFIX.length + horizon.length) >= horizon) break;
      await this.#state.delete(key);
      deleted += 1;
    }
    return deleted;
  }
}
