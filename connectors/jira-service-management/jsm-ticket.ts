/**
 * A customer request and its history as a `Ticket` (../ticket/ticket-adapter.ts):
 *
 *   the request (summary, description, reporter)   → the opening, with the files the reporter attached when raising it
 *   a public comment                               → a public entry with the files it references
 *   an internal comment                            → a private entry (agents only): never posted
 *   a status into the category Done                → statusChange 'closed'
 *   a status out of Done                           → statusChange 'reopened'
 *   a resolution set while the status is not Done  → statusChange 'closed' at its resolution date
 *   a file added later without a comment           → a private entry (its visibility is not told): never posted
 *
 * Jira appends the references of a comment's files to its body
 * (`!shot.png|thumbnail!`, `[^log.txt] _(32 kB)_`); they are cut from the
 * text, as the files are listed under it. Entries are ordered by time (a
 * comment before a status change of the same millisecond); `seq` is the
 * time in milliseconds times 1000 plus the place among entries of that
 * millisecond, so it grows along the history and interleaves comments and
 * status changes.
 */
import type { Ticket, TicketAttachment, TicketEntry, TicketPerson } from '../ticket/ticket-adapter.ts';
import type { AttachmentRow, CommentRow, IssueRow, RequestRow, StatusRow } from './jsm-schemas.ts';

/** Files the reporter attached this soon after raising the request go with the opening. */
export const OPENING_FILES_MS = 60_000;

export interface RequestParts {
  issue: IssueRow;
  request: RequestRow;
  /** Oldest first (the reference lists them newest first). */
  statuses: readonly StatusRow[];
  /** Each with all of its files. */
  comments: readonly CommentRow[];
  /** Every file of the request (the gateway's account is an agent: internal ones too). */
  attachments: readonly AttachmentRow[];
  /** The site root: where files are downloaded and the request is opened. */
  baseUrl: string;
  settled: boolean;
}

type Timed = { at: number; rank: number; order: number; entry: Omit<TicketEntry, 'seq'> };

export function personOf(user: { accountId?: string | null; displayName?: string | null; emailAddress?: string | null } | null | undefined): TicketPerson {
  const id = user?.accountId ?? 'unknown';
  return { id, name: user?.displayName?.trim() || id, ...(user?.emailAddress ? { email: user.emailAddress } : {}) };
}

/** A file's Jira id, from its REST link (`…/attachment/10000`) or its content link (`…/attachment/10000/name`). */
export function attachmentId(row: AttachmentRow): string | undefined {
  for (const link of [row._links.jiraRest, row._links.content]) {
    const id = link ? /\/attachment\/(\d+)(?:[/?]|$)/.exec(link)?.[1] : undefined;
    if (id !== undefined) return id;
  }
  return undefined;
}

export function attachmentOf(row: AttachmentRow, baseUrl: string): TicketAttachment {
  const id = attachmentId(row);
  return {
    id: id ?? row.filename,
    filename: row.filename,
    size: row.size,
    contentType: row.mimeType || 'application/octet-stream',
    // The bytes themselves (redirect=false), under the site root; Jira's default answer is a 303 to its media host.
    url: id !== undefined ? `${baseUrl}/rest/api/3/attachment/content/${id}?redirect=false` : (row._links.content ?? ''),
  };
}

