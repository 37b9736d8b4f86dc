/**
 * A Zendesk ticket as the seam's `Ticket`, from what `readTicket` read: the
 * ticket, its audits (every change, oldest first) and its comments.
 *
 *   the first audit (Create) with its comment  → the opening: subject, text and files (when the comment is public)
 *   an audit with a comment                     → an entry: the comment's id, author, text, public or not, files
 *   an audit changing status into solved/closed → statusChange 'closed' (on the same entry as its comment, if any)
 *   an audit changing status out of solved      → statusChange 'reopened'
 *   an audit changing other fields only         → nothing (its place still counts in `seq`)
 *
 * `seq` is the audit's place in the ticket's history (audits are only ever
 * appended). A status change without a comment is the entry `audit-<id>`.
 * The audits are read before the comments, so a comment written between the
 * two reads has no audit yet and waits for the next read; an audit whose
 * comment is missing from the comments read (it should not happen) ends the
 * entries there, unsettled, so the ticket is read again rather than an entry
 * skipped.
 */
import type { Ticket as SeamTicket, TicketAttachment, TicketEntry, TicketPerson } from '../ticket/ticket-adapter.ts';
import type { Attachment, Audit, Comment, Ticket } from './zendesk-schemas.ts';

/** The statuses that end the conversation: solved (reopened by a reply) and closed (final). */
export const CLOSED_STATUSES: ReadonlySet<string> = new Set(['solved', 'closed']);

export interface TicketParts {
  ticket: Ticket;
  audits: readonly Audit[];
  comments: readonly Comment[];
  person(userId: number): TicketPerson;
  webUrl: string;
  /** Zendesk's clock was far enough past `updated_at` (whole seconds) when the ticket was read. */
  settled: boolean;
}

const lf = (text: string | null | undefined) => (text ?? '').replace(/\r\n?/g, '\n');
const iso = (time: string) => new Date(Date.parse(time)).toISOString();
const isComment = (type: string) => type === 'Comment' || type.endsWith('Comment');

export function filesOf(comment: Comment): TicketAttachment[] {
  return comment.attachments.filter((a) => a.deleted !== true).map(fileOf);
}

function fileOf(a: Attachment): TicketAttachment {
  return { id: String(a.id), filename: a.file_name, size: a.size, contentType: a.content_type || 'application/octet-stream', url: a.content_url };
}

/** 'closed' when the audit moved the status into solved/closed, 'reopened' when out of them, else null. */
export function statusChangeOf(audit: Audit): 'closed' | 'reopened' | null {
  const change = audit.events.find((e) => e.type === 'Change' && e.field_name === 'status');
  if (change === undefined) return null;
  const was = CLOSED_STATUSES.has(String(change.previous_value ?? ''));
  const is = CLOSED_STATUSES.has(String(change.value ?? ''));
  return is && !was ? 'closed' : was && !is ? 'reopened' : null;
}

export function ticketOf(parts: TicketParts): SeamTicket {
  const { ticket, audits, person } = parts;
  const comments = new Map(parts.comments.map((c) => [c.id, c]));
  const commentOf = (audit: Audit): Comment | null | undefined => {
    const event = audit.events.find((e) => isComment(e.type));
    if (event?.id == null) return null;
    return comments.get(event.id);
  };
  const opening = audits[0] === undefined ? undefined : commentOf(audits[0]);
  let complete = opening !== undefined;
  const entries: TicketEntry[] = [];
  for (let seq = 1; seq < audits.length && complete; seq++) {
    const audit = audits[seq]!;
    const comment = commentOf(audit);
    if (comment === undefined) {
      complete = false;
      break;
    }
    const statusChange = statusChangeOf(audit);
    if (comment === null && statusChange === null) continue;
    entries.push({
      id: comment ? String(comment.id) : `audit-${audit.id}`,
      seq,
      author: person(comment?.author_id ?? audit.author_id),
      createdAt: iso(comment?.created_at ?? audit.created_at),
      text: lf(comment?.body),
      private: comment ? !comment.public : false,
      statusChange,
      attachments: comment ? filesOf(comment) : [],
    });
  }
  const shown = opening?.public === true ? opening : undefined;
  return {
    id: String(ticket.id),
    webUrl: parts.webUrl,
    subject: ticket.subject ?? '',
    description: lf(shown?.body).trim(),
    author: person(ticket.requester_id),
    createdAt: iso(ticket.created_at),
    updatedAt: ticket.updated_at,
    settled: parts.settled && complete,
    closed: CLOSED_STATUSES.has(ticket.status),
    private: false,
    attachments: shown ? filesOf(shown) : [],
    entries,
  };
}
