/**
 * A Redmine issue, read with `include=journals,attachments`, as a `Ticket`:
 * its journals are the entries (oldest first), and its files are split
 * between the opening and the journals that added them.
 *
 *   issue.attachments ──┬── named by a journal's detail {property: attachment, name: <id>} ──▶ that entry's files
 *                       └── named by none, uploaded with the issue ─────────────────────────▶ the opening's files
 *
 * A private note with files is split by Redmine 5 (`Journal#split_private_notes`)
 * into a public journal with the files (no notes) and, right after it, the
 * private journal with the text, by the same user at the same `created_on`.
 * Such files are taken as the private note's: never posted, as its text
 * (fail closed, though Redmine lists them to everyone who sees the issue).
 *
 * A file named by no journal the gateway can see and uploaded well after the
 * issue was created came with a change the gateway's user cannot see (a
 * private note hidden from it): it is left out, not posted with the opening.
 * A file deleted from the issue is in no list: it is not posted.
 *
 * A journal that sets `status_id` to a status with `is_closed` closed the
 * ticket; one that leaves such a status reopened it.
 */
import type { z } from 'zod';
import type { Attachment, Detail, Issue } from './redmine-schemas.ts';
import type { Ticket, TicketAttachment, TicketEntry } from '../ticket/ticket-adapter.ts';

/** A file not named by any journal belongs to the opening only when uploaded at most this long after the issue was created. */
export const CREATION_WINDOW_MS = 60_000;

export interface IssueReading {
  /** The Redmine url (the issue's web address is under it). */
  baseUrl: string;
  /** Ids of the statuses with `is_closed`. */
  closedStatuses: ReadonlySet<number>;
  /** Whether a later change is sure to carry another `updated_on` (see `Ticket.settled`). */
  settled: boolean;
}

type RedmineIssue = z.output<typeof Issue>;

/** The status ids the issue's journals name (to reload the statuses when one is unknown). */
export function statusIdsOf(issue: RedmineIssue): number[] {
  return (issue.journals ?? []).flatMap((j) => j.details.filter(isStatus).flatMap((d) => [d.old_value, d.new_value])).filter((s) => s != null).map(Number);
}

export function ticketOfIssue(issue: RedmineIssue, reading: IssueReading): Ticket {
  const files = new Map((issue.attachments ?? []).map((a) => [String(a.id), attachmentOf(a)]));
  const named = new Set<string>();
  const journals = [...(issue.journals ?? [])].sort((a, b) => a.id - b.id);
  const added = journals.map((j) => {
    const details = j.details.filter((d) => d.property === 'attachment');
    for (const d of details) named.add(d.name);
    return details.filter((d) => d.new_value != null).flatMap((d) => files.get(d.name) ?? []);
  });
  journals.forEach((j, i) => {
    if (splitFrom(j, journals[i + 1])) [added[i], added[i + 1]] = [[], [...added[i + 1]!, ...added[i]!]];
  });
  const entries = journals.map((j, i): TicketEntry => {
    const status = j.details.find(isStatus);
    const wasClosed = status?.old_value != null && reading.closedStatuses.has(Number(status.old_value));
    const isClosed = status?.new_value != null && reading.closedStatuses.has(Number(status.new_value));
    return {
      id: `journal-${j.id}`,
      seq: j.id,
      author: { id: String(j.user.id), name: j.user.name },
      createdAt: j.created_on,
      text: lf(j.notes ?? ''),
      private: j.private_notes,
      statusChange: status === undefined || wasClosed === isClosed ? null : isClosed ? 'closed' : 'reopened',
      attachments: added[i]!,
    };
  });
  const createdMs = Date.parse(issue.created_on);
  const opening = (issue.attachments ?? [])
    .filter((a) => !named.has(String(a.id)))
    .filter((a) => a.created_on === undefined || !(Date.parse(a.created_on) > createdMs + CREATION_WINDOW_MS))
    .map((a) => files.get(String(a.id))!);
  return {
    id: String(issue.id),
    webUrl: `${reading.baseUrl}/issues/${issue.id}`,
    subject: issue.subject,
    description: lf(issue.description ?? ''),
    author: { id: String(issue.author.id), name: issue.author.name },
    createdAt: issue.created_on,
    updatedAt: issue.updated_on,
    settled: reading.settled,
    closed: issue.status.is_closed ?? reading.closedStatuses.has(issue.status.id),
    private: issue.is_private,
    attachments: opening,
    entries,
  };
}

type RedmineJournal = NonNullable<RedmineIssue['journals']>[number];

/** Whether `j` is the public half Redmine split off the private note `next` (its changes; the text went private). */
function splitFrom(j: RedmineJournal, next: RedmineJournal | undefined): boolean {
  return (
    next !== undefined &&
    !j.private_notes &&
    (j.notes ?? '').trim() === '' &&
    next.private_notes &&
    (next.notes ?? '').trim() !== '' &&
    next.user.id === j.user.id &&
    next.created_on === j.created_on
  );
}

function attachmentOf(a: z.output<typeof Attachment>): TicketAttachment {
  return {
    id: String(a.id),
    filename: a.filename,
    size: a.filesize,
    contentType: a.content_type?.trim() || 'application/octet-stream',
    url: a.content_url ?? '',
  };
}

/** Redmine keeps text as typed in a browser form, with CRLF line ends. */
const lf = (text: string) => text.replace(/\r\n?/g, '\n');

function isStatus(d: z.infer<typeof Detail>): boolean {
  return d.property === 'attr' && d.name === 'status_id';
}
