/**
 * The `TicketAdapter` for Redmine (4.x/5.x REST API). An issue of the
 * configured project (and tracker; not of its subprojects) is a ticket; its
 * journals are its entries. Redmine's Debian version has no outgoing
 * webhooks, so changes are found by asking for issues with
 * `updated_on >= since`, sorted by `updated_on`, keyset-paged (each page asks
 * again from the last `updated_on` seen); `>=` and a minute of overlap list a
 * few issues again, which the poller recognises by their unchanged
 * `updated_on` (after a settled read) and journal ids.
 *
 * The gateway's own notes are those of the API key's user (`/users/current`).
 * An issue read becomes a `Ticket` in `redmine-issue.ts` (entries, closing,
 * which files go with which message). Files: downloaded with the API key
 * only from under the configured url, uploaded with `/uploads.json` and
 * attached in the same `PUT` as the note's text.
 */
import { KeyedTicketAdapter } from '../ticket/ticket-keys.ts';
import { z } from 'zod';
import type { Logger } from '../../src/connector/api.ts';
import type { RedmineConnectorConfig } from './config.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import { RedmineHttp } from './redmine-http.ts';
import { downloadFile, uploadFile } from './redmine-files.ts';
import { statusIdsOf, ticketOfIssue } from './redmine-issue.ts';
import { CurrentUser, CurrentUserMemberships, Issue, IssueList, Project, Role, Statuses, Trackers, Upload } from './redmine-schemas.ts';
import {
  TicketSystemError,
  type ChangeList,
  type Ticket,
  type TicketAdapter,
  type TicketAttachment,
  type TicketPerson,
  type TicketUpload,
} from '../ticket/ticket-adapter.ts';

/** Issues whose change committed this long after its `updated_on` are still listed. */
export const OVERLAP_MS = 60_000;
/** A read this long after `updated_on` (by Redmine's clock) is settled: a later change gets a later `updated_on`. */
export const SETTLE_MS = 2_000;
const PAGE = 100;

export interface RedmineAdapterOptions {
  /** Warnings (a Redmine without a Date header). */
  logger?: Logger;
  /** Issues per page of `/issues.json` (Redmine's maximum is 100; smaller in tests). */
  pageSize?: number;
}

