/**
 * The run's real Redmine (./redmine-global-setup.ts starts it on first use)
 * as test files see it: a fresh project per test, issues and notes written
 * through Redmine's REST API as a customer, and what the issue holds.
 *
 *   const rm = await redmine();                       // in beforeAll: the first call may take ~15 s
 *   const project = await rm.newProject();            // the gateway user is a Manager in it
 *   const id = await rm.createIssue(project, { subject: 'Printer', description: 'On fire' });
 *   await rm.addNote(id, 'Any news?');
 *   await rm.setStatus(id, rm.seed.closed_status_id);
 *   const file = await rm.upload('scan.pdf', bytes);  // as the customer; then { uploads: [file] } on an issue or note
 *   const bytes = await rm.download(url);             // a file as the admin sees it
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { RedmineSeed } from './redmine-server.ts';

export type { RedmineSeed } from './redmine-server.ts';

export interface RedmineJournal {
  id: number;
  user: { id: number; name: string };
  notes: string | null;
  private_notes: boolean;
  details: { property: string; name: string; old_value?: string | null; new_value?: string | null }[];
}

/** A file uploaded to Redmine, not yet attached: pass it in `uploads` of `createIssue` or `addNote`. */
export interface RedmineUpload {
  token: string;
  filename: string;
  content_type: string;
}

export interface RedmineAttachment {
  id: number;
  filename: string;
  filesize: number;
  content_type: string | null;
  content_url: string;
  author: { id: number; name: string };
}

export interface ApiAnswer {
  status: number;
  json: any;
}

export class TestRedmine {
  readonly url: string;
  readonly seed: RedmineSeed;
  /** Redmine's own log, whose end a failed call's error shows. */
  readonly #log: string | undefined;

  constructor(url: string, seed: RedmineSeed, dir?: string) {
    this.url = url;
    this.seed = seed;
    this.#log = dir === undefined ? undefined : join(dir, 'log', 'production.log');
  }

  /** One REST call with `key` (the admin's by default). */
  async api(method: string, path: string, body?: unknown, key = this.seed.admin_key): Promise<ApiAnswer> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'x-redmine-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text.trim() === '' ? undefined : JSON.parse(text) };
  }

  async #ok(method: string, path: string, body?: unknown, key?: string): Promise<ApiAnswer> {
    const answer = await this.api(method, path, body, key);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`Redmine ${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}${answer.status >= 500 ? this.#logTail() : ''}`);
    }
    return answer;
  }

  /** The last lines of Redmine's log (why it answered 500), or nothing when there is none to read. */
  #logTail(): string {
    if (this.#log === undefined || !existsSync(this.#log)) return '';
    return `\n${this.#log}, last lines:\n${readFileSync(this.#log, 'utf8').trimEnd().split('\n').slice(-30).join('\n')}`;
  }

  /**
   * A new private project with issue tracking; the gateway is a Manager (or
   * `gatewayRoleId`: a Reporter may not mark notes private), the customer a
   * Reporter. `parent`: a subproject of that one.
   */
  async newProject(options: { trackerIds?: number[]; parent?: string; gatewayRoleId?: number } = {}): Promise<string> {
    const identifier = `p-${randomBytes(5).toString('hex')}`;
    const trackers = options.trackerIds ? { tracker_ids: options.trackerIds } : {};
    const parent = options.parent ? { parent_id: (await this.#ok('GET', `/projects/${options.parent}.json`)).json.project.id, inherit_members: false } : {};
    await this.#ok('POST', '/projects.json', { project: { name: `Support ${identifier}`, identifier, is_public: false, enabled_module_names: ['issue_tracking'], ...trackers, ...parent } });
    await this.#ok('POST', `/projects/${identifier}/memberships.json`, { membership: { user_id: this.seed.gateway_id, role_ids: [options.gatewayRoleId ?? this.seed.manager_role_id] } });
    await this.#ok('POST', `/projects/${identifier}/memberships.json`, { membership: { user_id: this.seed.customer_id, role_ids: [this.seed.reporter_role_id] } });
    return identifier;
  }

  /** Opens an issue as the customer (with files uploaded before: `uploads`); returns its id. */
  async createIssue(
    project: string,
    issue: { subject: string; description?: string; tracker_id?: number; status_id?: number; is_private?: boolean; uploads?: RedmineUpload[] },
    key = this.seed.customer_key,
  ): Promise<number> {
    const answer = await this.#ok('POST', '/issues.json', { issue: { project_id: project, ...issue } }, key);
    return answer.json.issue.id as number;
  }

  /** Adds a note (public unless `private`; with `uploads`: its files) as the customer, or as the admin for a private one. */
  async addNote(id: number, notes: string, options: { private?: boolean; key?: string; uploads?: RedmineUpload[] } = {}): Promise<void> {
    const key = options.key ?? (options.private ? this.seed.admin_key : this.seed.customer_key);
    const uploads = options.uploads ? { uploads: options.uploads } : {};
    await this.#ok('PUT', `/issues/${id}.json`, { issue: { notes, private_notes: options.private === true, ...uploads } }, key);
  }

  /** Uploads a file (as the customer by default) for a later issue or note, as Redmine's `/uploads.json` takes it. */
  async upload(filename: string, content: Buffer, contentType = 'application/octet-stream', key = this.seed.customer_key): Promise<RedmineUpload> {
    const res = await fetch(`${this.url}/uploads.json?filename=${encodeURIComponent(filename)}`, {
      method: 'POST',
      headers: { 'x-redmine-api-key': key, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(content),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`Redmine POST /uploads.json: ${res.status} ${text}`);
    return { token: (JSON.parse(text) as { upload: { token: string } }).upload.token, filename, content_type: contentType };
  }

  /** The issue's files, as the admin sees them. */
  async attachments(id: number): Promise<RedmineAttachment[]> {
    return (await this.#ok('GET', `/issues/${id}.json?include=attachments`)).json.issue.attachments as RedmineAttachment[];
  }

  /** A file's bytes from its `content_url`, as the admin. */
  async download(url: string): Promise<Buffer> {
    const res = await fetch(url, { headers: { 'x-redmine-api-key': this.seed.admin_key }, redirect: 'manual' });
    if (res.status !== 200) throw new Error(`Redmine GET ${url}: ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }

  /** Sets the issue's status as the admin (closing or reopening it). */
  async setStatus(id: number, statusId: number): Promise<void> {
    await this.#ok('PUT', `/issues/${id}.json`, { issue: { status_id: statusId } });
  }

  /** The issue as the admin sees it (`updated_on`, `created_on`…). */
  async issue(id: number): Promise<any> {
    return (await this.#ok('GET', `/issues/${id}.json`)).json.issue;
  }

  async journals(id: number): Promise<RedmineJournal[]> {
    return (await this.#ok('GET', `/issues/${id}.json?include=journals`)).json.issue.journals as RedmineJournal[];
  }
}

/** The run's Redmine, started on the first call of the run. */
export async function redmine(): Promise<TestRedmine> {
  const control = inject('redmineControl') as string | undefined;
  if (!control) throw new Error('redmine: no control server; is test/support/redmine-global-setup.ts in vitest.config.ts test.globalSetup?');
  const res = await fetch(`${control}/ensure`, { method: 'POST', signal: AbortSignal.timeout(120_000) });
  if (res.status !== 200) throw new Error(`Redmine could not be started: ${await res.text()}`);
  const { url, seed, dir } = (await res.json()) as { url: string; seed: RedmineSeed; dir: string };
  return new TestRedmine(url, seed, dir);
}
