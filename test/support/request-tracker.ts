/**
 * The run's real Request Tracker 5 (./request-tracker-global-setup.ts starts
 * it on first use) as test files see it: a fresh queue per test, tickets and
 * messages written through REST2 as the customer, the agent or the gateway
 * user, and what a ticket's history holds (read as root).
 *
 *   const rt = await requestTracker();               // in beforeAll: the first call may take ~10 s
 *   const queue = await rt.newQueue();                // its name, for Queue = '<name>' in TicketSQL
 *   const id = await rt.createTicket(queue, { subject: 'Printer', content: 'On fire', attachments: [{ filename: 'scan.pdf', contentType: 'application/pdf', bytes }] });
 *   await rt.correspond(id, 'Any news?');             // as the customer (a Requestor)
 *   await rt.comment(id, 'Internal: fuser again');    // as the agent
 *   await rt.setStatus(id, 'resolved');               // as the agent
 *   const txns = await rt.history(id);                // [{ type: 'Correspond', creator: 'gateway', text, files }]
 *   const bytes = await rt.download(txns[0].files[0].id);
 *
 * Rights are global (request-tracker-seed.pl): every queue is open to the
 * gateway, the agent and the customer alike, so tests keep apart by queue:
 * each makes its own and searches `Queue = '<name>'`. The customer sees only
 * tickets it is a Requestor of; REST2 does not make the creator a Requestor,
 * so createTicket names the acting user as the Requestor.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { RequestTrackerSeed } from './request-tracker-server.ts';

export type { RequestTrackerSeed } from './request-tracker-server.ts';

/** Who a call is made as: root by basic auth, the others by their token. */
export type RtUser = 'root' | 'gateway' | 'agent' | 'customer' | 'outsider';

export interface RtFile {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/** One part of a transaction's message (RT's Attachments row). */
export interface RtPart {
  id: number;
  contentType: string;
  /** '' for the message and its text parts. */
  filename: string;
  size: number;
}

export interface RtTransaction {
  id: number;
  /** Create, Correspond, Comment, Status, Set, EmailRecord, AddWatcher… */
  type: string;
  /** The creator's user name ('RT_System' for RT's own changes). */
  creator: string;
  created: string;
  field: string;
  oldValue: string;
  newValue: string;
  /** The text of a Create/Correspond/Comment: its first text/plain or text/html part, else ''. */
  text: string;
  textType: string;
  /** Parts with a file name. */
  files: RtPart[];
  parts: RtPart[];
}

export interface ApiAnswer {
  status: number;
  json: any;
  headers: Headers;
}

const hex = () => randomBytes(5).toString('hex');
const b64 = (bytes: Buffer) => bytes.toString('base64');
const files = (list: RtFile[] | undefined) => (list ?? []).map((f) => ({ FileName: f.filename, FileType: f.contentType, FileContent: b64(f.bytes) }));
/** The transaction id from a 201's `Location: /REST/2.0/transaction/<id>`. */
const createdId = (answer: ApiAnswer) => Number((answer.headers.get('location') ?? '').split('/').pop());

export class TestRequestTracker {
  readonly url: string;
  readonly seed: RequestTrackerSeed;
  readonly dir: string | undefined;

  constructor(url: string, seed: RequestTrackerSeed, dir?: string) {
    this.url = url;
    this.seed = seed;
    this.dir = dir;
  }

  authorization(as: RtUser): string {
    if (as === 'root') return `Basic ${Buffer.from(`${this.seed.root_name}:${this.seed.root_password}`).toString('base64')}`;
    return `token ${this.seed[`${as}_token`]}`;
  }

  /** One REST2 call (`path` below /REST/2.0) as `as`. */
  async api(method: string, path: string, body?: unknown, as: RtUser = 'root'): Promise<ApiAnswer> {
    const res = await fetch(`${this.url}/REST/2.0${path}`, {
      method,
      headers: { authorization: this.authorization(as), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any = text;
    try { json = text.trim() === '' ? undefined : JSON.parse(text); } catch {}
    return { status: res.status, json, headers: res.headers };
  }

  async #ok(method: string, path: string, body?: unknown, as: RtUser = 'root'): Promise<ApiAnswer> {
    const answer = await this.api(method, path, body, as);
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`Request Tracker ${method} ${path} as ${as}: ${answer.status} ${JSON.stringify(answer.json)}${answer.status >= 500 ? this.#logTail() : ''}`);
    }
    return answer;
  }

  /** The last lines of RT's log (why it answered 500), or nothing when there is none to read. */
  #logTail(): string {
    const log = this.dir === undefined ? undefined : join(this.dir, 'log', 'rt.log');
    if (log === undefined || !existsSync(log)) return '';
    return `\n${log}, last lines:\n${readFileSync(log, 'utf8').trimEnd().split('\n').slice(-20).join('\n')}`;
  }

  /** A new queue (made by root); returns its name. */
  async newQueue(): Promise<string> {
    const name = `q-${hex()}`;
    await this.#ok('POST', '/queue', { Name: name, Description: 'threadgate test', CorrespondAddress: `${name}@example.test` });
    return name;
  }

