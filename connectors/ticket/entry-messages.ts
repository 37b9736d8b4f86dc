/**
 * What a ticket's opening and each of its entries become on the platform,
 * through any `TicketAdapter` (the poller decides when, and keeps progress):
 *
 *   opening              → "subject\n\ndescription" + the lines of the files attached with it
 *   public note / files  → its text + the lines of its files (the lines alone for files without text)
 *   private note         → recorded as skipped (TG_TICKET_PRIVATE_NOTE): no text, no file kept
 *   private ticket       → every message recorded as skipped (TG_TICKET_PRIVATE_ISSUE)
 *   the gateway's own    → nothing (an agent reply it wrote, with the agent's files)
 *   closed               → close the thread's session (unless already closed)
 *
 * Files are kept and listed by `kept-files.ts` before the message is
 * submitted; `submit` dedups on the message id, so a message retried after
 * its files were kept is still posted once (its files may be stored again).
 */
import type { ConnectorContext } from '../../src/connector/api.ts';
import { keptFileLines, withFileLines, type FileLimits } from './kept-files.ts';
import { PRIVATE_ISSUE, PRIVATE_NOTE } from './poller-progress.ts';
import type { Ticket, TicketAdapter, TicketEntry } from './ticket-adapter.ts';

export class EntryMessages {
  readonly #adapter: TicketAdapter;
  readonly #ctx: ConnectorContext;
  readonly #limits: FileLimits;

  constructor(adapter: TicketAdapter, ctx: ConnectorContext, limits: FileLimits) {
    this.#adapter = adapter;
    this.#ctx = ctx;
    this.#limits = limits;
  }

  /** Whether the entry would be posted (it opens a ticket taken up after it existed). */
  postable(ticket: Ticket, entry: TicketEntry): boolean {
    return !ticket.private && !entry.private && hasContent(entry) && !this.#adapter.isOwnEntry(entry);
  }

  /** The opening message: subject, description and the files attached with them, from the ticket's author. */
  async opening(key: string, messageId: string, ticket: Ticket, signal: AbortSignal): Promise<void> {
    if (ticket.private) {
      await this.#ctx.skip({ messageId, code: PRIVATE_ISSUE, reason: 'a private ticket is for some of the ticket system’s users only', senderId: this.#adapter.senderId(ticket.author), summary: `ticket ${ticket.id}: private` });
      return;
    }
    const head = ticket.subject.trim() || '(no subject)';
    const description = ticket.description.trim();
    const lines = await keptFileLines(ticket.attachments, this.#limits, this.#adapter, this.#ctx.files, signal);
    await this.#ctx.submit({
      threadKey: key,
      messageId,
      senderId: this.#adapter.senderId(ticket.author),
      senderName: ticket.author.name || undefined,
      body: withFileLines(description === '' ? head : `${head}\n\n${description}`, lines),
      variables: { ticket_url: ticket.webUrl, ...(ticket.author.email ? { email: ticket.author.email } : {}) },
    });
  }

  /** One entry: its message (or skip record), then the close it made. */
  async entry(key: string, messageId: string, ticket: Ticket, entry: TicketEntry, signal: AbortSignal): Promise<void> {
    if (hasContent(entry) && this.#adapter.isOwnEntry(entry)) {
      this.#ctx.logger.debug({ ticket: ticket.id, entry: entry.id }, "the gateway's own note: not posted back");
    } else if (hasContent(entry) && (entry.private || ticket.private)) {
      await this.#ctx.skip({
        messageId,
        code: entry.private ? PRIVATE_NOTE : PRIVATE_ISSUE,
        reason: entry.private ? 'a private note is for the ticket system’s staff only' : 'a private ticket is for some of the ticket system’s users only',
        senderId: this.#adapter.senderId(entry.author),
        summary: `ticket ${ticket.id}: private ${entry.private ? 'note' : 'ticket'}`,
      });
    } else if (hasContent(entry)) {
      const lines = await keptFileLines(entry.attachments, this.#limits, this.#adapter, this.#ctx.files, signal);
      await this.#ctx.submit({
        threadKey: key,
        messageId,
        senderId: this.#adapter.senderId(entry.author),
        senderName: entry.author.name || undefined,
        body: withFileLines(entry.text.trim(), lines),
      });
    }
    if (entry.statusChange === 'closed') {
      const thread = await this.#ctx.threads.get(key);
      if (thread && !thread.closed) await this.#ctx.close(key);
    }
  }
}

/** A note with text, or files: a message. A change of fields alone is none. */
const hasContent = (entry: TicketEntry) => entry.text.trim() !== '' || entry.attachments.length > 0;
