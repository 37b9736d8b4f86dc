/**
 * How a ticket's audits and comments become entries (zendesk-ticket.ts), on
 * records made here: an audit whose comment the comments read did not
 * bring (written between the two reads) ends the entries there, unsettled,
 * so the ticket is read again instead of an entry being passed over; an
 * internal first comment gives the opening no text and no files.
 */
import { describe, expect, it } from 'vitest';
import type { Audit, Comment, Ticket } from '../../../connectors/zendesk/zendesk-schemas.ts';
import { ticketOf } from '../../../connectors/zendesk/zendesk-ticket.ts';

const at = '2026-11-29T10:00:00Z';
const ticket: Ticket = { id: 7, subject: 'Subject', status: 'open', requester_id: 1, brand_id: 1, group_id: null, created_at: at, updated_at: at };
const comment = (id: number, body: string, isPublic = true): Comment => ({
  id,
  author_id: 1,
  body,
  public: isPublic,
  attachments: [{ id: id * 10, file_name: `${body}.pdf`, content_url: `https://acme.zendesk.com/attachments/token/t${id}/`, content_type: 'application/pdf', size: 3 }],
  audit_id: id + 1,
  created_at: at,
});
const audit = (id: number, events: Audit['events']): Audit => ({ id, created_at: at, author_id: 1, events });
const withComment = (id: number) => audit(id + 1, [{ id, type: 'Comment' }]);
const read = (comments: Comment[], audits: Audit[]) => ticketOf({ ticket, audits, comments, person: (id) => ({ id: String(id), name: `user ${id}` }), webUrl: 'https://acme.zendesk.com/agent/tickets/7', settled: true });

describe('a Zendesk ticket as the seam’s Ticket', () => {
  it('an audit whose comment was not read ends the entries there, unsettled', () => {
    const all = read([comment(100, 'opening'), comment(200, 'first')], [withComment(100), withComment(200), withComment(300), audit(400, [{ id: 401, type: 'Change', field_name: 'status', value: 'solved', previous_value: 'open' }])]);
    expect(all.entries.map((e) => [e.id, e.seq])).toEqual([['200', 1]]);
    expect(all.settled).toBe(false);
    const whole = read([comment(100, 'opening'), comment(200, 'first'), comment(300, 'second')], [withComment(100), withComment(200), withComment(300)]);
    expect([whole.entries.map((e) => e.text), whole.settled]).toEqual([['first', 'second'], true]);
  });

  it('an internal first comment gives the opening neither text nor files; the opening’s files are not an entry’s', () => {
    const internal = read([comment(100, 'secret', false)], [withComment(100)]);
    expect([internal.description, internal.attachments]).toEqual(['', []]);
    const open = read([comment(100, 'opening'), comment(200, 'first')], [withComment(100), withComment(200)]);
    expect(open.attachments.map((a) => a.filename)).toEqual(['opening.pdf']);
    expect(open.entries.flatMap((e) => e.attachments.map((a) => a.filename))).toEqual(['first.pdf']);
  });
});
