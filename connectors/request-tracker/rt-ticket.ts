/**
 * An RT ticket and its transactions as a `Ticket` (../ticket/ticket-adapter.ts):
 *
 *   Create                         → the opening: its text is the description, its files the ticket's
 *   Correspond                     → a public entry (mailed to the requestors)
 *   Comment                        → a private entry (staff only): never posted
 *   Status into a closed status    → statusChange 'closed' (resolved, rejected, deleted by default)
 *   Status out of a closed status  → statusChange 'reopened'
 *   anything else (Set, watchers, mail records, status moves among open ones) → no entry
 *
 * Texts are read as the e-mail connector reads a mail: the plain part, else
 * the HTML turned into text, quoted history and signature cut. The author of
 * the opening is the ticket's first requestor (its creator when it has none).
 */
import { readableText, stripQuotes } from '../../src/connector/api.ts';
import type { Ticket, TicketEntry, TicketPerson } from '../ticket/ticket-adapter.ts';
import type { RtMessage } from './rt-messages.ts';
import type { RtTicket, RtTransaction } from './rt-schemas.ts';
import type { z } from 'zod';

/** The transaction types a ticket's history is read for. */
export const READ_TYPES = ['Create', 'Correspond', 'Comment', 'Status'] as const;

export interface TicketParts {
  ticket: z.output<typeof RtTicket>;
  transactions: readonly RtTransaction[];
  /** The message of each Create, Correspond and Comment transaction, by id. */
  messages: ReadonlyMap<string, RtMessage>;
  /** Each login named by the ticket and its transactions. */
  people: ReadonlyMap<string, TicketPerson>;
  /** Where a person opens the ticket: `<url>/Ticket/Display.html?id=<id>`. */
  webUrl: string;
  closedStatuses: ReadonlySet<string>;
  settled: boolean;
}

export function ticketOf(parts: TicketParts): Ticket {
  const { ticket, closedStatuses } = parts;
  const person = (login: string): TicketPerson => parts.people.get(login) ?? { id: login, name: login };
  const isClosed = (status: string | null | undefined) => closedStatuses.has((status ?? '').toLowerCase());
  const create = parts.transactions.find((t) => t.Type === 'Create');
  const opening = create ? parts.messages.get(create.id) : undefined;
  const entries: TicketEntry[] = [];
  for (const t of [...parts.transactions].sort((a, b) => Number(a.id) - Number(b.id))) {
    const base = { id: t.id, seq: Number(t.id), author: person(t.Creator.id), createdAt: t.Created, text: '', private: false, statusChange: null, attachments: [] };
    if (t.Type === 'Correspond' || t.Type === 'Comment') {
      const message = parts.messages.get(t.id);
      entries.push({ ...base, text: textOf(message), private: t.Type === 'Comment', attachments: message?.files ?? [] });
    } else if (t.Type === 'Status' && (t.Field ?? 'Status') === 'Status') {
      const closes = isClosed(t.NewValue) && !isClosed(t.OldValue);
      const reopens = !isClosed(t.NewValue) && isClosed(t.OldValue);
      if (closes || reopens) entries.push({ ...base, statusChange: closes ? 'closed' : 'reopened' });
    }
  }
  const requestor = ticket.Requestor[0]?.id ?? ticket.Creator.id;
  return {
    id: String(ticket.id),
    webUrl: parts.webUrl,
    subject: ticket.Subject ?? '',
    description: textOf(opening),
    author: person(requestor),
    createdAt: ticket.Created,
    updatedAt: ticket.LastUpdated,
    settled: parts.settled,
    closed: isClosed(ticket.Status),
    private: false,
    attachments: opening?.files ?? [],
    entries,
  };
}

/** A message's text for the chat: plain, else HTML as text; quoted history and signature cut. */
function textOf(message: RtMessage | undefined): string {
  if (!message) return '';
  const text = readableText(message.plain, message.html ?? false);
  return text.trim() === '' ? '' : stripQuotes(text);
}
