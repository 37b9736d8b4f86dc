/**
 * What the ticket-adapter contract (ticket-contract.ts) drives besides the
 * adapter: the ticket system itself, as its customers and staff use it, and
 * the reads every check shares. A counterpart for a real system writes
 * through that system's own API as another user (Redmine: a customer's API
 * key; Request Tracker: a customer's token), never through the adapter.
 */
import type { Ticket, TicketAdapter, TicketChange, TicketEntry } from '../../../connectors/ticket/ticket-adapter.ts';
import { fail } from './contract-support.ts';

export interface CounterpartFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface TicketCounterpart {
  /** Opens a ticket as a customer (not the gateway's user), with its files; resolves its id as the adapter names it. */
  openTicket(ticket: { subject: string; text: string; files?: readonly CounterpartFile[] }): Promise<string>;
  /** An entry the customer sees (a public note, correspondence), by the customer, with its files. */
  addEntry(ticketId: string, entry: { text: string; files?: readonly CounterpartFile[] }): Promise<void>;
  /** An entry only staff see (a private note, a comment), by a staff member other than the gateway. Omit when the system has none. */
  addPrivateEntry?(ticketId: string, text: string): Promise<void>;
  /** Closes (solves, resolves) the ticket as staff. */
  close(ticketId: string): Promise<void>;
  /** Opens a closed ticket again as staff. */
  reopen(ticketId: string): Promise<void>;
  /** An adapter of the same system whose credentials it refuses: `connect` must throw 401 or 403. Omit to skip that check. */
  refusedAdapter?(): TicketAdapter;
  /** How far apart two changes must be for the system to order them (Redmine: whole seconds). Default 1 100 ms. */
  clockResolutionMs?: number;
  /** Whether the adapter's private notes can carry files (`addNote` with `private` and uploads). Default false. */
  privateNotesTakeFiles?: boolean;
}

export interface TicketContractOptions {
  /** The checks' name prefix. Default `ticket adapter`. */
  name?: string;
  /** The per-request stop signal the adapter gets. Default: one that never aborts. */
  signal?: AbortSignal;
}

/** A PDF-looking file of `bytes` bytes, distinct per call. */
export function contractFile(filename = 'contract.pdf', bytes = 2_048): CounterpartFile {
  const head = Buffer.from(`%PDF-1.4\n% threadgate contract ${Math.random().toString(36).slice(2)}\n`);
  const content = Buffer.alloc(Math.max(bytes, head.length), 0x20);
  head.copy(content);
  return { filename, contentType: 'application/pdf', content };
}

export const isIso = (value: unknown): boolean => typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value));

/** Only the listed changes of these tickets, in the order listed. */
export const ours = (changes: readonly TicketChange[], ids: readonly string[]): TicketChange[] => changes.filter((c) => ids.includes(c.id));

/** The ticket's entries, after checking their order: oldest first, `seq` increasing, ids unique, times ISO 8601. */
export function entriesOf(ticket: Ticket): TicketEntry[] {
  const ids = new Set<string>();
  ticket.entries.forEach((entry, i) => {
    if (ids.has(entry.id)) fail(`ticket ${ticket.id}: entry id ${entry.id} appears twice`);
    ids.add(entry.id);
    if (!isIso(entry.createdAt)) fail(`ticket ${ticket.id}: entry ${entry.id} has createdAt ${JSON.stringify(entry.createdAt)}, not an ISO 8601 timestamp`);
    const before = ticket.entries[i - 1];
    if (before && !(entry.seq > before.seq)) fail(`ticket ${ticket.id}: entries are not oldest first with seq increasing (${before.seq} then ${entry.seq})`);
  });
  return ticket.entries;
}

/** The one entry whose text holds `marker`. */
export function entryWith(ticket: Ticket, marker: string): TicketEntry {
  const found = entriesOf(ticket).filter((e) => e.text.includes(marker));
  if (found.length !== 1) fail(`ticket ${ticket.id}: ${found.length} entries hold "${marker}", expected 1 (texts: ${JSON.stringify(ticket.entries.map((e) => e.text.slice(0, 60)))})`);
  return found[0]!;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
