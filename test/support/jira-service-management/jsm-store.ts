/**
 * What the Jira Service Management counterpart holds, in memory: its
 * accounts (agents and customers, each with an API token and a time zone),
 * one service desk (project HELP), its customer requests with their comments,
 * files, status history and resolution, and the temporary files waiting to
 * be attached. Every change stamps the request's `updated` from a clock that
 * never repeats a millisecond, and is shown to search only `searchLagMs`
 * later (search is eventually consistent, Jira's search-and-reconcile page).
 *
 * The workflow: Waiting for support (NEW) → In progress (INDETERMINATE) →
 * Resolved (DONE, resolution "Done"); Closed (DONE, no resolution); Reopen
 * back to Waiting for support (the resolution cleared).
 */

export type Category = 'NEW' | 'INDETERMINATE' | 'DONE';

export interface JsmUser {
  accountId: string;
  displayName: string;
  email: string;
  apiToken: string;
  /** The profile's IANA zone; null when privacy settings hide it. */
  timeZone: string | null;
  agent: boolean;
}

export interface JsmFile {
  id: number;
  issueId: number;
  filename: string;
  mimeType: string;
  content: Buffer;
  created: number;
  authorId: string;
  public: boolean;
}

export interface JsmComment {
  id: number;
  body: string;
  public: boolean;
  authorId: string;
  created: number;
  fileIds: number[];
}

export interface JsmIssue {
  id: number;
  key: string;
  summary: string;
  description: string;
  reporterId: string;
  created: number;
  updated: number;
  /** When each `updated` value reached the search index. */
  indexed: { at: number; updated: number }[];
  statuses: { name: string; category: Category; at: number }[];
  resolution: string | null;
  resolutiondate: number | null;
  comments: JsmComment[];
  fileIds: number[];
}

export interface TempFile {
  id: string;
  filename: string;
  mimeType: string;
  content: Buffer;
  at: number;
  ownerId: string;
}

export const DESK = { id: '1', projectId: '10000', projectKey: 'HELP', projectName: 'Help desk', requestTypeId: '25' };

export const TRANSITIONS = [
  { id: '801', name: 'Start progress', to: { name: 'In progress', category: 'INDETERMINATE' as Category }, from: ['NEW'], resolution: undefined },
  { id: '761', name: 'Resolve this issue', to: { name: 'Resolved', category: 'DONE' as Category }, from: ['NEW', 'INDETERMINATE'], resolution: 'Done' },
  { id: '901', name: 'Close', to: { name: 'Closed', category: 'DONE' as Category }, from: ['NEW', 'INDETERMINATE'], resolution: undefined },
  { id: '781', name: 'Reopen', to: { name: 'Waiting for support', category: 'NEW' as Category }, from: ['DONE'], resolution: null },
] as const;

export class JsmStore {
  readonly users = new Map<string, JsmUser>();
  readonly issues = new Map<number, JsmIssue>();
  readonly files = new Map<number, JsmFile>();
  readonly temp = new Map<string, TempFile>();
  /** How long a change takes to show in search. */
  searchLagMs = 0;
  /** Temporary files expire after this long. */
  tempTtlMs = 3_600_000;
  /** The largest file `attachTemporaryFile` takes. */
  maxFileBytes = 10 * 1024 * 1024;
  /** How far the site's clock is from this machine's (a test sets it back to make changes "an hour ago"). */
  skewMs = 0;
  #last = 0;
  #ids = { issue: 10_000, key: 0, comment: 20_000, file: 30_000, temp: 0 };

  /** The site's clock now (its `Date` header, how JQL reads "-5m"). */
  siteNow(): number {
    return Date.now() + this.skewMs;
  }

  /** The clock changes are stamped with: the site's, but never the same millisecond twice. */
  now(): number {
    this.#last = Math.max(this.siteNow(), this.#last + 1);
    return this.#last;
  }

  addUser(user: JsmUser): JsmUser {
    this.users.set(user.accountId, user);
    return user;
  }

