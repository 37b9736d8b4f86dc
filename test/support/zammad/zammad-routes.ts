/**
 * The paths the Zammad counterpart answers, as Zammad's REST API v1 does
 * (https://github.com/zammad/zammad/blob/develop/config/routes/ticket.rb and
 * the reference pages named in zammad-model.ts and zammad-store.ts):
 *
 *   GET  /api/v1/users/me                       GET /api/v1/users/{id}
 *   GET  /api/v1/ticket_states                  GET /api/v1/tickets/search (zammad-search.ts)
 *   GET  /api/v1/tickets/{id}                   POST /api/v1/tickets          PUT /api/v1/tickets/{id}
 *   GET  /api/v1/ticket_articles/by_ticket/{id} GET /api/v1/ticket_articles/{id}  POST /api/v1/ticket_articles
 *   GET  /api/v1/ticket_attachment/{ticket_id}/{article_id}/{id}
 *   GET  /api/v1/ticket_history/{id}            (the web app's route; its state changes only)
 *
 * `?expand=true` adds the names of related records, as the reference shows.
 * Fields Zammad does not know are dropped, as its `param_cleanup` does;
 * values it cannot take are 422.
 */
import { forbidden, notFound, unprocessable } from './zammad-errors.ts';
import { articleJson, historyJson, stateJson, ticketJson, userJson, type ZArticle, type ZTicket, type ZUser } from './zammad-model.ts';
import { namesOf, searchTickets } from './zammad-search.ts';
import type { ArticleInput, ZammadStore } from './zammad-store.ts';

export interface RouteInput {
  store: ZammadStore;
  actor: ZUser;
  params: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, unknown>;
  searchErrors: string[];
}

export type RouteAnswer = { status: number; json: unknown } | { status: number; bytes: Buffer; headers: Record<string, string> };

type Handler = (input: RouteInput) => RouteAnswer;

const ok = (json: unknown, status = 200): RouteAnswer => ({ status, json });
const idOf = (text: string | undefined) => (/^\d+$/.test(text ?? '') ? Number(text) : Number.NaN);
const expand = (q: Record<string, string>) => q.expand === 'true';

function ticketOut(store: ZammadStore, actor: ZUser, t: ZTicket, withNames: boolean) {
  return ticketJson(t, withNames ? namesOf(store, t) : undefined, store.visibleArticles(actor, t).map((a) => a.id));
}

const articleOut = (store: ZammadStore, a: ZArticle) => articleJson(a, store.user(a.created_by_id).login);

function articleOf(store: ZammadStore, actor: ZUser, id: number): ZArticle {
  const article = store.articles.find((a) => a.id === id);
  if (!article) throw notFound('Ticket::Article', id);
  const ticket = store.ticket(actor, article.ticket_id);
  if (!store.visibleArticles(actor, ticket).includes(article)) throw forbidden();
  return article;
}

