/**
 * Polling a ticket system through a `TicketAdapter` (any system, not only
 * Redmine): connect, then every `pollSeconds` list the tickets changed since
 * the cursor and bring each one's new entries to the bridge, in order:
 *
 *   new ticket           → a message "subject\n\ndescription" from its author (a new thread)
 *   public note          → a message from its author, unless the gateway wrote it
 *   private note         → recorded as skipped (TG_TICKET_PRIVATE_NOTE), never posted
 *   status became closed → close the thread's session (unless already asked)
 *   reopened             → nothing: the next note opens a new session on the platform
 *
 * Durability: per ticket, `ctx.state` holds `ticket:<id>` = the last entry
 * handled (`seq`, -1 for "only the opening message") and the `updatedAt` it
 * was fully handled at; each is written only after `submit`/`close` resolved.
 * The round's cursor (`cursor`) moves only after every listed ticket was
 * handled. A crash anywhere re-reads at most what was in hand; `submit`
 * dedups on the message id and a close is skipped for a thread already closed.
 */
import type { ConnectorContext } from '../../src/connector/api.ts';
import { TicketSystemError, type Ticket, type TicketAdapter, type TicketChange, type TicketEntry } from './ticket-adapter.ts';

export interface TicketProgress {
  seq: number;
  updatedAt: string | null;
}

export interface PollerStatus {
  connected: boolean;
  user: string | null;
  lastPollAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  consecutiveFailures: number;
  polls: number;
}

export const CURSOR_KEY = 'cursor';
export const OPENED_SEQ = -1;
const MAX_BACKOFF_MS = 300_000;
const ticketKey = (id: string) => `ticket:${id}`;

export class TicketPoller {
  readonly #adapter: TicketAdapter;
  readonly #ctx: ConnectorContext;
  readonly #pollMs: number;
  readonly status: PollerStatus = { connected: false, user: null, lastPollAt: null, lastError: null, lastErrorAt: null, consecutiveFailures: 0, polls: 0 };

  constructor(adapter: TicketAdapter, ctx: ConnectorContext, pollSeconds: number) {
    this.#adapter = adapter;
    this.#ctx = ctx;
    this.#pollMs = pollSeconds * 1000;
  }

  /** Runs until `signal` aborts; never throws. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
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
      }
      const failures = this.status.consecutiveFailures;
      const delay = failures === 0 ? this.#pollMs : Math.min(this.#pollMs * 2 ** (failures - 1), Math.max(this.#pollMs, Math.min(MAX_BACKOFF_MS, this.#pollMs * 8)));
      await sleep(delay, signal);
    }
  }

  /** One round: list the changes since the cursor, handle each changed ticket, then move the cursor. */
  async round(signal: AbortSignal): Promise<void> {
    const cursor = await this.#ctx.state.get<{ since: string }>(CURSOR_KEY);
    const list = await this.#adapter.listChanges(cursor?.since, signal);
    for (const change of list.changes) {
      if (signal.aborted) return;
      await this.#handleChange(change, signal);
    }
    if (signal.aborted) return;
    await this.#ctx.state.set(CURSOR_KEY, { since: list.nextSince });
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
    const described = e.answer ? `${message}: ${e.answer}` : message;
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

  async #handleChange(change: TicketChange, signal: AbortSignal): Promise<void> {
    const progress = await this.#ctx.state.get<TicketProgress>(ticketKey(change.id));
    if (progress?.updatedAt === change.updatedAt) return; // listed again by the overlap: nothing new
    let ticket: Ticket;
    try {
      ticket = await this.#adapter.readTicket(change.id, signal);
    } catch (err) {
      // Deleted, moved or hidden since it was listed: nothing of it can be read, now or later.
      if (err instanceof TicketSystemError && (err.status === 404 || err.status === 403)) {
        this.#ctx.logger.info({ ticket: change.id, status: err.status }, 'a listed ticket cannot be read any more; passing over it');
        return;
      }
      throw err;
    }
    await this.#handleTicket(ticket, progress);
  }

  async #handleTicket(ticket: Ticket, progress: TicketProgress | undefined): Promise<void> {
    const key = this.#adapter.threadKey(ticket.id);
    const state = this.#ctx.state;
    if (progress === undefined) {
      const head = ticket.subject.trim() || '(no subject)';
      const description = ticket.description.trim();
      await this.#ctx.submit({
        threadKey: key,
        messageId: `${key}#opened`,
        senderId: this.#adapter.senderId(ticket.author),
        senderName: ticket.author.name || undefined,
        body: description === '' ? head : `${head}\n\n${description}`,
        variables: { ticket_url: ticket.webUrl },
      });
      progress = { seq: OPENED_SEQ, updatedAt: null };
      await state.set(ticketKey(ticket.id), progress);
    }
    for (const entry of ticket.entries) {
      if (entry.seq <= progress.seq) continue;
      await this.#handleEntry(key, ticket, entry);
      progress = { seq: entry.seq, updatedAt: null };
      await state.set(ticketKey(ticket.id), progress);
    }
    await state.set(ticketKey(ticket.id), { seq: progress.seq, updatedAt: ticket.updatedAt });
  }

  async #handleEntry(key: string, ticket: Ticket, entry: TicketEntry): Promise<void> {
    const text = entry.text.trim();
    if (text !== '' && this.#adapter.isOwnEntry(entry)) {
      this.#ctx.logger.debug({ ticket: ticket.id, entry: entry.id }, "the gateway's own note: not posted back");
    } else if (text !== '' && entry.private) {
      await this.#ctx.skip({
        messageId: `${key}#${entry.id}`,
        code: 'TG_TICKET_PRIVATE_NOTE',
        reason: 'a private note is for the ticket system’s staff only',
        senderId: this.#adapter.senderId(entry.author),
        summary: `ticket ${ticket.id}: private note`,
      });
    } else if (text !== '') {
      await this.#ctx.submit({
        threadKey: key,
        messageId: `${key}#${entry.id}`,
        senderId: this.#adapter.senderId(entry.author),
        senderName: entry.author.name || undefined,
        body: text,
      });
    }
    if (entry.statusChange === 'closed') {
      const thread = await this.#ctx.threads.get(key);
      if (thread && !thread.closed) await this.#ctx.close(key);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
