/**
 * The `TicketAdapter` for Redmine (4.x/5.x REST API). An issue of the
 * configured project (and tracker) is a ticket; its journals are its entries.
 * Redmine's Debian version has no outgoing webhooks, so changes are found by
 * asking for issues with `updated_on >= since`, sorted by `updated_on`, all
 * pages; `>=` and a minute of overlap list a few issues again, which the
 * poller recognises by their unchanged `updated_on` and journal ids.
 *
 * The gateway's own notes are those of the API key's user (`/users/current`).
 * A journal that sets `status_id` to a status with `is_closed` closed the
 * ticket; one that leaves such a status reopened it.
 */
import { z } from 'zod';
import type { RedmineConnectorConfig } from './config.ts';
import { RedmineHttp } from './redmine-http.ts';
import { TicketSystemError, type ChangeList, type Ticket, type TicketAdapter, type TicketEntry, type TicketPerson } from './ticket-adapter.ts';

/** Issues whose change committed this long after its `updated_on` are still listed. */
export const OVERLAP_MS = 60_000;
const PAGE = 100;

const Person = z.looseObject({ id: z.number(), name: z.string().default('') });
const Detail = z.looseObject({ property: z.string(), name: z.string(), old_value: z.string().nullish(), new_value: z.string().nullish() });
const Journal = z.looseObject({
  id: z.number(),
  user: Person,
  notes: z.string().nullish(),
  created_on: z.string(),
  private_notes: z.boolean().default(false),
  details: z.array(Detail).default([]),
});
const Issue = z.looseObject({
  id: z.number(),
  subject: z.string().default(''),
  description: z.string().nullish(),
  author: Person,
  status: z.looseObject({ id: z.number(), is_closed: z.boolean().optional() }),
  created_on: z.string(),
  updated_on: z.string(),
  journals: z.array(Journal).optional(),
});
const IssueList = z.looseObject({
  issues: z.array(z.looseObject({ id: z.number(), updated_on: z.string() })),
  total_count: z.number().optional(),
});
const Statuses = z.looseObject({ issue_statuses: z.array(z.looseObject({ id: z.number(), is_closed: z.boolean().default(false) })) });
const Trackers = z.looseObject({ trackers: z.array(z.looseObject({ id: z.number(), name: z.string() })) });
const CurrentUser = z.looseObject({ user: z.looseObject({ id: z.number(), login: z.string().optional(), firstname: z.string().default(''), lastname: z.string().default('') }) });

