/**
 * The ticket poller through the adapter seam with a second, in-memory ticket
 * system (what a Zendesk or Zammad adapter would give it), and an in-memory
 * connector context standing in for the bridge: what each kind of entry
 * becomes, and the durability rules (cursor after the round, progress per
 * ticket, no double posts or closes after a crash).
 */
import { describe, expect, it } from 'vitest';
import { TicketPoller, CURSOR_KEY } from '../../../connectors/redmine/ticket-poller.ts';
import {
  TicketSystemError,
  type ChangeList,
  type Ticket,
  type TicketAdapter,
  type TicketEntry,
  type TicketPerson,
} from '../../../connectors/redmine/ticket-adapter.ts';
import { recordingContext } from '../webhook/recording-context.ts';

const CUSTOMER: TicketPerson = { id: 'c1', name: 'Cora Customer' };
const GATEWAY: TicketPerson = { id: 'gw', name: 'Gateway' };
const signal = new AbortController().signal;

/** A tiny help desk in memory: tickets with entries, a clock, and failures to order. */
class MemoryDesk implements TicketAdapter {
  readonly system = 'MemoryDesk';
  readonly host = 'desk.test';
  readonly tickets = new Map<string, Ticket>();
  reads = 0;
  failReadOf = new Set<string>();
  goneOnRead = new Set<string>();
  #clock = 1_000;
  #seq = 0;

  open(id: string, subject: string, description: string): void {
    this.tickets.set(id, { id, webUrl: `https://desk.test/t/${id}`, subject, description, author: CUSTOMER, createdAt: 'x', updatedAt: String(++this.#clock), closed: false, entries: [] });
  }

  add(id: string, entry: Partial<TicketEntry>): void {
    const ticket = this.tickets.get(id)!;
    const seq = ++this.#seq;
    ticket.entries.push({ id: `e${seq}`, seq, author: CUSTOMER, createdAt: 'x', text: '', private: false, statusChange: null, ...entry });
    if (entry.statusChange) ticket.closed = entry.statusChange === 'closed';
    ticket.updatedAt = String(++this.#clock);
  }

  async connect(): Promise<TicketPerson> {
    return GATEWAY;
  }

  async listChanges(since: string | undefined): Promise<ChangeList> {
    const from = since === undefined ? Number.POSITIVE_INFINITY : Number(since);
    const changes = [...this.tickets.values()].filter((t) => Number(t.updatedAt) >= from).sort((a, b) => Number(a.updatedAt) - Number(b.updatedAt));
    return { changes: changes.map((t) => ({ id: t.id, updatedAt: t.updatedAt })), nextSince: String(since === undefined ? 0 : this.#clock - 1) };
  }

  async readTicket(id: string): Promise<Ticket> {
    this.reads += 1;
    if (this.goneOnRead.has(id)) throw new TicketSystemError('gone', { status: 404 });
    if (this.failReadOf.delete(id)) throw new TicketSystemError('connection reset');
    return structuredClone(this.tickets.get(id)!);
  }

  async addNote(): Promise<{ entryId: string | undefined }> {
    return { entryId: undefined };
  }

  isOwnEntry(entry: TicketEntry): boolean {
    return entry.author.id === GATEWAY.id;
  }

  threadKey(ticketId: string): string {
    return `desk.test/t/${ticketId}`;
  }

  ticketIdOf(threadKey: string): string | undefined {
    return threadKey.startsWith('desk.test/t/') ? threadKey.slice('desk.test/t/'.length) : undefined;
  }

  senderId(person: TicketPerson): string {
    return `desk.test/u/${person.id}`;
  }
}

async function started() {
  const desk = new MemoryDesk();
  const ctx = recordingContext('desk');
  const poller = new TicketPoller(desk, ctx, 1);
  await poller.round(signal); // "from now on": only the cursor
  return { desk, ctx, poller };
}

describe('ticket poller (any adapter)', () => {
  it('posts a new ticket and its public notes, skips private and own notes, closes on closing', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'Broken', 'It broke.');
    desk.add('1', { text: 'More detail' });
    desk.add('1', { text: 'staff only', private: true });
    desk.add('1', { text: 'An agent reply', author: GATEWAY });
    desk.add('1', { statusChange: 'closed' });
    await poller.round(signal);

    expect(ctx.submits.map((s) => [s.messageId, s.body, s.senderId, s.senderName])).toEqual([
      ['desk.test/t/1#opened', 'Broken\n\nIt broke.', 'desk.test/u/c1', 'Cora Customer'],
      ['desk.test/t/1#e1', 'More detail', 'desk.test/u/c1', 'Cora Customer'],
    ]);
    expect(ctx.submits[0]!.variables).toEqual({ ticket_url: 'https://desk.test/t/1' });
    expect(ctx.skips.map((s) => [s.messageId, s.code])).toEqual([['desk.test/t/1#e2', 'TG_TICKET_PRIVATE_NOTE']]);
    expect(ctx.closes).toEqual(['desk.test/t/1']);

    desk.add('1', { statusChange: 'reopened' });
    desk.add('1', { text: 'Broken again' });
    await poller.round(signal);
    expect(ctx.submits.at(-1)!.body).toBe('Broken again');
    expect(ctx.closes).toHaveLength(1);
  });

  it('a round that fails midway keeps the cursor; the next one posts the rest, nothing twice', async () => {
    const { desk, ctx, poller } = await started();
    const cursor = await ctx.state.get(CURSOR_KEY);
    for (const id of ['1', '2', '3']) {
      desk.open(id, `T${id}`, 'd');
      desk.add(id, { text: `note ${id}` });
    }
    desk.failReadOf.add('2');
    await expect(poller.round(signal)).rejects.toThrow('connection reset');
    expect(await ctx.state.get(CURSOR_KEY)).toEqual(cursor);
    expect(ctx.submits.map((s) => s.body)).toEqual(['T1\n\nd', 'note 1']);

    const readsBefore = desk.reads;
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['T1\n\nd', 'note 1', 'T2\n\nd', 'note 2', 'T3\n\nd', 'note 3']);
    expect(desk.reads - readsBefore).toBe(2); // ticket 1 was fully handled at the same updatedAt: not read again
    expect(await ctx.state.get(CURSOR_KEY)).not.toEqual(cursor);
  });

  it('after a crash between closing and recording it, the close is not asked twice', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'T', 'd');
    desk.add('1', { statusChange: 'closed' });
    await poller.round(signal);
    await ctx.state.delete('ticket:1'); // as if the progress write never happened
    await ctx.state.delete(CURSOR_KEY);
    await poller.round(signal); // "from now on" again
    desk.add('1', { text: '' }); // touches the ticket
    await poller.round(signal);
    expect(ctx.closes).toEqual(['desk.test/t/1']);
    expect(ctx.submits).toHaveLength(1);
  });

  it('a ticket that is gone when read (404) is passed over; the others are posted', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'Gone', 'd');
    desk.open('2', 'Here', 'd');
    desk.goneOnRead.add('1');
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['Here\n\nd']);
    expect(ctx.logs.some((l) => l.msg.includes('cannot be read any more'))).toBe(true);
  });
});