  issue(idOrKey: string): JsmIssue | undefined {
    if (/^\d+$/.test(idOrKey)) return this.issues.get(Number(idOrKey));
    return [...this.issues.values()].find((i) => i.key.toUpperCase() === idOrKey.toUpperCase());
  }

  /** Whether `user` may see the request: agents see all, customers their own. */
  sees(user: JsmUser, issue: JsmIssue): boolean {
    return user.agent || issue.reporterId === user.accountId;
  }

  createRequest(reporterId: string, summary: string, description: string): JsmIssue {
    const at = this.now();
    const id = ++this.#ids.issue;
    const issue: JsmIssue = {
      id, key: `${DESK.projectKey}-${++this.#ids.key}`, summary, description, reporterId, created: at, updated: at, indexed: [],
      statuses: [{ name: 'Waiting for support', category: 'NEW', at }], resolution: null, resolutiondate: null, comments: [], fileIds: [],
    };
    this.issues.set(id, issue);
    this.#touch(issue, at);
    return issue;
  }

  addComment(issue: JsmIssue, authorId: string, body: string, isPublic: boolean, fileIds: number[] = []): JsmComment {
    const at = this.now();
    const comment: JsmComment = { id: ++this.#ids.comment, body, public: isPublic, authorId, created: at, fileIds };
    issue.comments.push(comment);
    this.#touch(issue, at);
    return comment;
  }

  addTemp(ownerId: string, filename: string, mimeType: string, content: Buffer): TempFile {
    const temp: TempFile = { id: `temp${Date.now()}${++this.#ids.temp}`, filename, mimeType, content, at: Date.now(), ownerId };
    this.temp.set(temp.id, temp);
    return temp;
  }

  /** The temporary files attached to the request (each used once), with a comment naming them when `body` is given. */
  attach(issue: JsmIssue, authorId: string, temps: TempFile[], isPublic: boolean, body: string | undefined): { files: JsmFile[]; comment: JsmComment | undefined } {
    const at = this.now();
    const files = temps.map((t) => {
      this.temp.delete(t.id);
      const file: JsmFile = { id: ++this.#ids.file, issueId: issue.id, filename: t.filename, mimeType: t.mimeType, content: t.content, created: at, authorId, public: isPublic };
      this.files.set(file.id, file);
      issue.fileIds.push(file.id);
      return file;
    });
    // Jira appends a reference to each file to the comment: an image inline, any other file as a link with its size.
    const refs = files.map((f) => (f.mimeType.startsWith('image/') ? `!${f.filename}|thumbnail!` : `[^${f.filename}] _(${Math.max(1, Math.round(f.content.length / 1024))} kB)_`));
    const comment = body === undefined ? undefined : this.addComment(issue, authorId, `${body} ${refs.join(' ')}`, isPublic, files.map((f) => f.id));
    this.#touch(issue, comment?.created ?? at);
    return { files, comment };
  }

  transition(issue: JsmIssue, transitionId: string): boolean {
    const t = TRANSITIONS.find((x) => x.id === transitionId);
    const current = issue.statuses.at(-1)!;
    if (!t || !(t.from as readonly string[]).includes(current.category)) return false;
    const at = this.now();
    issue.statuses.push({ name: t.to.name, category: t.to.category, at });
    if (t.resolution !== undefined) {
      issue.resolution = t.resolution;
      issue.resolutiondate = t.resolution === null ? null : at;
    }
    this.#touch(issue, at);
    return true;
  }

  /** The resolution field set (or cleared) without a change of status, as an agent editing the field does. */
  setResolution(issue: JsmIssue, resolution: string | null): void {
    const at = this.now();
    issue.resolution = resolution;
    issue.resolutiondate = resolution === null ? null : at;
    this.#touch(issue, at);
  }

  /** The `updated` search sees for the request now; undefined before its creation reached the index. */
  searchedUpdated(issue: JsmIssue, now = Date.now()): number | undefined {
    return issue.indexed.filter((x) => x.at <= now - this.searchLagMs).at(-1)?.updated;
  }

  #touch(issue: JsmIssue, at: number): void {
    issue.updated = at;
    issue.indexed.push({ at: Date.now(), updated: at });
  }
}