/** Redmine's `>=` filter takes a UTC timestamp to the second. */
const redmineTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class RedmineAdapter implements TicketAdapter {
  readonly system = 'Redmine';
  readonly #http: RedmineHttp;
  readonly #config: RedmineConnectorConfig;
  readonly #keyBase: string;
  #self: TicketPerson | undefined;
  #trackerId: number | undefined;
  #closedStatuses = new Set<number>();
  #knownStatuses = new Set<number>();

  constructor(config: RedmineConnectorConfig) {
    this.#config = config;
    this.#http = new RedmineHttp(config.url, config.api_key, config.timeout_ms);
    const url = new URL(config.url);
    this.#keyBase = `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  }

  get host(): string {
    return this.#http.host;
  }

  async connect(signal: AbortSignal): Promise<TicketPerson> {
    const self = await this.#whoAmI(signal);
    await this.#http.get(`/projects/${encodeURIComponent(this.#config.project)}.json`, {}, signal).catch((err: unknown) => {
      if (err instanceof TicketSystemError && err.status === 404) {
        throw new TicketSystemError(`Redmine at ${this.host} has no project "${this.#config.project}" visible to the API key's user (404)`, { status: 404, answer: err.answer });
      }
      throw err;
    });
    await this.#loadStatuses(signal);
    this.#trackerId = await this.#resolveTracker(signal);
    return self;
  }

  /** The API key's user (needed to tell the gateway's own notes, also by a `deliver` before `connect`). */
  async #whoAmI(signal: AbortSignal): Promise<TicketPerson> {
    if (this.#self) return this.#self;
    const me = this.#parse(CurrentUser, (await this.#http.get('/users/current.json', {}, signal)).json, 'users/current');
    this.#self = { id: String(me.user.id), name: `${me.user.firstname} ${me.user.lastname}`.trim() || (me.user.login ?? '') };
    return this.#self;
  }

  async listChanges(since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
    const changes: ChangeList['changes'] = [];
    let roundStart: Date | undefined;
    for (let offset = 0; ; offset += PAGE) {
      const response = await this.#http.get('/issues.json', {
        project_id: this.#config.project,
        status_id: '*',
        tracker_id: this.#trackerId,
        updated_on: since === undefined ? undefined : `>=${since}`,
        sort: 'updated_on',
        offset,
        limit: since === undefined ? 1 : PAGE,
      }, signal);
      roundStart ??= response.date ?? new Date();
      if (since === undefined) break; // from now on: only Redmine's clock is wanted
      const page = this.#parse(IssueList, response.json, 'issues');
      for (const issue of page.issues) changes.push({ id: String(issue.id), updatedAt: issue.updated_on });
      if (page.issues.length < PAGE || offset + PAGE >= (page.total_count ?? Number.POSITIVE_INFINITY)) break;
    }
    return { changes, nextSince: redmineTime(roundStart.getTime() - OVERLAP_MS) };
  }

  async readTicket(id: string, signal: AbortSignal): Promise<Ticket> {
    await this.#whoAmI(signal);
    const body = (await this.#http.get(`/issues/${encodeURIComponent(id)}.json`, { include: 'journals' }, signal)).json as { issue?: unknown };
    const issue = this.#parse(Issue, body?.issue, `issues/${id}`);
    const journals = [...(issue.journals ?? [])].sort((a, b) => a.id - b.id);
    const statusIds = journals.flatMap((j) => j.details.filter(isStatus).flatMap((d) => [d.old_value, d.new_value]));
    if (statusIds.some((s) => s != null && !this.#knownStatuses.has(Number(s)))) await this.#loadStatuses(signal);
    const entries = journals.map((j): TicketEntry => {
      const status = j.details.find(isStatus);
      const wasClosed = status?.old_value != null && this.#closedStatuses.has(Number(status.old_value));
      const isClosed = status?.new_value != null && this.#closedStatuses.has(Number(status.new_value));
      return {
        id: `journal-${j.id}`,
        seq: j.id,
        author: { id: String(j.user.id), name: j.user.name },
        createdAt: j.created_on,
        text: lf(j.notes ?? ''),
        private: j.private_notes,
        statusChange: status === undefined || wasClosed === isClosed ? null : isClosed ? 'closed' : 'reopened',
      };
    });
    return {
      id: String(issue.id),
      webUrl: `${this.#http.baseUrl}/issues/${issue.id}`,
      subject: issue.subject,
      description: lf(issue.description ?? ''),
      author: { id: String(issue.author.id), name: issue.author.name },
      createdAt: issue.created_on,
      updatedAt: issue.updated_on,
      closed: issue.status.is_closed ?? this.#closedStatuses.has(issue.status.id),
      entries,
    };
  }

  async addNote(ticketId: string, note: { text: string; private: boolean }, signal: AbortSignal): Promise<{ entryId: string | undefined }> {
    // Redmine answers 204 without the journal: the caller finds it by reading the issue.
    await this.#http.put(`/issues/${encodeURIComponent(ticketId)}.json`, { issue: { notes: note.text, private_notes: note.private } }, signal);
    return { entryId: undefined };
  }

  isOwnEntry(entry: TicketEntry): boolean {
    return this.#self !== undefined && entry.author.id === this.#self.id;
  }

  threadKey(ticketId: string): string {
    return `${this.#keyBase}/issues/${ticketId}`;
  }

  ticketIdOf(threadKey: string): string | undefined {
    const prefix = `${this.#keyBase}/issues/`;
    if (!threadKey.startsWith(prefix)) return undefined;
    const id = threadKey.slice(prefix.length);
    return /^\d+$/.test(id) ? id : undefined;
  }

  senderId(person: TicketPerson): string {
    return `${this.#keyBase}/users/${person.id}`;
  }

  async #loadStatuses(signal: AbortSignal): Promise<void> {
    const { issue_statuses } = this.#parse(Statuses, (await this.#http.get('/issue_statuses.json', {}, signal)).json, 'issue_statuses');
    this.#knownStatuses = new Set(issue_statuses.map((s) => s.id));
    this.#closedStatuses = new Set(issue_statuses.filter((s) => s.is_closed).map((s) => s.id));
  }

  async #resolveTracker(signal: AbortSignal): Promise<number | undefined> {
    const wanted = this.#config.tracker;
    if (wanted === undefined || typeof wanted === 'number') return wanted;
    const { trackers } = this.#parse(Trackers, (await this.#http.get('/trackers.json', {}, signal)).json, 'trackers');
    const found = trackers.find((t) => t.name.toLowerCase() === wanted.toLowerCase());
    if (!found) throw new TicketSystemError(`Redmine at ${this.host} has no tracker named "${wanted}" (it has: ${trackers.map((t) => t.name).join(', ')})`);
    return found.id;
  }

  #parse<T extends z.ZodType>(schema: T, json: unknown, what: string): z.output<T> {
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new TicketSystemError(`Redmine at ${this.host} answered ${what} with an unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  }
}

/** Redmine keeps text as typed in a browser form, with CRLF line ends. */
const lf = (text: string) => text.replace(/\r\n?/g, '\n');

function isStatus(d: z.infer<typeof Detail>): boolean {
  return d.property === 'attr' && d.name === 'status_id';
}