/** Redmine's `>=` filter takes a UTC timestamp to the second. */
const redmineTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class RedmineAdapter extends KeyedTicketAdapter implements TicketAdapter {
  readonly system = 'Redmine';
  readonly privateNoteFilesArePublic = true;
  readonly privateNoteHint = 'the API key\'s user lacks the permission "Mark notes as private" (set_notes_private) in the project; give its role that permission, or set notes: public';
  readonly #http: RedmineHttp;
  readonly #config: RedmineConnectorConfig;
  /** The API key's user's admin flag and memberships, read with `self`. */
  #access: z.output<typeof CurrentUserMemberships>['user'] | undefined;
  #projectId: number | undefined;
  #trackerId: number | undefined;
  #closedStatuses = new Set<number>();
  #knownStatuses = new Set<number>();
  readonly #logger: Logger | undefined;
  readonly #pageSize: number;
  #warnedNoDate = false;
  #privateAllowedUntil = 0;

  constructor(config: RedmineConnectorConfig, options: RedmineAdapterOptions = {}) {
    super(config.url, 'issues');
    this.#config = config;
    this.#logger = options.logger;
    this.#pageSize = options.pageSize ?? PAGE;
    this.#http = new RedmineHttp(config.url, config.api_key, config.timeout_ms);
  }

  get host(): string {
    return this.#http.host;
  }

  async connect(signal: AbortSignal): Promise<TicketPerson> {
    const self = await this.#whoAmI(signal);
    await this.#projectIdOf(signal);
    await this.#loadStatuses(signal);
    this.#trackerId = await this.#resolveTracker(signal);
    return self;
  }

  /** The API key's user (needed to tell the gateway's own notes, also by a `deliver` before `connect`), with its memberships. */
  async #whoAmI(signal: AbortSignal): Promise<TicketPerson> {
    if (this.self) return this.self;
    const json = (await this.#http.get('/users/current.json', { include: 'memberships' }, signal)).json;
    const me = this.#parse(CurrentUser, json, 'users/current');
    this.#access = this.#parse(CurrentUserMemberships, json, 'users/current').user;
    this.self = { id: String(me.user.id), name: `${me.user.firstname} ${me.user.lastname}`.trim() || (me.user.login ?? '') };
    return this.self;
  }

  /** The configured project's id, asked once (by `connect`, or by a `deliver` before it). */
  async #projectIdOf(signal: AbortSignal): Promise<number> {
    if (this.#projectId !== undefined) return this.#projectId;
    const response = await this.#http.get(`/projects/${encodeURIComponent(this.#config.project)}.json`, {}, signal).catch((err: unknown) => {
      if (err instanceof TicketSystemError && err.status === 404) {
        throw new TicketSystemError(`Redmine at ${this.host} has no project "${this.#config.project}" visible to the API key's user (404)`, { status: 404, answer: err.answer });
      }
      throw err;
    });
    this.#projectId = this.#parse(Project, response.json, 'projects').project.id;
    return this.#projectId;
  }

  async listChanges(since: string | undefined, signal: AbortSignal): Promise<ChangeList> {
    const filter = {
      project_id: this.#config.project,
      subproject_id: '!*', // the project's own issues, not its subprojects'
      status_id: '*',
      tracker_id: this.#trackerId,
    };
    if (since === undefined) {
      // From now on: only Redmine's clock is wanted (or, without one, its latest change).
      const response = await this.#http.get('/issues.json', { ...filter, sort: 'updated_on:desc', limit: 1 }, signal);
      const latest = this.#parse(IssueList, response.json, 'issues').issues[0]?.updated_on;
      const clock = response.date?.getTime() ?? this.#noDate(latest === undefined ? undefined : Date.parse(latest));
      return { changes: [], nextSince: redmineTime(clock === undefined ? 0 : clock - OVERLAP_MS) };
    }
    // Keyset paging: each page asks again from the last `updated_on` seen, so an
    // issue updated between two requests (moving to the end) shifts no other
    // issue past a page boundary; issues listed twice are kept once, at their
    // later place. Only a page that is one `updated_on` throughout pages by offset.
    const changes = new Map<string, ChangeList['changes'][number]>();
    let roundStart: number | undefined;
    let latest: number | undefined;
    let from = Date.parse(since);
    let offset = 0;
    for (;;) {
      const response = await this.#http.get('/issues.json', { ...filter, updated_on: `>=${redmineTime(from)}`, sort: 'updated_on', offset, limit: this.#pageSize }, signal);
      roundStart ??= response.date?.getTime() ?? Number.NaN;
      const page = this.#parse(IssueList, response.json, 'issues');
      for (const issue of page.issues) {
        const id = String(issue.id);
        changes.delete(id);
        changes.set(id, { id, updatedAt: issue.updated_on });
        latest = Math.max(latest ?? 0, Date.parse(issue.updated_on));
      }
      if (page.issues.length < this.#pageSize) break;
      const last = Date.parse(page.issues.at(-1)!.updated_on);
      if (last > from) {
        from = last;
        offset = 0;
      } else {
        offset += this.#pageSize;
      }
    }
    const clock = roundStart === undefined || Number.isNaN(roundStart) ? this.#noDate(latest) : roundStart;
    const next = clock === undefined ? Date.parse(since) : Math.max(Date.parse(since), clock - OVERLAP_MS);
    return { changes: [...changes.values()], nextSince: redmineTime(next) };
  }

  /** Without a `Date` header Redmine's clock is unknown: its latest `updated_on` stands in (never the gateway's clock). */
  #noDate(latest: number | undefined): number | undefined {
    if (!this.#warnedNoDate) {
      this.#warnedNoDate = true;
      this.#logger?.warn({ host: this.host }, 'Redmine answers without a Date header: the cursor follows the latest updated_on listed instead of Redmine’s clock (is a proxy removing it?)');
    }
    return latest;
  }

  async readTicket(id: string, signal: AbortSignal): Promise<Ticket> {
    await this.#whoAmI(signal);
    const response = await this.#http.get(`/issues/${encodeURIComponent(id)}.json`, { include: 'journals,attachments' }, signal);
    const issue = this.#parse(Issue, (response.json as { issue?: unknown } | undefined)?.issue, `issues/${id}`);
    if (statusIdsOf(issue).some((s) => !this.#knownStatuses.has(s))) await this.#loadStatuses(signal);
    return ticketOfIssue(issue, {
      baseUrl: this.#http.baseUrl,
      closedStatuses: this.#closedStatuses,
      // updated_on has whole seconds: a change in the second of this read could carry the same one.
      settled: response.date !== undefined && response.date.getTime() - Date.parse(issue.updated_on) >= SETTLE_MS,
    });
  }

  async downloadAttachment(attachment: TicketAttachment, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    return downloadFile(this.#http, attachment, maxBytes, signal);
  }

  async uploadAttachment(file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<TicketUpload> {
    const { json } = await uploadFile(this.#http, file, signal);
    return { token: this.#parse(Upload, json, 'uploads').upload.token, filename: file.filename, contentType: file.contentType };
  }

  async addNote(ticketId: string, note: { text: string; private: boolean; uploads?: readonly TicketUpload[] }, signal: AbortSignal): Promise<{ entryId: string | undefined }> {
    if (note.private && (await this.#mayMarkNotesPrivate(signal)) === false) {
      // Redmine would silently store it as public: refuse before writing.
      throw new TicketSystemError(
        `Redmine at ${this.host}: the API key's user may not mark notes as private in project "${this.#config.project}" (its roles lack the permission "Mark notes as private", set_notes_private), so a private note would be stored as public; not written`,
        { status: 403 },
      );
    }
    // The files go in the same change as the text: one journal, never a note without its files.
    const uploads = (note.uploads ?? []).map((u) => ({ token: u.token, filename: u.filename, content_type: u.contentType }));
    const issue = { notes: note.text, private_notes: note.private, ...(uploads.length > 0 ? { uploads } : {}) };
    // Redmine answers 204 without the journal: the caller finds it by reading the issue.
    await this.#http.put(`/issues/${encodeURIComponent(ticketId)}.json`, { issue }, signal);
    return { entryId: undefined };
  }

  /**
   * Whether the API key's user may mark notes private in the project: true
   * (an admin, or a role with set_notes_private), false (its roles there lack
   * it), undefined (not a member: Redmine's "Non member" role applies, unknown
   * here; the note writer's read-back still catches a public note). The user
   * and project are those read by `connect`; a yes is kept for 10 minutes, a
   * no asks the roles again each time.
   */
  async #mayMarkNotesPrivate(signal: AbortSignal): Promise<boolean | undefined> {
    if (this.#privateAllowedUntil > Date.now()) return true;
    await this.#whoAmI(signal);
    const me = this.#access!;
    let allowed: boolean | undefined;
    if (me.admin === true) allowed = true;
    else {
      const projectId = await this.#projectIdOf(signal);
      const membership = me.memberships.find((m) => m.project?.id === projectId);
      if (membership !== undefined) {
        allowed = false;
        for (const role of membership.roles) {
          const { permissions } = this.#parse(Role, (await this.#http.get(`/roles/${role.id}.json`, {}, signal)).json, `roles/${role.id}`).role;
          if (permissions.includes('set_notes_private')) allowed = true;
        }
      }
    }
    if (allowed === true) this.#privateAllowedUntil = Date.now() + 600_000;
    return allowed;
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
    return parseAnswer(schema, json, `Redmine at ${this.host}`, what);
  }
}
