/**
 * A Zendesk Support account for tests: the counterpart of the `zendesk`
 * connector, a real HTTP server on port 0 (and a second one for the files),
 * in memory, written from Zendesk's published API reference:
 *
 * - https://developer.zendesk.com/api-reference/introduction/security-and-auth/ (API token auth)
 * - https://developer.zendesk.com/api-reference/introduction/rate-limits/ (429, Retry-After)
 * - https://developer.zendesk.com/api-reference/introduction/pagination/ (cursor and offset pagination)
 * - https://developer.zendesk.com/api-reference/ticketing/ticket-management/incremental_exports/ (cursor export)
 * - https://developer.zendesk.com/documentation/ticketing/managing-tickets/using-the-incremental-export-api/
 * - https://developer.zendesk.com/api-reference/ticketing/tickets/tickets/ (create, show, update)
 * - https://developer.zendesk.com/api-reference/ticketing/tickets/ticket_comments/
 * - https://developer.zendesk.com/api-reference/ticketing/tickets/ticket_audits/
 * - https://developer.zendesk.com/api-reference/ticketing/tickets/ticket-attachments/ (uploads, content_url)
 * - https://developer.zendesk.com/documentation/ticketing/managing-tickets/working-with-url-properties/
 * - https://developer.zendesk.com/api-reference/ticketing/users/users/ (me, show_many)
 * - https://developer.zendesk.com/documentation/webhooks/verifying/ (webhook signatures)
 *
 * The account has an admin the gateway acts as, an agent (staff) and an end
 * user (the customer). The helpers write as they would, through the API
 * itself with the agent's token (a customer's comment is the agent's write
 * with the customer as `author_id`). The export leaves out the last minute,
 * as Zendesk's does; with `settleWrites` (the default) each helper write is
 * followed by a minute of the account's clock (`settle`), so the next export
 * can list it without the test waiting a minute.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { RateLimits, type Limits } from './zendesk-auth.ts';
import { startFilesHost, type FileHostRequest } from './zendesk-files-host.ts';
import { ZendeskJson } from './zendesk-json.ts';
import type { Desk } from './zendesk-routes.ts';
import { startDeskServer, type DeskServer, type RecordedRequest } from './zendesk-server.ts';
import { ZendeskStore, type Status, type ZdUser } from './zendesk-store.ts';

export interface ZendeskOptions {
  /** How long the export leaves a change out. Default 60 000 (Zendesk's minute). */
  exportLagMs?: number;
  /** Default: the documented limits (700 a minute, the export 10 a minute). */
  limits?: Partial<Limits>;
  /** Whether content_url wants the caller signed in. Default true. */
  privateAttachments?: boolean;
  /** Default 50 MB. */
  maxUploadBytes?: number;
  /** Move the clock a minute past each helper write. Default true. */
  settleWrites?: boolean;
}

