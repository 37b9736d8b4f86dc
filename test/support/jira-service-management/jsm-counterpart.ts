/**
 * A Jira Service Management site for tests: the counterpart server
 * (jsm-server.ts) with its people, and what they do through the site's own
 * REST API with their own credentials — never through the adapter:
 *
 *   gateway   the account the connector authenticates as (an agent; its profile zone is `gatewayZone`)
 *   agent     Sam Staff, another agent: internal comments, resolve, close, reopen
 *   customer  Ann Customer: raises requests (with files), comments publicly (with files)
 *
 * Reference pages the counterpart follows (stored copies read 2026-11-29):
 *   https://developer.atlassian.com/cloud/jira/service-desk/rest/api-group-request/
 *   https://developer.atlassian.com/cloud/jira/service-desk/rest/api-group-servicedesk/
 *   https://developer.atlassian.com/cloud/jira/service-desk/swagger.v3.json (schemas, examples)
 *   https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search/ (GET /rest/api/3/search/jql)
 *   https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-myself/
 *   https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issues/
 *   https://developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-attachments/
 *   https://developer.atlassian.com/cloud/jira/platform/search-and-reconcile/ (search is eventually consistent)
 *   https://developer.atlassian.com/cloud/jira/platform/rate-limiting/
 *   https://developer.atlassian.com/changelog/#CHANGE-2046 (GET /rest/api/3/search removed)
 */
import { startJsmServer, type JsmServer } from './jsm-server.ts';
import { DESK, JsmStore, type JsmComment, type JsmUser } from './jsm-store.ts';
import type { Knobs } from './jsm-routes.ts';
import type { RateLimit } from './jsm-gate.ts';

export interface HelperFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface JsmOptions {
  /** The gateway account's profile time zone (default Australia/Sydney); null: hidden. */
  gatewayZone?: string | null;
  knobs?: Partial<Knobs>;
}

export interface JsmCounterpart {
  url: string;
  store: JsmStore;
  server: JsmServer;
  desk: typeof DESK;
  gateway: JsmUser;
  agent: JsmUser;
  customer: JsmUser;
  /** Raises a request as `who` (a customer), then attaches `files` to it without a comment, as the portal does; resolves its issue id and key. */
  openRequest(who: JsmUser, request: { summary: string; description: string; files?: readonly HelperFile[] }): Promise<{ id: string; key: string }>;
  /** A comment by `who`, public unless `internal`, with `files` attached in the same change. */
  comment(who: JsmUser, id: string, body: string, options?: { internal?: boolean; files?: readonly HelperFile[] }): Promise<void>;
  /** A workflow transition by `who` (an agent). */
  transition(who: JsmUser, id: string, to: 'progress' | 'resolve' | 'close' | 'reopen'): Promise<void>;
  /** The comments of a request written by the gateway's account, oldest first. */
  gatewayComments(id: string): JsmComment[];
  /** Limits the gateway account's requests (undefined: none). */
  limitGateway(limit: RateLimit | undefined): void;
  close(): Promise<void>;
}

const TRANSITION_IDS = { progress: '801', resolve: '761', close: '901', reopen: '781' } as const;

export async function startJsm(options: JsmOptions = {}): Promise<JsmCounterpart> {
  const store = new JsmStore();
  const gateway = store.addUser({ accountId: '5b10a2844c20165700ede21g', displayName: 'Threadgate Gateway', email: 'threadgate@example.test', apiToken: 'ATATT3xFfGF0-gateway-token', timeZone: options.gatewayZone === undefined ? 'Australia/Sydney' : options.gatewayZone, agent: true });
  const agent = store.addUser({ accountId: '5b10ac8d82e05b22cc7d4ef5', displayName: 'Sam Staff', email: 'sam@example.test', apiToken: 'ATATT3xFfGF0-agent-token', timeZone: 'Europe/Berlin', agent: true });
  const customer = store.addUser({ accountId: 'qm:a713c8ea-1075-4e30-9d96-891a7d181739:5ad6d3581db05e2a66fa80b', displayName: 'Ann Customer', email: 'ann@customer.test', apiToken: 'ATATT3xFfGF0-customer-token', timeZone: 'America/New_York', agent: false });
  const server = await startJsmServer(store, options.knobs);

  const call = async (who: JsmUser, method: string, path: string, body?: unknown, form?: FormData): Promise<any> => {
    const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${who.email}:${who.apiToken}`).toString('base64')}`, accept: 'application/json' };
    if (form) headers['x-atlassian-token'] = 'no-check';
    else if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)) });
    const text = await res.text();
    if (!res.ok) throw new Error(`the counterpart answered ${method} ${path} as ${who.displayName} with ${res.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const upload = async (who: JsmUser, files: readonly HelperFile[]): Promise<string[]> => {
    const form = new FormData();
    for (const f of files) form.append('file', new Blob([new Uint8Array(f.content)], { type: f.contentType }), f.filename);
    const answer = await call(who, 'POST', `/rest/servicedeskapi/servicedesk/${DESK.id}/attachTemporaryFile`, undefined, form);
    return answer.temporaryAttachments.map((t: { temporaryAttachmentId: string }) => t.temporaryAttachmentId);
  };

  return {
    url: server.url,
    store,
    server,
    desk: DESK,
    gateway,
    agent,
    customer,
    async openRequest(who, request) {
      const made = await call(who, 'POST', '/rest/servicedeskapi/request', { serviceDeskId: DESK.id, requestTypeId: DESK.requestTypeId, requestFieldValues: { summary: request.summary, description: request.description } });
      if (request.files?.length) {
        await call(who, 'POST', `/rest/servicedeskapi/request/${made.issueId}/attachment`, { temporaryAttachmentIds: await upload(who, request.files), public: true });
      }
      return { id: made.issueId, key: made.issueKey };
    },
    async comment(who, id, body, opts = {}) {
      const isPublic = opts.internal !== true;
      if (opts.files?.length) {
        await call(who, 'POST', `/rest/servicedeskapi/request/${id}/attachment`, { temporaryAttachmentIds: await upload(who, opts.files), public: isPublic, additionalComment: { body } });
      } else {
        await call(who, 'POST', `/rest/servicedeskapi/request/${id}/comment`, { body, public: isPublic });
      }
    },
    async transition(who, id, to) {
      await call(who, 'POST', `/rest/servicedeskapi/request/${id}/transition`, { id: TRANSITION_IDS[to] });
    },
    gatewayComments: (id) => store.issue(id)?.comments.filter((c) => c.authorId === gateway.accountId) ?? [],
    limitGateway: (limit) => server.gate.limit(gateway.accountId, limit),
    close: () => server.close(),
  };
}