const ROUTES: [string, RegExp, Handler][] = [
  ['GET', /^\/api\/v1\/users\/me$/, ({ store, actor, query }) => ok(userJson(actor, expand(query), store.groups))],
  [
    'GET',
    /^\/api\/v1\/users\/(?<id>[^/]+)$/,
    ({ store, actor, params, query }) => {
      const user = store.user(idOf(params.id));
      if (!store.isAgent(actor) && user.id !== actor.id) throw forbidden();
      return ok(userJson(user, expand(query), store.groups));
    },
  ],
  [
    'GET',
    /^\/api\/v1\/ticket_states$/,
    ({ store, query }) => {
      const perPage = Math.min(Number(query.per_page ?? query.limit ?? 500) || 500, 1000);
      const page = Math.max(Number(query.page ?? 1) || 1, 1);
      return ok(store.states.slice((page - 1) * perPage, page * perPage).map((s) => stateJson(s, expand(query))));
    },
  ],
  ['GET', /^\/api\/v1\/tickets\/search$/, ({ store, actor, query, searchErrors }) => ok(searchTickets(store, actor, query, searchErrors))],
  ['GET', /^\/api\/v1\/tickets\/(?<id>[^/]+)$/, ({ store, actor, params, query }) => ok(ticketOut(store, actor, store.ticket(actor, idOf(params.id)), expand(query)))],
  [
    'POST',
    /^\/api\/v1\/tickets$/,
    ({ store, actor, body, query }) => {
      const article = body.article as ArticleInput | undefined;
      if (article !== undefined && (typeof article !== 'object' || article === null)) throw unprocessable('Need at least article: { body: "some text" }');
      const ticket = store.createTicket(actor, { title: body.title, group: body.group, group_id: body.group_id, customer_id: body.customer_id, state: body.state, ...(article ? { article } : {}) });
      return ok(ticketOut(store, actor, ticket, expand(query)), 201);
    },
  ],
  [
    'PUT',
    /^\/api\/v1\/tickets\/(?<id>[^/]+)$/,
    ({ store, actor, params, body, query }) => {
      const ticket = store.ticket(actor, idOf(params.id));
      const article = body.article as ArticleInput | undefined;
      store.updateTicket(actor, ticket, { state: body.state, title: body.title, ...(article ? { article } : {}) });
      return ok(ticketOut(store, actor, ticket, expand(query)));
    },
  ],
  [
    'GET',
    /^\/api\/v1\/ticket_articles\/by_ticket\/(?<id>[^/]+)$/,
    ({ store, actor, params }) => ok(store.visibleArticles(actor, store.ticket(actor, idOf(params.id))).map((a) => articleOut(store, a))),
  ],
  ['GET', /^\/api\/v1\/ticket_articles\/(?<id>[^/]+)$/, ({ store, actor, params }) => ok(articleOut(store, articleOf(store, actor, idOf(params.id))))],
  [
    'POST',
    /^\/api\/v1\/ticket_articles$/,
    ({ store, actor, body }) => {
      const ticket = store.ticket(actor, idOf(String(body.ticket_id ?? '')));
      return ok(articleOut(store, store.addArticle(actor, ticket, body as ArticleInput)), 201);
    },
  ],
  [
    'GET',
    /^\/api\/v1\/ticket_attachment\/(?<ticket>[^/]+)\/(?<article>[^/]+)\/(?<id>[^/]+)$/,
    ({ store, actor, params }) => {
      const ticket = store.ticket(actor, idOf(params.ticket));
      const article = store.articles.find((a) => a.id === idOf(params.article));
      if (!article) throw notFound('Ticket::Article', params.article);
      if (article.ticket_id !== ticket.id) throw forbidden('The article does not belong to the specified ticket.');
      if (!store.visibleArticles(actor, ticket).includes(article)) throw forbidden();
      const file = article.attachments.find((f) => f.id === idOf(params.id));
      if (!file) throw forbidden('The file does not belong to the specified article.');
      const type = file.preferences['Content-Type'] ?? file.preferences['Mime-Type'] ?? 'application/octet-stream';
      return { status: 200, bytes: file.data, headers: { 'content-type': type, 'content-disposition': `attachment; filename="${encodeURIComponent(file.filename)}"` } };
    },
  ],
  [
    'GET',
    /^\/api\/v1\/ticket_history\/(?<id>[^/]+)$/,
    ({ store, actor, params }) => {
      const ticket = store.ticket(actor, idOf(params.id));
      return ok({ history: store.history.filter((h) => h.o_id === ticket.id).map(historyJson), assets: {} });
    },
  ],
];

/** The handler of `method path`, with its path parameters; undefined when no route matches. */
export function route(method: string, path: string): { handler: Handler; params: Record<string, string> } | undefined {
  for (const [m, pattern, handler] of ROUTES) {
    const match = m === method ? pattern.exec(path) : null;
    if (match) return { handler, params: { ...match.groups } };
  }
  return undefined;
}