export interface DeskFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface TestZendesk {
  url: string;
  host: string;
  filesUrl: string;
  store: ZendeskStore;
  limits: RateLimits;
  requests: RecordedRequest[];
  fileHostRequests: FileHostRequest[];
  failures: DeskServer['failures'];
  /** The admin the gateway acts as, its API token and the agent and the customer. */
  gateway: ZdUser & { apiToken: string };
  staff: ZdUser;
  customer: ZdUser;
  newCustomer(name: string, email: string): ZdUser;
  /** Moves the account's clock. */
  advance(ms: number): void;
  /** Lets the export's minute pass for everything written so far. */
  settle(): void;
  openTicket(ticket: { subject: string; text: string; files?: readonly DeskFile[]; requester?: ZdUser; status?: Status; brand?: number; group?: number; public?: boolean }): Promise<number>;
  /** A public comment, by the customer unless `by` says otherwise; resolves the comment id. */
  comment(ticketId: number, text: string, options?: { files?: readonly DeskFile[]; by?: ZdUser; public?: boolean; status?: Status }): Promise<number>;
  internalNote(ticketId: number, text: string, files?: readonly DeskFile[]): Promise<number>;
  setStatus(ticketId: number, status: Status): Promise<void>;
  /** The ticket's comments as the API renders them. */
  comments(ticketId: number): { id: number; author_id: number; body: string; public: boolean; attachments: { id: number; file_name: string }[] }[];
  /** An attachment's bytes. */
  fileBytes(attachmentId: number): Buffer;
  /** A signed webhook request's headers for `body` (X-Zendesk-Webhook-Signature and …-Timestamp). */
  signWebhook(secret: string, body: string, timestamp?: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startZendesk(options: ZendeskOptions = {}): Promise<TestZendesk> {
  const store = new ZendeskStore();
  const limits = new RateLimits(options.limits);
  const files = await startFilesHost(store, store.clock);
  const desk: Omit<Desk, 'root' | 'json'> & { root?: string; json?: ZendeskJson } = {
    store,
    clock: store.clock,
    filesUrl: files.url,
    exportLagMs: options.exportLagMs ?? 60_000,
    privateAttachments: options.privateAttachments ?? true,
    maxUploadBytes: options.maxUploadBytes ?? 50 * 1_048_576,
    signedPath: (id) => files.signedPath(id),
  };
  const server = await startDeskServer(desk as Desk, limits);
  desk.json = new ZendeskJson(store, server.root);
  const json = desk.json;

  const gateway = store.addUser('Threadgate Gateway', 'gateway@acme.test', 'admin', randomBytes(20).toString('hex')) as ZdUser & { apiToken: string };
  const staff = store.addUser('Sam Staff', 'sam@acme.test', 'agent', randomBytes(20).toString('hex'));
  const customer = store.addUser('Ann Customer', 'ann@customer.test', 'end-user');
  const settle = () => store.clock.advance(desk.exportLagMs + 1_000);
  const written = () => (options.settleWrites === false ? undefined : settle());

  /** One API call as the agent; a refusal throws with Zendesk's answer. */
  const call = async (method: string, path: string, body?: unknown, raw?: DeskFile): Promise<any> => {
    const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${staff.email}/token:${staff.apiToken}`).toString('base64')}` };
    if (raw) headers['content-type'] = raw.contentType;
    else if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.root}${path}`, { method, headers, body: raw ? new Uint8Array(raw.content) : body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`the counterpart answered ${method} ${path} with ${response.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const uploads = async (list: readonly DeskFile[] = []) => {
    const tokens: string[] = [];
    for (const file of list) tokens.push((await call('POST', `/api/v2/uploads.json?filename=${encodeURIComponent(file.filename)}`, undefined, file)).upload.token);
    return tokens;
  };
  const commentOf = (answer: any): number => answer.audit.events.find((e: { type: string }) => e.type === 'Comment').id;

  return {
    url: server.root,
    host: new URL(server.root).host,
    filesUrl: files.url,
    store,
    limits,
    requests: server.requests,
    fileHostRequests: files.requests,
    failures: server.failures,
    gateway,
    staff,
    customer,
    newCustomer: (name, email) => store.addUser(name, email, 'end-user'),
    advance: (ms) => store.clock.advance(ms),
    settle,
    async openTicket(t) {
      const requester = t.requester ?? customer;
      const comment = { body: t.text, public: t.public ?? true, author_id: requester.id, uploads: await uploads(t.files) };
      const ticket = { subject: t.subject, requester_id: requester.id, comment, ...(t.status ? { status: t.status } : {}), ...(t.brand ? { brand_id: t.brand } : {}), ...(t.group ? { group_id: t.group } : {}) };
      const answer = await call('POST', '/api/v2/tickets.json', { ticket });
      written();
      return answer.ticket.id as number;
    },
    async comment(ticketId, text, o = {}) {
      const comment = { body: text, public: o.public ?? true, author_id: (o.by ?? customer).id, uploads: await uploads(o.files) };
      const answer = await call('PUT', `/api/v2/tickets/${ticketId}.json`, { ticket: { comment, ...(o.status ? { status: o.status } : {}) } });
      written();
      return commentOf(answer);
    },
    async internalNote(ticketId, text, list) {
      const answer = await call('PUT', `/api/v2/tickets/${ticketId}.json`, { ticket: { comment: { body: text, public: false, uploads: await uploads(list) } } });
      written();
      return commentOf(answer);
    },
    async setStatus(ticketId, status) {
      await call('PUT', `/api/v2/tickets/${ticketId}.json`, { ticket: { status } });
      written();
    },
    comments: (ticketId) => store.ticket(ticketId).commentIds.map((id) => json.comment(store.comments.get(id)!)),
    fileBytes: (attachmentId) => store.files.get(attachmentId)!.content,
    // Stamped with the machine's clock: the receiver checks it against its own.
    signWebhook(secret, body, timestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')) {
      const signature = createHmac('sha256', secret).update(timestamp + body).digest('base64');
      return { 'x-zendesk-webhook-signature': signature, 'x-zendesk-webhook-signature-timestamp': timestamp, 'x-zendesk-webhook-id': '01F1KRFQ6BG29CNWFR60NK5FNY' };
    },
    close: async () => {
      await server.close();
      await files.close();
    },
  };
}
