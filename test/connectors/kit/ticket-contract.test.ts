/**
 * The ticket-adapter contract itself (`ticketAdapterContract`,
 * threadgate/testing): an in-memory desk that keeps the rules passes every
 * check, and each of six broken desks fails the check of the rule it breaks,
 * with a reason that says what went wrong.
 */
import { describe, expect, it } from 'vitest';
import { TicketSystemError, type ChangeList, type Ticket, type TicketAttachment, type TicketEntry } from '../../../connectors/ticket/ticket-adapter.ts';
import { runContract, ticketAdapterContract, type CheckResult, type TicketCounterpart } from '../../../src/connector/testing/index.ts';
import { MemoryDesk } from '../ticket/memory-desk.ts';

const STAFF = { id: 's1', name: 'Sam Staff' };

function counterpartOf(desk: MemoryDesk): TicketCounterpart {
  let next = 0;
  const files = (list: readonly { filename: string; content: Buffer }[] = []) => list.map((f) => desk.file(f.filename, f.content));
  return {
    openTicket: async ({ subject, text, files: list }) => {
      const id = String(++next);
      desk.open(id, subject, text, { attachments: files(list) });
      return id;
    },
    addEntry: async (id, { text, files: list }) => desk.add(id, { text, attachments: files(list) }),
    addPrivateEntry: async (id, text) => desk.add(id, { text, private: true, author: STAFF }),
    close: async (id) => desk.add(id, { statusChange: 'closed', author: STAFF }),
    reopen: async (id) => desk.add(id, { statusChange: 'reopened', author: STAFF }),
    refusedAdapter: () => new RefusingDesk(),
    clockResolutionMs: 0,
    privateNotesTakeFiles: true,
  };
}

class RefusingDesk extends MemoryDesk {
  override async connect(): Promise<never> {
    throw new TicketSystemError('Unauthorized', { status: 401 });
  }
}

async function contractOf(desk: MemoryDesk): Promise<CheckResult[]> {
  return runContract(ticketAdapterContract(desk, counterpartOf(desk), { name: 'desk' }));
}

const failed = (results: CheckResult[]) => Object.fromEntries(results.filter((r) => !r.ok).map((r) => [r.name.replace(/^desk: /, ''), r.reason]));

describe('the ticket-adapter contract', () => {
  it('an adapter that keeps every rule passes every check, none skipped', async () => {
    const results = await contractOf(new MemoryDesk());
    expect(results).toHaveLength(11);
    expect(failed(results)).toEqual({});
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
  });

  it('a listing in the wrong order fails the order check', async () => {
    class Reversed extends MemoryDesk {
      override async listChanges(since: string | undefined): Promise<ChangeList> {
        const list = await super.listChanges(since);
        return { ...list, changes: list.changes.reverse() };
      }
    }
    expect(failed(await contractOf(new Reversed()))).toEqual({ 'listing order: tickets in the order they last changed': expect.stringMatching(/expected B \(\d+\) then A/) });
  });

  it('"from now on" that lists the past fails the start check', async () => {
    class Replaying extends MemoryDesk {
      override async listChanges(since: string | undefined): Promise<ChangeList> {
        return super.listChanges(since ?? new Date(0).toISOString());
      }
    }
    expect(failed(await contractOf(new Replaying()))).toEqual({ 'listChanges(undefined) lists nothing and gives an ISO 8601 nextSince': expect.stringMatching(/"from now on" listed \d+ ticket/) });
  });

  it('an adapter that does not know its own notes fails the notes check: they would be posted back', async () => {
    class Forgetful extends MemoryDesk {
      override isOwnEntry(): boolean {
        return false;
      }
    }
    expect(failed(await contractOf(new Forgetful()))).toEqual({ 'a note the adapter writes is its own, public or private as asked, with its files': expect.stringMatching(/would be posted back/) });
  });

  it('staff-only entries read as public fail the private checks', async () => {
    class Leaky extends MemoryDesk {
      override async readTicket(id: string): Promise<Ticket> {
        const ticket = await super.readTicket(id);
        return { ...ticket, entries: ticket.entries.map((e: TicketEntry) => ({ ...e, private: false })) };
      }
    }
    const reasons = failed(await contractOf(new Leaky()));
    expect(reasons['an entry only staff see is private']).toMatch(/reads private=false: it would be posted to the chat/);
    expect(reasons['a note the adapter writes is its own, public or private as asked, with its files']).toMatch(/private=false \(asked private\)/);
    expect(Object.keys(reasons)).toHaveLength(2);
  });

  it('a download that ignores maxBytes fails the files check', async () => {
    class Greedy extends MemoryDesk {
      override async downloadAttachment(attachment: TicketAttachment): Promise<Buffer> {
        return this.files.get(attachment.id)!;
      }
    }
    expect(failed(await contractOf(new Greedy()))).toEqual({ 'a file downloads byte for byte and is refused past maxBytes': expect.stringMatching(/one byte short gave 3000 bytes/) });
  });

  it('a thread key read back from another system’s key fails the keys check', async () => {
    class Lenient extends MemoryDesk {
      override ticketIdOf(threadKey: string): string | undefined {
        return threadKey.split('/').at(-1);
      }
    }
    expect(failed(await contractOf(new Lenient()))).toEqual({ 'thread keys go both ways; sender ids are stable and tell people apart': expect.stringMatching(/ticketIdOf\("elsewhere\.test\/issues\/1"\) gave 1/) });
  });
});
