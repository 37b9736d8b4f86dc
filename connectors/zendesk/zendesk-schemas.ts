/**
 * The shapes of Zendesk's answers the adapter reads (Support API v2), only the
 * fields it uses; anything else Zendesk sends is ignored. An answer that does
 * not fit is a malformed `TicketSystemError` naming where (parseAnswer).
 */
import { z } from 'zod';

const id = z.number().int();
const time = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { error: 'expected an ISO 8601 time' });

/** A user; `/users/me` answers `id: null` for a request it took as anonymous. */
export const User = z.object({
  id: id.nullable(),
  name: z.string().nullish(),
  email: z.string().nullish(),
  role: z.string().nullish(),
});
export const Me = z.object({ user: User });
export const Users = z.object({ users: z.array(User.extend({ id })) });

export const Attachment = z.object({
  id,
  file_name: z.string(),
  content_url: z.string(),
  content_type: z.string().nullish(),
  size: z.number().int().nonnegative(),
  inline: z.boolean().nullish(),
  deleted: z.boolean().nullish(),
});
export type Attachment = z.output<typeof Attachment>;

export const Comment = z.object({
  id,
  author_id: id,
  body: z.string().nullish(),
  public: z.boolean(),
  attachments: z.array(Attachment).default([]),
  audit_id: id.nullish(),
  created_at: time,
});
export type Comment = z.output<typeof Comment>;

/** An event of an audit: a `Comment`, a `Create` or `Change` of a field (`status`), or any other kind, ignored. */
export const AuditEvent = z.object({
  id: id.nullish(),
  type: z.string(),
  field_name: z.string().nullish(),
  value: z.unknown().optional(),
  previous_value: z.unknown().optional(),
});

export const Audit = z.object({
  id,
  created_at: time,
  author_id: id,
  events: z.array(AuditEvent),
});
export type Audit = z.output<typeof Audit>;

export const Ticket = z.object({
  id,
  subject: z.string().nullish(),
  status: z.string(),
  requester_id: id,
  brand_id: id.nullish(),
  group_id: id.nullish(),
  created_at: time,
  updated_at: time,
});
export type Ticket = z.output<typeof Ticket>;
export const ShowTicket = z.object({ ticket: Ticket });

/** Cursor pagination (`page[size]`): `meta.has_more` and `meta.after_cursor` say where the next page starts. */
const CursorMeta = z.object({ meta: z.object({ has_more: z.boolean(), after_cursor: z.string().nullish() }) });
export const CommentPage = CursorMeta.extend({ comments: z.array(Comment), users: z.array(User.extend({ id })).default([]) });
export const AuditPage = CursorMeta.extend({ audits: z.array(Audit) });

/** A page of the incremental ticket export, cursor based. */
export const ExportPage = z.object({
  tickets: z.array(Ticket.extend({ generated_timestamp: z.number().int() })),
  after_cursor: z.string().nullish(),
  end_of_stream: z.boolean(),
});

/** `PUT /tickets/{id}`: the ticket and the audit the change made (its `Comment` event is the new comment). */
export const TicketUpdate = z.object({ audit: Audit.pick({ id: true, events: true }) });

export const Upload = z.object({ upload: z.object({ token: z.string().min(1) }) });

export const Brand = z.object({ brand: z.object({ id, name: z.string().nullish() }) });
export const Group = z.object({ group: z.object({ id, name: z.string().nullish() }) });
