/**
 * `GET /api/v1/tickets/search` of the Zammad counterpart, after
 *
 *   https://docs.zammad.org/en/latest/api/ticket/index.html#search       (query, the answer's `tickets`, `tickets_count`, `assets`)
 *   https://docs.zammad.org/en/latest/api/intro.html#pagination          (`page`, `per_page`; no total is told)
 *   https://docs.zammad.org/en/latest/api/intro.html#sorting-search-results  (`sort_by`, `order_by` asc|desc)
 *   https://user-docs.zammad.org/en/latest/advanced/search.html          (`field:value`, `group.name`, `state.name`, ranges `[a TO b]`, AND)
 *   https://github.com/zammad/zammad/blob/develop/app/models/concerns/can_search.rb
 *       (every `*` is deleted from the query; a blank query reads the database; page size 50, at most 200)
 *   https://github.com/zammad/zammad/blob/develop/lib/search_index_backend.rb
 *       (a query Elasticsearch refuses is logged and answered with no tickets, 200)
 *
 * A query reads the index: each ticket as it was `indexLagMs` ago (its
 * `updated_at` may be older than the database's, or the ticket not there
 * yet). The subset of Elasticsearch's query_string understood here: clauses
 * joined by AND, each `field:value`, `field:"quoted"`, `field:[a TO b]` or
 * `{a TO b}` (inclusive, exclusive), `field:>=a` (colons escaped `\:`). A
 * field the index does not have matches nothing; anything else
 * (an unescaped colon in a value, OR, a bad date) is a refused query:
 * recorded in `searchErrors` and answered, as Zammad does, with no tickets.
 */
import { ticketJson, type ZIndexed, type ZTicket, type ZUser } from './zammad-model.ts';
import type { ZammadStore } from './zammad-store.ts';

type Value = { kind: 'term'; text: string } | { kind: 'range'; low?: string; high?: string; lowIn: boolean; highIn: boolean };
interface Clause {
  field: string;
  value: Value;
}

class QueryError extends Error {}

const CLAUSE = /^([a-z_.]+):(?:"((?:[^"\\]|\\.)*)"|([[{])\s*(\S+)\s+TO\s+(\S+)\s*([\]}])|(>=|<=|>|<)((?:[^\s\\:]|\\.)+)|((?:[^\s\\:"]|\\.)+))$/;

export function parseQuery(query: string): Clause[] {
  const parts = query.trim().split(/\s+AND\s+/);
  return parts.map((part) => {
    if (/\s(OR|NOT)\s/.test(part) || part.startsWith('(')) throw new QueryError(`unsupported: ${part}`);
    const m = CLAUSE.exec(part.trim());
    if (!m) throw new QueryError(`Failed to parse query [${part}]`);
    const unescape = (s: string) => s.replace(/\\(.)/g, '$1');
    const field = m[1]!;
    if (m[2] !== undefined) return { field, value: { kind: 'term', text: unescape(m[2]) } };
    if (m[3] !== undefined) return { field, value: { kind: 'range', low: m[4] === '*' ? undefined : m[4], high: m[5] === '*' ? undefined : m[5], lowIn: m[3] === '[', highIn: m[6] === ']' } };
    if (m[7] !== undefined) {
      const v = unescape(m[8]!);
      return { field, value: m[7].startsWith('>') ? { kind: 'range', low: v, lowIn: m[7] === '>=', highIn: true } : { kind: 'range', high: v, lowIn: true, highIn: m[7] === '<=' } };
    }
    return { field, value: { kind: 'term', text: unescape(m[9]!) } };
  });
}

const DATE_FIELDS = new Set(['updated_at', 'created_at']);
const SORTABLE = new Set(['updated_at', 'created_at', 'id', 'number', 'title']);

export interface SearchParams {
  query?: string;
  sort_by?: string;
  order_by?: string;
  page?: string;
  per_page?: string;
  limit?: string;
  expand?: string;
}

