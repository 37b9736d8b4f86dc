/**
 * The ticket poller through the adapter seam with a second, in-memory ticket
 * system (what a Zendesk or Zammad adapter would give it), and an in-memory
 * connector context standing in for the bridge: what each kind of entry
 * becomes, and the durability rules (cursor after the round, progress per
 * ticket, no double posts or closes after a crash).
 */
import { describe, expect, it } from 'vitest';
import { CURSOR_KEY } from '../../../connectors/ticket/poller-progress.ts';
import { TicketPoller } from '../../../connectors/ticket/ticket-poller.ts';
import { GATEWAY, MemoryDesk } from './memory-desk.ts';
import { recordingContext } from '../webhook/recording-context.ts';

const signal = new AbortController().signal;

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
    const cursor = await ctx.state.get(CURSOR_KEY);
    desk.open('1', 'T', 'd');
    desk.add('1', { statusChange: 'closed' });
    await poller.round(signal);
    expect(ctx.closes).toEqual(['desk.test/t/1']);
    // As if the gateway stopped after the close, before the progress and the cursor were written.
    await ctx.state.delete('ticket:1');
    await ctx.state.set(CURSOR_KEY, cursor);
    await poller.round(signal); // the same round again: the ticket is new to it, read whole
    expect(ctx.closes).toEqual(['desk.test/t/1']);
    expect(ctx.submits).toHaveLength(1);
  });

  it('a ticket older than the cursor is taken up from its present: no history, no replayed closes, one opening when a note comes', async () => {
    const desk = new MemoryDesk();
    desk.open('1', 'Old printer', 'It jams.');
    desk.add('1', { text: 'old customer note' });
    desk.add('1', { text: 'old staff note', author: { id: 's1', name: 'Sam Staff' } });
    desk.add('1', { text: 'old private', private: true });
    desk.add('1', { statusChange: 'closed' });
    desk.add('1', { statusChange: 'reopened' });
    desk.add('1', { statusChange: 'closed' });
    desk.open('2', 'Old and quiet', 'x');
    desk.tick(120);
    const ctx = recordingContext('desk');
    const poller = new TicketPoller(desk, ctx, 1);
    await poller.round(signal); // the gateway's first start: from now on

    desk.add('2', { text: '' }); // a field change on an old ticket: nothing to post
    await poller.round(signal);
    expect(ctx.submits).toEqual([]);
    expect(ctx.skips).toEqual([]);

    desk.add('1', { text: 'Still jams, and it is closed!' }); // a new note on the old, closed ticket
    await poller.round(signal);
    expect(ctx.submits.map((s) => [s.messageId, s.body])).toEqual([
      ['desk.test/t/1#opened', 'Old printer\n\nIt jams.'],
      ['desk.test/t/1#e8', 'Still jams, and it is closed!'],
    ]);
    expect(ctx.skips).toEqual([]);
    expect(ctx.closes).toEqual(['desk.test/t/1']); // its closed state, once, after the messages

    desk.add('1', { statusChange: 'reopened' });
    desk.add('1', { text: 'Thanks for reopening' });
    await poller.round(signal);
    expect(ctx.submits.at(-1)!.body).toBe('Thanks for reopening');
    expect(ctx.closes).toHaveLength(1);
  });

  it('a ticket created closed gets its opening message and is closed once', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'Done already', 'fyi', { closed: true });
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['Done already\n\nfyi']);
    expect(ctx.closes).toEqual(['desk.test/t/1']);
    desk.tick();
    await poller.round(signal);
    expect(ctx.closes).toHaveLength(1);
  });

  it('a private ticket posts nothing: its opening and notes are recorded as skipped', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'Secret', 'x', { private: true });
    desk.add('1', { text: 'secret note' });
    await poller.round(signal);
    expect(ctx.submits).toEqual([]);
    expect(ctx.skips.map((s) => [s.messageId, s.code])).toEqual([
      ['desk.test/t/1#opened', 'TG_TICKET_PRIVATE_ISSUE'],
      ['desk.test/t/1#e1', 'TG_TICKET_PRIVATE_ISSUE'],
    ]);
  });

  it('a ticket read in the second of its last change is read again when listed with the same updatedAt', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'T', 'd');
    desk.unsettled.add('1');
    await poller.round(signal);
    desk.add('1', { text: 'same second' }, { sameSecond: true }); // updatedAt unchanged
    desk.unsettled.delete('1');
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['T\n\nd', 'same second']);
    const reads = desk.reads;
    await poller.round(signal); // settled now: not read again
    expect(desk.reads).toBe(reads);
  });

  it('a ticket that keeps failing is given up on the third time (recorded, logged); the others go on', async () => {
    const { desk, ctx, poller } = await started();
    desk.open('1', 'Broken', 'd');
    desk.open('2', 'Fine', 'd');
    desk.brokenReadOf.add('1');
    await expect(poller.round(signal)).rejects.toThrow('internal error');
    await expect(poller.round(signal)).rejects.toThrow('internal error');
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['Fine\n\nd']);
    expect(ctx.skips.map((s) => s.code)).toEqual(['TG_TICKET_UNHANDLED']);
    expect(ctx.skips[0]!.reason).toContain('internal error');
    expect(ctx.logs.some((l) => l.level === 50 && l.msg.includes('giving up'))).toBe(true);
    expect(poller.status.givenUp).toBe(1);
    await poller.round(signal); // listed again at the same updatedAt: passed over
    expect(ctx.skips).toHaveLength(1);

    // A message the bridge refuses as invalid: that message is given up, the next one is posted.
    desk.brokenReadOf.delete('1');
    desk.add('2', { text: 'refused' });
    desk.add('2', { text: 'accepted' });
    const submit = ctx.submit.bind(ctx);
    ctx.submit = async (m) => {
      if (m.body === 'refused') throw Object.assign(new Error('body: must have at most 10 characters'), { code: 'TG_SUBMIT_INVALID' });
      return submit(m);
    };
    for (let i = 0; i < 2; i++) await expect(poller.round(signal)).rejects.toThrow('must have at most');
    await poller.round(signal);
    expect(ctx.submits.map((s) => s.body)).toEqual(['Fine\n\nd', 'accepted']); // ticket 1 unchanged since given up: not read
    expect(ctx.skips.map((s) => [s.messageId, s.code])).toEqual([
      ['desk.test/t/1#read@' + desk.tickets.get('1')!.updatedAt, 'TG_TICKET_UNHANDLED'],
      ['desk.test/t/2#e1', 'TG_TICKET_UNHANDLED'],
    ]);
  });

  it('an outage (no answer) is never given up on', async () => {
    const { desk, poller } = await started();
    desk.open('1', 'T', 'd');
    for (let i = 0; i < 4; i++) {
      desk.failReadOf.add('1');
      await expect(poller.round(signal)).rejects.toThrow('connection reset');
    }
    expect(poller.status.givenUp).toBe(0);
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