export function ticketOf(parts: RequestParts): Ticket {
  const { issue, request, baseUrl } = parts;
  const issueId = issue.id;
  const reporter = personOf(request.reporter);
  const created = request.createdDate.epochMillis;
  const inComments = new Set(parts.comments.flatMap((c) => (c.attachments?.values ?? []).map((a) => attachmentId(a) ?? a.filename)));
  const opening: TicketAttachment[] = [];
  const timed: Timed[] = [];
  for (const row of parts.attachments) {
    const file = attachmentOf(row, baseUrl);
    if (inComments.has(file.id)) continue;
    const at = row.created?.epochMillis ?? created;
    const byReporter = row.author?.accountId == null || row.author.accountId === reporter.id;
    if (byReporter && at <= created + OPENING_FILES_MS) opening.push(file);
    else timed.push({ at, rank: 1, order: Number(file.id) || 0, entry: { id: `${issueId}-file-${file.id}`, author: personOf(row.author), createdAt: iso(at), text: '', private: true, statusChange: null, attachments: [file] } });
  }
  for (const c of parts.comments) {
    const files = (c.attachments?.values ?? []).map((a) => attachmentOf(a, baseUrl));
    const text = withoutFileReferences(c.body ?? '', files.map((f) => f.filename));
    timed.push({ at: c.created.epochMillis, rank: 0, order: Number(c.id), entry: { id: c.id, author: personOf(c.author), createdAt: iso(c.created.epochMillis), text, private: !c.public, statusChange: null, attachments: files } });
  }
  parts.statuses.forEach((s, i) => {
    if (i === 0) return;
    const was = isDone(parts.statuses[i - 1]!.statusCategory);
    const now = isDone(s.statusCategory);
    if (was === now) return;
    const at = s.statusDate.epochMillis;
    timed.push({ at, rank: 2, order: i, entry: { id: `${issueId}-status-${i}`, author: { id: 'jira', name: 'Jira' }, createdAt: iso(at), text: '', private: false, statusChange: now ? 'closed' : 'reopened', attachments: [] } });
  });
  const doneNow = issue.fields.status?.statusCategory?.key?.toLowerCase() === 'done';
  const resolved = issue.fields.resolution != null;
  if (resolved && !doneNow && issue.fields.resolutiondate) {
    const at = Date.parse(issue.fields.resolutiondate);
    timed.push({ at, rank: 2, order: Number.MAX_SAFE_INTEGER, entry: { id: `${issueId}-resolved-${at}`, author: { id: 'jira', name: 'Jira' }, createdAt: iso(at), text: '', private: false, statusChange: 'closed', attachments: [] } });
  }
  timed.sort((a, b) => a.at - b.at || a.rank - b.rank || a.order - b.order);
  const entries: TicketEntry[] = [];
  let place = 0;
  timed.forEach((t, i) => {
    place = i > 0 && timed[i - 1]!.at === t.at ? place + 1 : 0;
    entries.push({ ...t.entry, seq: t.at * 1000 + Math.min(place, 999) });
  });
  const field = (id: string) => request.requestFieldValues.find((f) => f.fieldId === id)?.value;
  return {
    id: issueId,
    webUrl: request._links.agent || `${baseUrl}/browse/${issue.key}`,
    subject: textValue(field('summary')) || (issue.fields.summary ?? ''),
    description: textValue(field('description')).replace(/\r\n?/g, '\n'),
    author: reporter,
    createdAt: iso(created),
    updatedAt: issue.fields.updated,
    settled: parts.settled,
    closed: doneNow || resolved,
    private: false,
    attachments: opening,
    entries,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const isDone = (category: string | null | undefined) => category?.toUpperCase() === 'DONE';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The comment's text without the references Jira appended for its files (`!name|thumbnail!`, `[^name] _(32 kB)_`). */
export function withoutFileReferences(body: string, filenames: readonly string[]): string {
  let text = body.replace(/\r\n?/g, '\n');
  for (const name of filenames) {
    const n = escape(name);
    text = text.replace(new RegExp(`[ \\t]*(?:!${n}(?:\\|[^!\\n]*)?!|\\[\\^${n}\\])(?:[ \\t]*_\\([^)\\n]*\\)_)?`, 'g'), '');
  }
  return text.replace(/[ \t]+$/gm, '').trim();
}

/** A request field's value as text: a string, or the text of an Atlassian Document Format value. */
function textValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return '';
  const node = value as { type?: string; text?: string; content?: unknown[] };
  if (typeof node.text === 'string') return node.text;
  const inner = (node.content ?? []).map(textValue);
  return node.type === 'doc' || node.type === 'bulletList' || node.type === 'orderedList' ? inner.join('\n') : inner.join('');
}
