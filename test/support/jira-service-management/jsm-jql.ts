/**
 * The JQL the counterpart's enhanced search understands, and the search:
 *
 *   project = HELP [AND updated|created >=|>|<=|< "<date>"]… [ORDER BY updated|created|key|id [ASC|DESC], …]
 *
 * Dates are read in the searching user's zone (jsm-time.ts). Anything else
 * is refused as Jira refuses it: 400 with `{"errorMessages": [...]}` — a
 * query without a search restriction ("Unbounded JQL queries are not
 * allowed here"), an unknown project or field, a date Jira cannot read.
 * Search sees each request as the index has it (`JsmStore.searchLagMs`).
 * `nextPageToken` is opaque (here: the query and an offset into the live
 * ordering, so a request changed between two pages shifts the others, the
 * worst the reference allows) and only good for the query it came with.
 */
import { DESK, type JsmIssue, type JsmStore } from './jsm-store.ts';
import { parseJqlDate } from './jsm-time.ts';

export class JqlError extends Error {}

type Clause = { field: 'updated' | 'created'; op: '>=' | '>' | '<=' | '<'; at: number };
type Order = { field: 'updated' | 'created' | 'key' | 'id'; desc: boolean };

const DATE_FORMATS = "Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.";

/** The query's clauses; throws `JqlError` with Jira's words. */
export function parseJql(jql: string, zone: string, now: number): { clauses: Clause[]; order: Order[] } {
  const [where = '', orderBy] = jql.split(/\s+ORDER\s+BY\s+/i);
  const order: Order[] = [];
  for (const part of (orderBy ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(updated|created|key|id)(?:\s+(ASC|DESC))?$/i.exec(part);
    if (!m) throw new JqlError(`Error in the JQL Query: Not able to sort using field '${part.split(/\s+/)[0]}'.`);
    order.push({ field: m[1]!.toLowerCase() as Order['field'], desc: (m[2] ?? 'ASC').toUpperCase() === 'DESC' });
  }
  if (where.trim() === '' || /^ORDER\s+BY/i.test(where.trim())) throw new JqlError('Unbounded JQL queries are not allowed here. Please add a search restriction to your query.');
  let project: string | undefined;
  const clauses: Clause[] = [];
  for (const raw of where.split(/\s+AND\s+/i)) {
    const m = /^\s*(\w+)\s*(=|>=|<=|>|<)\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))\s*$/.exec(raw);
    if (!m) throw new JqlError(`Error in the JQL Query: Expecting operator but got '${raw.trim()}'. (line 1, character ${jql.indexOf(raw.trim()) + 1})`);
    const [, name, op, ...values] = m;
    const field = name!.toLowerCase();
    const value = values.find((v) => v !== undefined)!;
    if (field === 'project') {
      if (op !== '=') throw new JqlError(`The operator '${op}' is not supported by the 'project' field.`);
      if (value.toUpperCase() !== DESK.projectKey && value !== DESK.projectId) throw new JqlError(`The value '${value}' does not exist for the field 'project'.`);
      project = value;
    } else if (field === 'updated' || field === 'created') {
      if (op === '=') throw new JqlError(`The operator '=' is not supported by the '${field}' field in this counterpart.`);
      const at = parseJqlDate(value, zone, now);
      if (at === undefined) throw new JqlError(`Date value '${value}' for field '${field}' is invalid. ${DATE_FORMATS}`);
      clauses.push({ field, op: op as Clause['op'], at });
    } else {
      throw new JqlError(`Field '${name}' does not exist or you do not have permission to view it.`);
    }
  }
  if (project === undefined) throw new JqlError('Unbounded JQL queries are not allowed here. Please add a search restriction to your query.');
  return { clauses, order };
}

const holds = (c: Clause, value: number) => (c.op === '>=' ? value >= c.at : c.op === '>' ? value > c.at : c.op === '<=' ? value <= c.at : value < c.at);

/** The requests a parsed query finds, as search sees them (with the `updated` the index has), in its order. */
export function searchIssues(store: JsmStore, query: ReturnType<typeof parseJql>): { issue: JsmIssue; updated: number }[] {
  const found: { issue: JsmIssue; updated: number }[] = [];
  for (const issue of store.issues.values()) {
    const updated = store.searchedUpdated(issue);
    if (updated === undefined) continue;
    if (query.clauses.every((c) => holds(c, c.field === 'updated' ? updated : issue.created))) found.push({ issue, updated });
  }
  const key = (x: { issue: JsmIssue; updated: number }, f: Order['field']) => (f === 'updated' ? x.updated : f === 'created' ? x.issue.created : x.issue.id);
  return found.sort((a, b) => {
    for (const o of query.order) {
      const d = key(a, o.field) - key(b, o.field);
      if (d !== 0) return o.desc ? -d : d;
    }
    return b.issue.id - a.issue.id;
  });
}

export const encodeToken = (jql: string, offset: number) => Buffer.from(JSON.stringify({ q: jql, o: offset })).toString('base64url');

/** The offset a `nextPageToken` stands for; throws for a token of another query or none at all. */
export function decodeToken(token: string, jql: string): number {
  try {
    const { q, o } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { q: unknown; o: unknown };
    if (q === jql && typeof o === 'number' && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // falls through
  }
  throw new JqlError('The provided next page token is invalid or expired.');
}
