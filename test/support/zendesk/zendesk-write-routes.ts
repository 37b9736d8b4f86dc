/**
 * The write routes of the counterpart (each path with or without `.json`):
 *
 *   POST /api/v2/tickets        agents; {"ticket": {subject, comment: {body, public, author_id, uploads}, requester_id, status, brand_id, group_id}} → 201 {ticket, audit}
 *   PUT  /api/v2/tickets/{id}   agents; {"ticket": {comment: {…}, status}} → 200 {ticket, audit}
 *   POST /api/v2/uploads?filename=…[&token=…]  anyone signed in; the raw bytes, typed by Content-Type → 201 {upload: {token, expires_at, attachment, attachments}}
 *
 * (https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/#update-ticket,
 * https://developer.zendesk.com/api-reference/ticketing/tickets/ticket-attachments/#upload-files,
 * https://developer.zendesk.com/documentation/ticketing/managing-tickets/adding-ticket-attachments-with-the-api/)
 *
 * The rules (blank comments, statuses, a closed ticket, upload tokens) are the
 * store's; a body that is not a `ticket` object is a 400, an upload past the
 * size limit a 422.
 */
import { invalidValue, recordInvalid, unauthenticated } from './zendesk-errors.ts';
import { iso } from './zendesk-json.ts';
import { agent, type Call, type Desk, type Route } from './zendesk-routes.ts';
import type { TicketInput, ZdAudit, ZdTicket } from './zendesk-store.ts';

function ticketInput(call: Call): TicketInput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.body.toString('utf8'));
  } catch {
    throw invalidValue('The request body is not valid JSON');
  }
  const ticket = (parsed as { ticket?: unknown } | null)?.ticket;
  if (ticket === null || typeof ticket !== 'object' || Array.isArray(ticket)) throw invalidValue('Expected a "ticket" object in the request body');
  const comment = (ticket as { comment?: unknown }).comment;
  if (comment !== undefined && (comment === null || typeof comment !== 'object' || Array.isArray(comment))) throw recordInvalid('comment', 'Comment: is invalid');
  return ticket as TicketInput;
}

const changed = (desk: Desk, made: { ticket: ZdTicket; audit: ZdAudit }) => ({ ticket: desk.json.ticket(made.ticket), audit: desk.json.audit(made.audit) });

export const writeRoutes: Route[] = [
  {
    method: 'POST',
    pattern: /^\/api\/v2\/tickets(?:\.json)?$/,
    handle(call, desk) {
      const made = desk.store.create(agent(call), ticketInput(call));
      return { status: 201, body: changed(desk, made), headers: { location: `${desk.root}/api/v2/tickets/${made.ticket.id}.json` } };
    },
  },
  {
    method: 'PUT',
    pattern: /^\/api\/v2\/tickets\/(\d+)(?:\.json)?$/,
    handle(call, desk) {
      const actor = agent(call);
      return { status: 200, body: changed(desk, desk.store.update(actor, Number(call.params[0]), ticketInput(call))) };
    },
  },
  {
    method: 'POST',
    pattern: /^\/api\/v2\/uploads(?:\.json)?$/,
    handle(call, desk) {
      if (!call.user) throw unauthenticated();
      const filename = call.query.get('filename') ?? '';
      if (filename.trim() === '') throw invalidValue('The filename parameter is required');
      if (call.body.length === 0) throw recordInvalid('base', 'Attachment: the file is empty');
      if (call.body.length > desk.maxUploadBytes) throw recordInvalid('base', `Attachment: file size exceeds the limit of ${Math.round(desk.maxUploadBytes / 1_048_576)} MB`);
      const contentType = (call.headers['content-type'] ?? 'application/binary').split(';')[0]!.trim();
      const { token, file } = desk.store.upload(filename, contentType, call.body, call.query.get('token') ?? undefined);
      const upload = desk.store.uploads.get(token)!;
      const attachments = upload.fileIds.map((id) => desk.json.attachment(desk.store.files.get(id)!));
      return { status: 201, body: { upload: { token, expires_at: iso(upload.expiresAt), attachments, attachment: desk.json.attachment(file) } } };
    },
  },
];
