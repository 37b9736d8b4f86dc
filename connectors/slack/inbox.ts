/**
 * Messages taken from Slack but not yet submitted: a message with files
 * (whose downloads may take longer than the 3 s Slack waits for an answer),
 * every later message of a thread that has one waiting (so a thread stays in
 * order), and what the catch-up finds. Each is written to the connector's
 * state first —
 *
 *   inbox:<channel>:<root ts>:<ts>   {post, received_at, tries}
 *
 * — and only then is Slack answered 200: a crash after that loses nothing.
 * A thread's entries are submitted oldest first (keys sort as their ts), each
 * deleted once `submit` resolved, and after the thread's text-only messages
 * this process was submitting at once when they were written (`direct`). A failure (a download Slack answered 429 or
 * 5xx, the store) keeps the entry and tries it again after 2 s, 10 s, 30 s and
 * 2 min; the fifth try lists a file that still fails as not kept and posts
 * the message. A message the bridge refuses (TG_SUBMIT_INVALID) is recorded
 * as skipped (TG_SLACK_MESSAGE_UNHANDLED). Entries the replica that wrote
 * them did not finish (it stopped or died) are taken up by the poller's
 * `sweep` after 30 s; a replica taking one that another is still working on
 * costs a duplicate download at worst, never a duplicate post.
 */
import { SubmitInvalidError, type ConnectorContext, type Logger } from '../../src/connector/api.ts';
import type { CustomerMessages } from './customer-messages.ts';
import type { CustomerPost } from './message-verdict.ts';
import { messageIdOf } from './slack-ids.ts';

const RETRY_MS = [2_000, 10_000, 30_000, 120_000];
export const MAX_TRIES = RETRY_MS.length + 1;
/** An entry this old that no drain here holds is taken up by the sweep. */
export const SWEEP_AGE_MS = 30_000;

interface Entry {
  post: CustomerPost;
  received_at: number;
  tries: number;
}

const threadPrefix = (channel: string, rootTs: string) => `inbox:${channel}:${rootTs}:`;

export class Inbox {
  readonly #ctx: ConnectorContext;
  readonly #messages: CustomerMessages;
  readonly #logger: Logger;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #stop = new AbortController();
  /** Text-only messages of a thread with nothing waiting, being submitted here at once (`direct`), by thread. */
  readonly #direct = new Map<string, Promise<unknown>>();
  /** Messages submitted from the inbox, for health. */
  submitted = 0;

  constructor(ctx: ConnectorContext, messages: CustomerMessages) {
    this.#ctx = ctx;
    this.#messages = messages;
    this.#logger = ctx.logger;
  }

