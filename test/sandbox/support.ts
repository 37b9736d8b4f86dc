/**
 * Helpers of the sandbox suites: a sandbox on a real port (closed after the
 * test), a small JSON client, and a webhook receiver on a real port that
 * records every request with its raw body.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { onTestFinished } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.ts';
import { until } from '../support/wait.ts';

export interface JsonResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or undefined for an empty body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response shapes
  body: any;
  text: string;
}

export interface CallOptions {
  /** The Authorization header; defaults to the sandbox's own token. null sends none. */
  authorization?: string | null;
  /** A raw body sent as application/json as is. */
  raw?: string;
  /** Further request headers. */
  headers?: Record<string, string>;
}

export interface TestSandbox extends RunningSandbox {
  /** Calls a path of the sandbox; JSON in, JSON out. */
  call(method: string, path: string, body?: unknown, options?: CallOptions): Promise<JsonResponse>;
  /** The unified messaging collection path of the sandbox's organization. */
  um: string;
  /** A channel configuration of the sandbox's organization with valid defaults, overridable. */
  createConfig(fields?: Record<string, unknown>): Promise<ConfigurationJson>;
  /** POST messages; `messages` items get valid defaults. */
  postMessages(configId: string, body: MessagesBody | Record<string, unknown>): Promise<JsonResponse>;
  info(): Promise<SandboxInfo>;
}

export interface ConfigurationJson {
  id: string;
  name: string;
  messaging_channel: string;
  room_id: string;
  reply_webhook_url: string;
  max_retry_count: number;
  webhook_secret_key?: string | null;
  created_at: string;
  modified_at: string;
}

export interface MessagesBody {
  messages: Record<string, unknown>[];
  skip_waiting_state?: boolean;
  close_session?: boolean;
  variables?: Record<string, string | null>;
}

export interface SandboxInfo {
  organization_id: string;
  room_id: string;
  foreign_organization_id: string;
  foreign_room_id: string;
  agent: { id: string; name: string; public_name: string };
  foreign_agent: { id: string };
  token: string;
  /** The sandbox clock. */
  now: string;
}

let messageSeq = 0;

/** A visitor message of `threadId` with unique message_id. */
export function visitorMessage(threadId: string, body = 'Hello', extra: Record<string, unknown> = {}) {
  messageSeq += 1;
  return { body, thread_id: threadId, sender_id: 'customer@example.com', message_id: `<m${messageSeq}@example.com>`, ...extra };
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  onTestFinished(() => sandbox.close());
  const um = `/api/v5/orgs/${sandbox.organizationId}/unified_messaging`;

  const call: TestSandbox['call'] = async (method, path, body, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const authorization = options.authorization === undefined ? `Token ${sandbox.token}` : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    let payload: string | undefined = options.raw;
    if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${sandbox.url}${path}`, { method: method as 'GET', headers, body: payload });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body: text === '' ? undefined : JSON.parse(text), text };
  };

  const createConfig: TestSandbox['createConfig'] = async (fields = {}) => {
    const res = await call('POST', um, {
      name: 'Support inbox',
      messaging_channel: 'email',
      room_id: sandbox.roomId,
      reply_webhook_url: 'http://127.0.0.1:9/unused',
      ...fields,
    });
    if (res.status !== 201) throw new Error(`creating a configuration answered ${res.status}: ${res.text}`);
    return res.body as ConfigurationJson;
  };

  return {
    ...sandbox,
    um,
    call,
    createConfig,
    postMessages: (configId, body) => call('POST', `${um}/${configId}/messages`, body),
    info: async () => (await call('GET', '/_sandbox/info')).body as SandboxInfo,
  };
}

export interface ReceivedWebhook {
  /** The request path. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
}

/** How the receiver answers its nth request (1-based): a status, optionally after a delay. */
export type Respond = (n: number) => { status: number; delayMs?: number; headers?: Record<string, string> };

export async function startReceiver(respond: Respond = () => ({ status: 200 })): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
      const { status, delayMs = 0, headers = {} } = respond(received.length);
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{"ok":true}');
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;

  const waitFor = async (count: number, timeoutMs = 5000) => {
    await until(() => received.length >= count, timeoutMs, `${count} webhook request(s), got ${received.length}`);
    return received.slice(0, count);
  };
  return { url: `http://127.0.0.1:${port}/hooks/reply`, received, waitFor };
}

export { sleep, until } from '../support/wait.ts';