  /** Opens a ticket as `as` (the customer by default), who is also its Requestor; returns its id. */
  async createTicket(queue: string, ticket: { subject: string; content: string; contentType?: string; attachments?: RtFile[] }, as: RtUser = 'customer'): Promise<number> {
    const requestor = as === 'root' ? undefined : (this.seed as unknown as Record<string, string>)[`${as}_email`];
    const answer = await this.#ok('POST', '/ticket', {
      Queue: queue,
      Subject: ticket.subject,
      Content: ticket.content,
      ContentType: ticket.contentType ?? 'text/plain',
      ...(requestor ? { Requestor: requestor } : {}),
      ...(ticket.attachments?.length ? { Attachments: files(ticket.attachments) } : {}),
    }, as);
    return Number(answer.json.id);
  }

  /** A reply (sent to the Requestors by mail) as the customer by default; returns the transaction id. */
  async correspond(id: number, text: string, options: { attachments?: RtFile[]; as?: RtUser; contentType?: string } = {}): Promise<number> {
    return this.#message('correspond', id, text, options.as ?? 'customer', options);
  }

  /** An internal comment as the agent by default; returns the transaction id. */
  async comment(id: number, text: string, options: { attachments?: RtFile[]; as?: RtUser; contentType?: string } = {}): Promise<number> {
    return this.#message('comment', id, text, options.as ?? 'agent', options);
  }

  async #message(kind: 'correspond' | 'comment', id: number, text: string, as: RtUser, options: { attachments?: RtFile[]; contentType?: string }): Promise<number> {
    const body = { Content: text, ContentType: options.contentType ?? 'text/plain', ...(options.attachments?.length ? { Attachments: files(options.attachments) } : {}) };
    return createdId(await this.#ok('POST', `/ticket/${id}/${kind}`, body, as));
  }

  /** Sets the status as the agent by default. RT answers 200 even when it refuses: its message is checked. */
  async setStatus(id: number, status: 'new' | 'open' | 'stalled' | 'resolved' | 'rejected' | 'deleted', as: RtUser = 'agent'): Promise<void> {
    const answer = await this.#ok('PUT', `/ticket/${id}`, { Status: status }, as);
    const said = (answer.json as string[]).join(' ');
    if (!/Status changed|Ticket deleted/.test(said)) throw new Error(`Request Tracker PUT /ticket/${id} {Status: ${status}} as ${as}: ${said}`);
  }

  /** The ticket as root sees it (Subject, Status, Requestor, LastUpdated…). */
  async ticket(id: number): Promise<any> {
    return (await this.#ok('GET', `/ticket/${id}`)).json;
  }

  /** Every transaction of the ticket, oldest first, with its text and files (read as root). */
  async history(id: number): Promise<RtTransaction[]> {
    const fields = 'Type,Creator,Created,Field,OldValue,NewValue';
    const rows: any[] = [];
    for (let page = 1; ; page++) {
      const answer = await this.#ok('GET', `/ticket/${id}/history?per_page=100&page=${page}&fields=${fields}`);
      rows.push(...answer.json.items);
      if (answer.json.count === 0 || (answer.json.total != null && rows.length >= answer.json.total)) break;
    }
    return Promise.all(rows.map(async (row) => {
      const txn: RtTransaction = { id: Number(row.id), type: row.Type, creator: row.Creator?.id ?? '', created: row.Created, field: row.Field, oldValue: row.OldValue, newValue: row.NewValue, text: '', textType: '', files: [], parts: [] };
      if (!['Create', 'Correspond', 'Comment'].includes(txn.type)) return txn;
      // Content in a collection is the raw text (files: download(), base64); `Parent` there answers 500.
      const parts = (await this.#ok('GET', `/transaction/${txn.id}/attachments?per_page=100&fields=ContentType,Filename,ContentLength,Content`)).json.items as any[];
      txn.parts = parts.map((p) => ({ id: Number(p.id), contentType: p.ContentType, filename: p.Filename ?? '', size: Number(p.ContentLength) }));
      txn.files = txn.parts.filter((p) => p.filename !== '');
      const body = parts.find((p) => !p.Filename && /^text\/(plain|html)$/.test(p.ContentType));
      if (body) Object.assign(txn, { text: body.Content as string, textType: body.ContentType as string });
      return txn;
    }));
  }

  /** A part's bytes (REST2 gives them base64 in `Content`), as root. */
  async download(attachmentId: number): Promise<Buffer> {
    return Buffer.from((await this.#ok('GET', `/attachment/${attachmentId}`)).json.Content ?? '', 'base64');
  }

  /** The mail RT has sent so far (its $MailCommand 'testfile'), '' when none. */
  sentMail(): string {
    const file = this.dir === undefined ? undefined : join(this.dir, 'outgoing-mail.txt');
    return file !== undefined && existsSync(file) ? readFileSync(file, 'utf8') : '';
  }
}

/** The run's Request Tracker, started on the first call of the run. */
export async function requestTracker(): Promise<TestRequestTracker> {
  const control = inject('requestTrackerControl') as string | undefined;
  if (!control) throw new Error('requestTracker: no control server; is test/support/request-tracker-global-setup.ts in vitest.config.ts test.globalSetup?');
  const res = await fetch(`${control}/ensure`, { method: 'POST', signal: AbortSignal.timeout(180_000) });
  if (res.status !== 200) throw new Error(`Request Tracker could not be started: ${await res.text()}`);
  const { url, seed, dir } = (await res.json()) as { url: string; seed: RequestTrackerSeed; dir: string };
  return new TestRequestTracker(url, seed, dir);
}
