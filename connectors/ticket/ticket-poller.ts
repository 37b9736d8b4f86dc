/**
 * Polling a ticket system through a `TicketAdapter` (any system, not only
 * Redmine): connect, then every `pollSeconds` list the tickets changed since
 * the cursor and bring each one's new entries to the bridge, in order:
 *
 *   new ticket           → a message "subject\n\ndescription" from its author (a new thread)
 *   public note or files → a message from its author, unless the gateway wrote it
 *   private note         → recorded as skipped (TG_TICKET_PRIVATE_NOTE), never posted
 *   private ticket       → every message recorded as skipped (TG_TICKET_PRIVATE_ISSUE)
 *   status became closed → close the thread's session (unless already asked)
 *   reopened             → nothing: the next note opens a new session on the platform
 *   created closed       → the opening message, then close (the closed state, once)
 *
 * (What each message holds, its files' lines included: `entry-messages.ts`.)
 *
 * A ticket first seen with a `createdAt` before the `since` it was listed
 * with existed before the gateway watched it (or before it moved into the
 * project): its history is not replayed. Its entries from before `since` are
 * passed over; the opening message is posted only when a new public note
 * comes (then the note), and its closed state is applied once, after it.
 *
 * Durability: per ticket, `ctx.state` holds `ticket:<id>` = the last entry
 * handled (`seq`, -1 for "only the opening message") and the `updatedAt` it
 * was fully handled at (only after a settled read: `Ticket.settled`); each is
 * written only after `submit`/`close` resolved. The round's cursor (`cursor`)
 * moves only after every listed ticket was handled. A crash anywhere re-reads
 * at most what was in hand; `submit` dedups on the message id and a close is
 * skipped for a thread already closed.
 *
 * One bad ticket does not stop the queue: a failure that is the ticket's own
 * (the system answers 500 or malformed for it, the bridge refuses a message
 * as invalid; not an outage) fails the round like any other, and on the
 * `MAX_TICKET_FAILURES`-th consecutive failure of the same step (reading the
 * ticket at that `updatedAt`, or one message) the step is given up: recorded
 * with `ctx.skip` as TG_TICKET_UNHANDLED with the error, logged at error
 * level, and the round goes on. Counts are in memory, like the e-mail
 * connector's (a restart gives the step its tries again).
 */
import { sleep, type ConnectorContext, type ConnectorState } from '../../src/connector/api.ts';
import { EntryMessages } from './entry-messages.ts';
import { DEFAULT_FILE_LIMITS, type FileLimits } from './kept-files.ts';
import {
  CURSOR_KEY,
  MAX_BACKOFF_MS,
  MAX_TICKET_FAILURES,
  OPENED_SEQ,
  UNHANDLED,
  messageOf,
  ticketKey,
  ticketsOwnFailure,
  type PollerStatus,
  type TicketProgress,
} from './poller-progress.ts';
import { TicketSystemError, type Ticket, type TicketAdapter, type TicketChange, type TicketEntry } from './ticket-adapter.ts';

/** At most this many tickets named by webhooks wait for the next round (a flood names no more). */
const MAX_NAMED = 1_000;

export class TicketPoller {
  readonly #adapter: TicketAdapter;
  readonly #ctx: ConnectorContext;
  /** What the opening and each entry become (submit, skip, close), files included. */
  readonly #messages: EntryMessages;
  /** Where the cursor and per-ticket progress live: the state given to `run` (the connector's poll: fenced by its lease). */
  #state: ConnectorState;
  readonly #pollMs: number;
  readonly status: PollerStatus = { connected: false, user: null, lastPollAt: null, lastError: null, lastErrorAt: null, consecutiveFailures: 0, polls: 0, givenUp: 0 };
  /** The step failing now, and how many times in a row. */
  #failing: { step: string; count: number } | undefined;
  /** Tickets whose read was given up, with the `updatedAt` it was given up at. */
  readonly #passedOver = new Map<string, string>();
  /** The rest after a successful round, which `wake` ends. */
  #rest: AbortController | undefined;
  /** A wake came during a round: the rest after it is skipped. */
  #woken = false;
  /** Tickets a webhook named since the last round: read directly (`changeOf`) when the listing leaves them out. */
  readonly #named = new Set<string>();

  constructor(adapter: TicketAdapter, ctx: ConnectorContext, pollSeconds: number, files: FileLimits = DEFAULT_FILE_LIMITS) {
    this.#adapter = adapter;
    this.#ctx = ctx;
    this.#messages = new EntryMessages(adapter, ctx, files);
    this.#state = ctx.state;
    this.#pollMs = pollSeconds * 1000;
  }