export function searchTickets(store: ZammadStore, actor: ZUser, params: SearchParams, errors: string[]): unknown {
  const limit = Math.min(Number(params.per_page ?? params.limit ?? 50) || 50, 200);
  const page = Math.max(Number(params.page ?? 1) || 1, 1);
  const query = (params.query ?? '').replace(/\*/g, '').trim();
  const now = store.now();
  const readable = store.tickets.filter((t) => store.canRead(actor, t));
  // A blank query reads the database; any other one the index, as it was indexLagMs ago.
  const rows: { ticket: ZTicket; view: ZIndexed }[] = [];
  for (const ticket of readable) {
    const view = query === '' ? { at: now, updated_at: ticket.updated_at, group_id: ticket.group_id, state_id: ticket.state_id, title: ticket.title } : store.indexed(ticket, now);
    if (view) rows.push({ ticket, view });
  }
  let found: typeof rows;
  const sortBy = params.sort_by ?? 'updated_at';
  try {
    const clauses = query === '' ? [] : parseQuery(query);
    if (!SORTABLE.has(sortBy)) throw new QueryError(`No mapping found for [${sortBy}] in order to sort on`);
    found = rows.filter((row) => clauses.every((c) => matches(store, row.ticket, row.view, c)));
  } catch (err) {
    if (!(err instanceof QueryError)) throw err;
    errors.push(err.message);
    found = [];
  }
  const key = (row: (typeof rows)[number]): string | number => (sortBy === 'updated_at' ? row.view.updated_at : sortBy === 'title' ? row.view.title : sortBy === 'number' ? row.ticket.number : sortBy === 'id' ? row.ticket.id : row.ticket.created_at);
  const direction = (params.order_by ?? 'desc').toLowerCase() === 'asc' ? 1 : -1;
  found.sort((a, b) => (key(a) < key(b) ? -direction : key(a) > key(b) ? direction : a.ticket.id - b.ticket.id));
  const pageRows = found.slice((page - 1) * limit, page * limit).map((r) => r.ticket);
  if (params.expand === 'true') return pageRows.map((t) => ticketJson(t, namesOf(store, t)));
  const users: Record<string, unknown> = {};
  for (const t of pageRows) {
    const c = store.user(t.customer_id);
    users[String(c.id)] = { id: c.id, login: c.login, firstname: c.firstname, lastname: c.lastname, email: c.email };
  }
  return {
    tickets: pageRows.map((t) => t.id),
    tickets_count: pageRows.length,
    assets: { Ticket: Object.fromEntries(pageRows.map((t) => [String(t.id), ticketJson(t)])), User: users },
  };
}

export function namesOf(store: ZammadStore, t: ZTicket) {
  return {
    group: store.groups.find((g) => g.id === t.group_id)?.name ?? '',
    state: store.states.find((s) => s.id === t.state_id)?.name ?? '',
    customer: store.user(t.customer_id).login,
    owner: store.user(t.owner_id).login,
  };
}

function matches(store: ZammadStore, ticket: ZTicket, view: ZIndexed, clause: Clause): boolean {
  const { field, value } = clause;
  if (DATE_FIELDS.has(field)) {
    const at = Date.parse(field === 'updated_at' ? view.updated_at : ticket.created_at);
    if (value.kind === 'term') return at === date(value.text);
    const low = value.low === undefined ? -Infinity : date(value.low);
    const high = value.high === undefined ? Infinity : date(value.high);
    return (value.lowIn ? at >= low : at > low) && (value.highIn ? at <= high : at < high);
  }
  const text: Record<string, string | undefined> = {
    'group.name': store.groups.find((g) => g.id === view.group_id)?.name,
    group_id: String(view.group_id),
    'state.name': store.states.find((s) => s.id === view.state_id)?.name,
    state_id: String(view.state_id),
    title: view.title,
    number: ticket.number,
    id: String(ticket.id),
    customer_id: String(ticket.customer_id),
  };
  const have = text[field];
  if (have === undefined || value.kind !== 'term') return false;
  // Keyword fields match exactly (case-insensitive, as Zammad's keyword normaliser); title by word.
  return field === 'title' ? have.toLowerCase().split(/\W+/).includes(value.text.toLowerCase()) : have.toLowerCase() === value.text.toLowerCase();
}

function date(text: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new QueryError(`failed to parse date field [${text}]`);
  return ms;
}
