/**
 * What happens to a `message` Slack sends (an event on the events route) or
 * the catch-up reads back from history, after message-verdict.ts decided:
 *
 *   ignored                        nothing (logged at debug)
 *   recorded as skipped            ctx.skip with the verdict's code and reason
 *   posted, seen before            nothing: its `seen:` entry says it was submitted (a Slack retry, a catch-up),
 *                                    or its inbox entry says it waits
 *   posted, text only, thread free submitted now, before Slack is answered (one commit; users.info bounded),
 *                                    after the thread's earlier such submits; its inbox waits for it
 *   posted, with files, or its     written to the inbox (inbox.ts), then Slack is answered; the downloads and
 *     thread has inbox entries       the submit follow, in the thread's order
 *
 * The catch-up always goes through the inbox. Either way Slack is answered
 * 2xx only after the message is durably stored (submitted, or in the inbox),
 * and a message submitted twice (a retry racing its first delivery) is one
 * message: `submit` dedups on `<channel>/<ts>`.
 */
import type { ConnectorContext } from '../../src/connector/api.ts';
import type { CustomerMessages } from './customer-messages.ts';
import type { Inbox } from './inbox.ts';
import { verdictOf, type Self } from './message-verdict.ts';
import { SlackMessage } from './slack-schemas.ts';

export type Outcome = 'ignored' | 'skipped' | 'submitted' | 'duplicate' | 'queued';

export interface IntakeCounts {
  events: number;
  retries: number;
  submitted: number;
  duplicates: number;
  queued: number;
  skipped: number;
  ignored: number;
}

export class EventIntake {
  readonly #ctx: ConnectorContext;
  readonly #channels: ReadonlySet<string>;
  readonly #self: () => Self;
  readonly #messages: CustomerMessages;
  readonly #inbox: Inbox;
  readonly counts: IntakeCounts = { events: 0, retries: 0, submitted: 0, duplicates: 0, queued: 0, skipped: 0, ignored: 0 };
  /** The app's id, as the envelopes name it: the gateway's own messages carry it. */
  appId: string | undefined;

  constructor(deps: { ctx: ConnectorContext; channels: readonly string[]; self: () => Self; messages: CustomerMessages; inbox: Inbox }) {
    this.#ctx = deps.ctx;
    this.#channels = new Set(deps.channels);
    this.#self = deps.self;
    this.#messages = deps.messages;
    this.#inbox = deps.inbox;
  }

  /** An `event_callback` envelope's event; resolves once what it asks is durably done. */
  async receive(event: { type: string }, options: { appId?: string | undefined; retryNum?: number; signal: AbortSignal }): Promise<Outcome> {
    this.counts.events += 1;
    if (options.retryNum !== undefined) this.counts.retries += 1;
    if (options.appId) this.appId = options.appId;
    if (event.type !== 'message') return this.#count('ignored');
    const parsed = SlackMessage.safeParse(event);
    if (!parsed.success || !parsed.data.channel) {
      this.#ctx.logger.info({ issues: parsed.success ? 'no channel' : parsed.error.issues.length }, 'slack message event of an unexpected shape ignored');
      return this.#count('ignored');
    }
    return this.handle(parsed.data, parsed.data.channel, { source: 'event', signal: options.signal });
  }

  /** One message of `channel`, from an event or from history. */
  async handle(message: SlackMessage, channel: string, options: { source: 'event' | 'catch-up'; signal: AbortSignal }): Promise<Outcome> {
    const verdict = verdictOf(message, channel, this.#channels, { ...this.#self(), appId: this.appId });
    if (verdict.kind === 'ignore') {
      this.#ctx.logger.debug({ channel, ts: message.ts, why: verdict.why }, 'slack message ignored');
      return this.#count('ignored');
    }
    if (verdict.kind === 'skip') {
      const { duplicate } = await this.#ctx.skip(verdict.record);
      if (!duplicate) this.#ctx.logger.info({ message_id: verdict.record.messageId, code: verdict.record.code }, `slack message skipped: ${verdict.record.reason}`);
      return this.#count(duplicate ? 'duplicate' : 'skipped');
    }
    const post = verdict.post;
    if (await this.#messages.seen(post)) return this.#count('duplicate');
    if (options.source === 'catch-up' || post.files.length > 0 || (await this.#inbox.holdsThreadOf(post))) {
      return this.#count((await this.#inbox.add(post)) ? 'queued' : 'duplicate');
    }
    const { duplicate } = await this.#inbox.direct(post, () => this.#messages.submit(post, { signal: options.signal, lastTry: true, quick: true }));
    return this.#count(duplicate ? 'duplicate' : 'submitted');
  }

  #count(outcome: Outcome): Outcome {
    const key = outcome === 'duplicate' ? 'duplicates' : outcome;
    this.counts[key] += 1;
    return outcome;
  }
}