  /** Runs until `signal` aborts; never throws. `state`, when given, keeps the progress from now on. */
  async run(signal: AbortSignal, state?: ConnectorState): Promise<void> {
    if (state) this.#state = state;
    while (!signal.aborted) {
      /** How long the system asked to be left alone (`Retry-After` of a 429 or 503). */
      let asked = 0;
      try {
        if (!this.status.connected) await this.#connect(signal);
        await this.round(signal);
        if (signal.aborted) break;
        this.status.polls += 1;
        this.status.lastPollAt = new Date().toISOString();
        if (this.status.consecutiveFailures > 0) this.#ctx.logger.info({ host: this.#adapter.host }, `${this.#adapter.system} answers again`);
        this.status.consecutiveFailures = 0;
        this.status.lastError = null;
      } catch (err) {
        if (signal.aborted) break;
        this.#failed(err);
        if (err instanceof TicketSystemError && (err.status === 429 || err.status === 503)) asked = Math.min(err.retryAfterMs ?? 0, MAX_BACKOFF_MS);
      }
      const failures = this.status.consecutiveFailures;
      if (failures === 0) {
        if (this.#woken) {
          this.#woken = false;
          continue;
        }
        const rest = (this.#rest = new AbortController());
        await sleep(this.#pollMs, AbortSignal.any([signal, rest.signal]));
        this.#rest = undefined;
        continue;
      }
      // A failed round rests as long as it must (its backoff, a Retry-After): no wake shortens it.
      this.#woken = false;
      const delay = Math.min(this.#pollMs * 2 ** (failures - 1), Math.max(this.#pollMs, Math.min(MAX_BACKOFF_MS, this.#pollMs * 8)));
      await sleep(Math.max(delay, asked), signal);
    }
  }

  /**
   * Starts the next round now (a webhook said something changed): the rest after a successful round ends at once;
   * during a round, the rest after it is skipped. A failed round's backoff is never shortened. `ticketId`, the
   * ticket the webhook named, is read in that round even when the listing leaves it out (an adapter with `changeOf`).
   */
  wake(ticketId?: string): void {
    if (ticketId !== undefined && this.#adapter.changeOf && this.#named.size < MAX_NAMED) this.#named.add(ticketId);
    if (this.#rest) this.#rest.abort();
    else this.#woken = true;
  }

  /** One round: list the changes since the cursor (and the tickets a webhook named), handle each, then move the cursor. */
  async round(signal: AbortSignal): Promise<void> {
    const cursor = await this.#state.get<{ since: string }>(CURSOR_KEY);
    const named = [...this.#named];
    const list = await this.#adapter.listChanges(cursor?.since, signal);
    const changes = cursor === undefined ? list.changes : [...list.changes, ...(await this.#namedChanges(named, list.changes, signal))];
    for (const id of named) this.#named.delete(id);
    for (const change of changes) {
      if (signal.aborted) return;
      await this.#handleChange(change, cursor?.since, signal);
    }
    if (signal.aborted) return;
    await this.#state.set(CURSOR_KEY, { since: list.nextSince });
  }

  /** The named tickets the listing left out, read one by one; ones gone or out of the queue are dropped. */
  async #namedChanges(ids: readonly string[], listed: readonly TicketChange[], signal: AbortSignal): Promise<TicketChange[]> {
    const out: TicketChange[] = [];
    for (const id of ids) {
      if (listed.some((c) => c.id === id)) continue;
      const change = await this.#adapter.changeOf!(id, signal);
      if (change) out.push(change);
    }
    return out;
  }

  async #connect(signal: AbortSignal): Promise<void> {
    const self = await this.#adapter.connect(signal);
    this.status.connected = true;
    this.status.user = self.name;
    this.#ctx.logger.info({ host: this.#adapter.host, user_id: self.id }, `connected to ${this.#adapter.system} as ${self.name}`);
  }

  #failed(err: unknown): void {
    const e = err as TicketSystemError;
    const message = e instanceof Error ? e.message : String(err);
    const described = messageOf(err);
    const first = this.status.consecutiveFailures === 0 || this.status.lastError !== described;
    this.status.consecutiveFailures += 1;
    this.status.lastError = described;
    this.status.lastErrorAt = new Date().toISOString();
    const fields = { host: this.#adapter.host, status: e.status, answer: e.answer, failures: this.status.consecutiveFailures };
    if (!this.status.connected) {
      // Start-up: a wrong url or key is an operator's mistake; say so loudly once, then keep trying quietly.
      if (first) this.#ctx.logger.error(fields, `cannot start: ${message}; retrying with backoff (the connector reports unhealthy meanwhile)`);
      else this.#ctx.logger.debug(fields, `still cannot start: ${message}`);
    } else if (first) {
      this.#ctx.logger.warn(fields, `poll failed: ${message}; retrying with backoff`);
    }
  }

  async #handleChange(change: TicketChange, since: string | undefined, signal: AbortSignal): Promise<void> {
    if (this.#passedOver.get(change.id) === change.updatedAt) return;
    const progress = await this.#state.get<TicketProgress>(ticketKey(change.id));
    if (progress?.updatedAt != null && progress.updatedAt === change.updatedAt) return; // listed again by the overlap: nothing new
    const key = this.#adapter.threadKey(change.id);
    const readStep = `${key}#read@${change.updatedAt}`;
    const read = await this.#step(readStep, () => this.#read(change.id, signal), async (err) => {
      await this.#ctx.skip({ messageId: readStep, code: UNHANDLED, reason: `reading the ticket failed ${MAX_TICKET_FAILURES} times: ${messageOf(err)}`, summary: `ticket ${change.id}` });
      this.#passedOver.set(change.id, change.updatedAt);
    });
    if (read.done && read.value) await this.#handleTicket(read.value, progress, since, signal);
  }

  async #read(id: string, signal: AbortSignal): Promise<Ticket | undefined> {
    try {
      return await this.#adapter.readTicket(id, signal);
    } catch (err) {
      // Deleted, moved or hidden since it was listed: nothing of it can be read, now or later.
      if (err instanceof TicketSystemError && (err.status === 404 || err.status === 403)) {
        this.#ctx.logger.info({ ticket: id, status: err.status }, 'a listed ticket cannot be read any more; passing over it');
        return undefined;
      }
      throw err;
    }
  }

  /**
   * Runs one step of a ticket (its read, one message). A failure of the
   * ticket's own is thrown (the round fails and is tried again) until the
   * `MAX_TICKET_FAILURES`-th time in a row: then `giveUp` records it and the
   * step counts as done.
   */
  async #step<T>(step: string, run: () => Promise<T>, giveUp: (err: unknown) => Promise<void>): Promise<{ done: true; value: T } | { done: false }> {
    try {
      const value = await run();
      if (this.#failing?.step === step) this.#failing = undefined;
      return { done: true, value };
    } catch (err) {
      if (!ticketsOwnFailure(err)) throw err;
      const count = this.#failing?.step === step ? this.#failing.count + 1 : 1;
      if (count < MAX_TICKET_FAILURES) {
        this.#failing = { step, count };
        throw err;
      }
      this.#failing = undefined;
      this.#ctx.logger.error({ step, failures: count, err: { message: messageOf(err), code: (err as { code?: string }).code } }, `giving up on ${step} after ${count} failures in a row (recorded as skipped, ${UNHANDLED}); the other tickets go on`);
      await giveUp(err);
      this.status.givenUp += 1;
      return { done: false };
    }
  }

  async #handleTicket(ticket: Ticket, progress: TicketProgress | undefined, since: string | undefined, signal: AbortSignal): Promise<void> {
    const key = this.#adapter.threadKey(ticket.id);
    const state = this.#state;
    const save = async (next: TicketProgress) => {
      progress = next;
      await state.set(ticketKey(ticket.id), next);
    };
    if (progress === undefined) {
      const sinceMs = since === undefined ? Number.NaN : Date.parse(since);
      if (Date.parse(ticket.createdAt) < sinceMs) {
        // It existed before the gateway watched it: start from its present, not from its history.
        const earlier = ticket.entries.filter((e) => !(Date.parse(e.createdAt) >= sinceMs));
        this.#ctx.logger.info({ ticket: ticket.id, earlier_entries: earlier.length }, 'taking up a ticket older than the cursor: its earlier entries are not posted');
        await save({ seq: earlier.at(-1)?.seq ?? OPENED_SEQ, updatedAt: null, opened: false });
      } else {
        await this.#open(key, ticket, signal);
        await save({ seq: OPENED_SEQ, updatedAt: null, closeCheck: true });
      }
    }
    let statusByEntry = false;
    for (const entry of ticket.entries) {
      if (entry.seq <= progress!.seq) continue;
      if (progress!.opened === false && this.#messages.postable(ticket, entry)) {
        await this.#open(key, ticket, signal);
        await save({ seq: progress!.seq, updatedAt: null, closeCheck: true });
      }
      await this.#handleEntry(key, ticket, entry, signal);
      if (entry.statusChange !== null) statusByEntry = true;
      await save({ ...progress!, seq: entry.seq, updatedAt: null });
    }
    if (progress!.closeCheck && ticket.closed && !statusByEntry) {
      // Created closed, or taken up closed: its closed state applies once, after the messages.
      const thread = await this.#ctx.threads.get(key);
      if (thread && !thread.closed) await this.#ctx.close(key);
    }
    const { closeCheck: _, ...rest } = progress!;
    await save({ ...rest, updatedAt: ticket.settled ? ticket.updatedAt : null });
  }

  /** The opening message (subject, description, the files attached with them) from the ticket's author. */
  async #open(key: string, ticket: Ticket, signal: AbortSignal): Promise<void> {
    const messageId = `${key}#opened`;
    await this.#step(messageId, () => this.#messages.opening(key, messageId, ticket, signal), (err) => this.#unhandled(messageId, ticket, err));
  }

  async #unhandled(messageId: string, ticket: Ticket, err: unknown): Promise<void> {
    await this.#ctx.skip({ messageId, code: UNHANDLED, reason: `handling failed ${MAX_TICKET_FAILURES} times: ${messageOf(err)}`, summary: `ticket ${ticket.id}` });
  }

  async #handleEntry(key: string, ticket: Ticket, entry: TicketEntry, signal: AbortSignal): Promise<void> {
    const messageId = `${key}#${entry.id}`;
    await this.#step(messageId, () => this.#messages.entry(key, messageId, ticket, entry, signal), (err) => this.#unhandled(messageId, ticket, err));
  }
}
