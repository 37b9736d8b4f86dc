/**
 * What a route of the counterpart is given and answers, and the read routes
 * of the Support API it serves (each path with or without `.json`):
 *
 *   GET /api/v2/users/me                        anyone (anonymous: the anonymous user)
 *   GET /api/v2/users/show_many?ids=1,2         agents (at most 100 ids)
 *   GET /api/v2/brands/{id}, /api/v2/groups/{id} agents
 *   GET /api/v2/tickets/{id}                    agents
 *   GET /api/v2/tickets/{id}/comments           agents; paged (zendesk-pages.ts); include=users sideloads authors
 *   GET /api/v2/tickets/{id}/audits             agents; paged
 *
 * (https://developer.zendesk.com/api-reference/ticketing/users/users/,
 * …/tickets/tickets/, …/tickets/ticket_comments/, …/tickets/ticket_audits/,
 * …/account-configuration/brands/, …/groups/groups/)
 */
import type { IncomingHttpHeaders } from 'node:http';
import { forbidden, invalidValue, notFound } from './zendesk-errors.ts';
import type { ZendeskJson } from './zendesk-json.ts';
import { page } from './zendesk-pages.ts';
import type { Clock, ZdUser, ZendeskStore } from './zendesk-store.ts';

export interface Desk {
  store: ZendeskStore;
  json: ZendeskJson;
  clock: Clock;
  /** The account's address (its API is under /api/v2). */
  root: string;
  /** The other host the files are served from. */
  filesUrl: string;
  /** How long the incremental export leaves a change out (Zendesk: a minute). */
  exportLagMs: number;
  /** Whether `content_url` wants the caller signed in (Zendesk's "private attachments"). */
  privateAttachments: boolean;
  /** The largest upload taken (Zendesk: 50 MB). */
  maxUploadBytes: number;
  /** A short-lived signed path of a file on the files host. */
  signedPath(fileId: number): string;
}

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  params: string[];
  user: ZdUser | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Bytes sent as they are (a web page, a redirect's body), instead of JSON. */
  raw?: Buffer;
}

export interface Route {
  method: string;
  pattern: RegExp;
  /** Answered without credentials too. */
  anonymous?: boolean;
  /** Counted against the incremental exports' own limit as well. */
  exportLimit?: boolean;
  handle(call: Call, desk: Desk): Answer;
}

const json = (body: unknown, status = 200): Answer => ({ status, body });

/** The caller, who must be an agent or admin. */
export function agent(call: Call): ZdUser {
  if (!call.user || call.user.role === 'end-user') throw forbidden();
  return call.user;
}

const ticketOf = (call: Call, desk: Desk) => desk.store.ticket(Number(call.params[0]));

export const readRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/api\/v2\/users\/me(?:\.json)?$/,
    anonymous: true,
    handle: (call, desk) => json({ user: call.user ? desk.json.user(call.user) : desk.json.anonymous() }),
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/users\/show_many(?:\.json)?$/,
    handle(call, desk) {
      agent(call);
      const ids = (call.query.get('ids') ?? '').split(',').filter((s) => s !== '');
      if (ids.length === 0 || ids.some((s) => !/^\d+$/.test(s))) throw invalidValue('ids must be a comma-separated list of user ids');
      if (ids.length > 100) throw invalidValue('at most 100 ids are allowed');
      const users = ids.map((id) => desk.store.users.get(Number(id))).filter((u): u is ZdUser => u !== undefined);
      return json({ users: users.map((u) => desk.json.user(u)) });
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/brands\/(\d+)(?:\.json)?$/,
    handle(call, desk) {
      agent(call);
      const name = desk.store.brands.get(Number(call.params[0]));
      if (name === undefined) throw notFound();
      return json({ brand: { id: Number(call.params[0]), name, active: true, default: Number(call.params[0]) === desk.store.defaultBrand } });
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/groups\/(\d+)(?:\.json)?$/,
    handle(call, desk) {
      agent(call);
      const name = desk.store.groups.get(Number(call.params[0]));
      if (name === undefined) throw notFound();
      return json({ group: { id: Number(call.params[0]), name, deleted: false } });
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/tickets\/(\d+)(?:\.json)?$/,
    handle(call, desk) {
      agent(call);
      return json({ ticket: desk.json.ticket(ticketOf(call, desk)) });
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/tickets\/(\d+)\/comments(?:\.json)?$/,
    handle(call, desk) {
      agent(call);
      const ticket = ticketOf(call, desk);
      const comments = ticket.commentIds.map((id) => desk.json.comment(desk.store.comments.get(id)!));
      const answer = page('comments', comments, call.query, `${desk.root}/api/v2/tickets/${ticket.id}/comments.json`);
      if ((call.query.get('include') ?? '').split(',').includes('users')) {
        const ids = new Set((answer.comments as { author_id: number }[]).map((c) => c.author_id));
        answer.users = [...ids].map((id) => desk.store.users.get(id)).filter((u): u is ZdUser => u !== undefined).map((u) => desk.json.user(u));
      }
      return json(answer);
    },
  },
  {
    method: 'GET',
    pattern: /^\/api\/v2\/tickets\/(\d+)\/audits(?:\.json)?$/,
    handle(call, desk) {
      agent(call);
      const ticket = ticketOf(call, desk);
      const audits = ticket.auditIds.map((id) => desk.json.audit(desk.store.audits.get(id)!));
      return json(page('audits', audits, call.query, `${desk.root}/api/v2/tickets/${ticket.id}/audits.json`));
    },
  },
];