  /** Whether the message's thread has entries waiting (a later message must wait behind them). */
  async holdsThreadOf(post: Pick<CustomerPost, 'channel' | 'rootTs'>): Promise<boolean> {
    return (await this.#ctx.state.keys(threadPrefix(post.channel, post.rootTs), 1)).length > 0;
  }

  /**
   * Runs the submit of a text-only message of a thread with nothing waiting (Slack waits for it) after the thread's
   * earlier such submits here; the thread's drain waits for it too. Its users.info look-ups take time, and a reply
   * with a file that arrived just after it (to the inbox) must not be posted first.
   */
  direct<T>(post: Pick<CustomerPost, 'channel' | 'rootTs'>, submit: () => Promise<T>): Promise<T> {
    const prefix = threadPrefix(post.channel, post.rootTs);
    const run = (this.#direct.get(prefix) ?? Promise.resolve()).catch(() => {}).then(submit);
    this.#direct.set(prefix, run);
    void run.catch(() => {}).finally(() => {
      if (this.#direct.get(prefix) === run) this.#direct.delete(prefix);
    });
    return run;
  }

  /** Writes the message durably (unless it waits already: false), then starts its thread's drain; resolves after the write. */
  async add(post: CustomerPost): Promise<boolean> {
    const prefix = threadPrefix(post.channel, post.rootTs);
    const key = `${prefix}${post.ts}`;
    const waiting = (await this.#ctx.state.get(key)) !== undefined;
    if (!waiting) await this.#ctx.state.set(key, { post, received_at: Date.now(), tries: 0 } satisfies Entry);
    this.#kick(prefix);
    return !waiting;
  }

  /** The poller's round: starts the drain of every thread with entries no drain here holds, once old enough. */
  async sweep(): Promise<number> {
    const keys = await this.#ctx.state.keys('inbox:', 500);
    const prefixes = new Set(keys.map((key) => key.slice(0, key.lastIndexOf(':') + 1)));
    let kicked = 0;
    for (const prefix of prefixes) {
      if (this.#running.has(prefix) || this.#timers.has(prefix)) continue;
      const [first] = await this.#ctx.state.keys(prefix, 1);
      const entry = first === undefined ? undefined : await this.#ctx.state.get<Entry>(first);
      if (entry === undefined || Date.now() - entry.received_at < SWEEP_AGE_MS) continue;
      this.#kick(prefix);
      kicked += 1;
    }
    return kicked;
  }

  /** Threads being drained or waiting for a retry here. */
  get busy(): number {
    return new Set([...this.#running.keys(), ...this.#timers.keys()]).size;
  }

  /** Ends the drains (their entries stay for the next start) and the retry timers. */
  async stop(): Promise<void> {
    this.#stop.abort();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    await Promise.allSettled([...this.#running.values()]);
  }

  #kick(prefix: string): void {
    // A thread waiting out a failure's backoff is drained when its timer fires, not sooner.
    if (this.#stop.signal.aborted || this.#timers.has(prefix)) return;
    if (this.#running.has(prefix)) {
      this.#again.add(prefix);
      return;
    }
    const run = this.#drain(prefix)
      .catch((err: unknown) => this.#logger.error({ err }, 'slack inbox drain failed'))
      .finally(() => {
        this.#running.delete(prefix);
        if (this.#again.delete(prefix)) this.#kick(prefix);
      });
    this.#running.set(prefix, run);
  }

  async #drain(prefix: string): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      const [key] = await this.#ctx.state.keys(prefix, 1);
      if (key === undefined) return;
      const entry = await this.#ctx.state.get<Entry>(key);
      if (entry === undefined) continue;
      const tries = entry.tries + 1;
      // A message of the thread submitted at once before this one was written here goes first.
      await this.#direct.get(prefix)?.catch(() => {});
      try {
        await this.#messages.submit(entry.post, { signal, lastTry: tries >= MAX_TRIES });
        this.submitted += 1;
      } catch (err) {
        if (signal.aborted) return;
        if (!(err instanceof SubmitInvalidError)) {
          await this.#ctx.state.set(key, { ...entry, tries });
          const waitMs = RETRY_MS[Math.min(tries, RETRY_MS.length) - 1]!;
          this.#logger.warn({ message_id: messageIdOf(entry.post.channel, entry.post.ts), tries, retry_in_ms: waitMs, error: (err as Error).message }, 'slack message not submitted yet; tried again later');
          this.#retry(prefix, waitMs);
          return;
        }
        await this.#ctx.skip({ messageId: messageIdOf(entry.post.channel, entry.post.ts), code: 'TG_SLACK_MESSAGE_UNHANDLED', reason: `the gateway cannot store it: ${err.message}`, senderId: entry.post.user });
        this.#logger.error({ message_id: messageIdOf(entry.post.channel, entry.post.ts), error: err.message }, 'slack message refused by the bridge; recorded as skipped');
      }
      await this.#ctx.state.delete(key);
    }
  }

  #retry(prefix: string, waitMs: number): void {
    if (this.#stop.signal.aborted || this.#timers.has(prefix)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(prefix);
      this.#kick(prefix);
    }, waitMs);
    timer.unref();
    this.#timers.set(prefix, timer);
  }
}
