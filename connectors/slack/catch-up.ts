/**
 * Messages Slack never delivered, read back from history. Slack retries an
 * event three times (at once, after a minute, after five) and then drops
 * it, so a gateway that was down or unreachable for longer loses what was
 * written meanwhile; a round of the poller, every `catch_up_seconds`, reads
 * each channel's history since its cursor (`catch_up:<channel>`, a ts) —
 *
 *   conversations.history  oldest = cursor − catch_up_hours, all pages:
 *                            top-level messages after the cursor, and the roots whose latest_reply is after it
 *   conversations.replies  for each such root, oldest = cursor, all pages: the replies after the cursor
 *
 * — and hands every message to the intake as an event would be (ignored,
 * skipped, or to the inbox unless its `seen:` entry says it was posted). The
 * cursor then moves to Slack's clock at the round's start (its `Date`
 * header, never the gateway's clock) less a minute of overlap; the first
 * round only sets it (from now on: history before the first start is not
 * imported). A channel that fails (not_in_channel, 429) keeps its cursor and
 * is read again next round; a 429 makes the poller wait its Retry-After.
 *
 * Replies in a thread whose first message is older than `catch_up_hours`
 * are not caught up.
 */
import type { ConnectorState, Logger } from '../../src/connector/api.ts';
import type { EventIntake } from './event-intake.ts';
import type { SlackApi } from './slack-api.ts';
import { SlackRateLimitedError } from './slack-errors.ts';
import { tsAfter, tsOfSeconds, tsSeconds } from './slack-ids.ts';
import { MessagePage, type SlackMessage } from './slack-schemas.ts';

/** The cursor trails Slack's clock by this much: a message stored late is read again. */
export const OVERLAP_SECONDS = 60;
const PAGE = 200;
const MAX_PAGES = 50;

export interface CatchUpStatus {
  rounds: number;
  lastRoundAt: string | null;
  lastError: string | null;
  caughtUp: number;
}

export class CatchUp {
  readonly #api: SlackApi;
  readonly #intake: EventIntake;
  readonly #channels: readonly string[];
  readonly #lookbackSeconds: number;
  readonly #logger: Logger;
  readonly status: CatchUpStatus = { rounds: 0, lastRoundAt: null, lastError: null, caughtUp: 0 };

  constructor(deps: { api: SlackApi; intake: EventIntake; channels: readonly string[]; lookbackHours: number; logger: Logger }) {
    this.#api = deps.api;
    this.#intake = deps.intake;
    this.#channels = deps.channels;
    this.#lookbackSeconds = deps.lookbackHours * 3_600;
    this.#logger = deps.logger;
  }

  /** One round over every channel; resolves how long to wait at least before the next (a Retry-After), if Slack asked. */
  async round(state: ConnectorState, signal: AbortSignal): Promise<number | undefined> {
    const errors: string[] = [];
    let waitMs: number | undefined;
    for (const channel of this.#channels) {
      try {
        await this.#channel(channel, state, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        errors.push(`${channel}: ${(err as Error).message}`);
        this.#logger.warn({ channel, error: (err as Error).message }, 'slack catch-up of a channel failed; read again next round');
        if (err instanceof SlackRateLimitedError) {
          waitMs = err.retryAfterMs;
          break;
        }
      }
    }
    this.status.rounds += 1;
    this.status.lastRoundAt = new Date().toISOString();
    this.status.lastError = errors.length === 0 ? null : errors.join('; ');
    return waitMs;
  }

  async #channel(channel: string, state: ConnectorState, signal: AbortSignal): Promise<void> {
    const key = `catch_up:${channel}`;
    const cursor = await state.get<string>(key);
    if (cursor === undefined) {
      // The first round: the bot's access is checked, and Slack's clock is the cursor (nothing older is imported).
      await this.#api.call('conversations.history', { channel, limit: 1 }, MessagePage, { signal });
      await state.set(key, tsOfSeconds(this.#slackSeconds()));
      return;
    }
    const startedSeconds = this.#slackSeconds();
    const roots = await this.#pages('conversations.history', { channel, oldest: tsOfSeconds(tsSeconds(cursor) - this.#lookbackSeconds) }, signal);
    for (const message of roots) {
      if (tsAfter(message.ts, cursor)) await this.#take(message, channel, signal);
    }
    for (const root of roots) {
      if (!root.latest_reply || !(root.reply_count ?? 0) || !tsAfter(root.latest_reply, cursor)) continue;
      const replies = await this.#pages('conversations.replies', { channel, ts: root.ts, oldest: cursor }, signal);
      for (const reply of replies) {
        if (reply.ts !== root.ts && tsAfter(reply.ts, cursor)) await this.#take({ ...reply, thread_ts: reply.thread_ts ?? root.ts }, channel, signal);
      }
    }
    await state.set(key, tsOfSeconds(Math.max(tsSeconds(cursor), startedSeconds - OVERLAP_SECONDS)));
  }

  async #take(message: SlackMessage, channel: string, signal: AbortSignal): Promise<void> {
    const outcome = await this.#intake.handle(message, channel, { source: 'catch-up', signal });
    if (outcome === 'queued') {
      this.status.caughtUp += 1;
      this.#logger.info({ channel, ts: message.ts }, 'slack message caught up from history (Slack had not delivered it)');
    }
  }

  /** Every page of a listing, oldest message first. */
  async #pages(method: 'conversations.history' | 'conversations.replies', args: Record<string, string>, signal: AbortSignal): Promise<SlackMessage[]> {
    const all: SlackMessage[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.#api.call(method, { ...args, limit: PAGE, ...(cursor ? { cursor } : {}) }, MessagePage, { signal });
      all.push(...answer.messages);
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return all.sort((a, b) => (tsAfter(a.ts, b.ts) ? 1 : tsAfter(b.ts, a.ts) ? -1 : 0));
  }

  /** Slack's clock in seconds, from the latest answer's `Date` header. */
  #slackSeconds(): number {
    const now = this.#api.clockNow();
    if (now === undefined) throw new Error(`Slack at ${this.#api.host} answers without a Date header: its clock is unknown (is a proxy removing it?)`);
    return now / 1000;
  }
}
