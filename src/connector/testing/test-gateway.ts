/**
 * A real gateway with its embedded sandbox as the platform, in the test's
 * own process (`threadgate/testing`): the connector under test is loaded
 * from its settings entry as `serve` loads it, a message it submits goes
 * through the store to a chat in the sandbox, and an agent's answer comes
 * back through the signed webhook to its `deliver`.
 *
 *   const gw = await startTestGateway({ connectors: [{ name: 'chatline', type: 'chatline', module: './chatline.ts' }] });
 *   await gw.request('chatline', 'POST', '/messages', { body: {...} });
 *   await gw.agentReply('chatline', 'T-1', 'On it');
 *   await gw.stop();
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { startGateway, type RunningGateway } from '../../cli/gateway.ts';
import { loadSettings } from '../../config/load.ts';
import { createLogger } from '../../log/logger.ts';

export interface TestGatewayOptions {
  /** Connector entries as in the settings file; a relative `module` is taken from the working folder. */
  connectors: readonly Record<string, unknown>[];
  /** Further top-level settings (`jobs`, `files`, `health`…), merged over the test defaults. */
  settings?: Readonly<Record<string, unknown>>;
  /** Where the settings file and the SQLite store go; default a new temp folder, removed by `stop`. */
  dir?: string;
  /** Every log line, JSON, is passed here (default: none are written). */
  onLog?: (line: string) => void;
}

export interface Answer {
  status: number;
  /** The body parsed as JSON, when it is JSON. */
  body: any;
  text: string;
}

export interface SandboxMessage {
  id: string;
  type: string;
  sender_type: string;
  message: string;
}

export interface TestGateway {
  /** The gateway's base URL. */
  url: string;
  /** The embedded sandbox's base URL (its control API is under /_sandbox). */
  sandboxUrl: string;
  /** The running gateway: its store, connectors and health, for what the helpers do not cover. */
  gateway: RunningGateway;
  /** A route of a connector, `/connectors/<connector><path>`; an object body is sent as JSON. */
  request(connector: string, method: string, path: string, request?: { body?: unknown; headers?: Record<string, string> }): Promise<Answer>;
  /** Any path of the gateway. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** The platform chat of a connector's thread, once its first message is posted (waits up to `timeoutMs`). */
  chatOf(connector: string, threadKey: string, timeoutMs?: number): Promise<string>;
  /** The chat's messages on the platform, oldest first. */
  messages(connector: string, threadKey: string): Promise<SandboxMessage[]>;
  /** An agent answers in the thread's chat; the answer reaches the connector's `deliver` as from the platform. */
  agentReply(connector: string, threadKey: string, text: string, options?: { files?: readonly AgentFile[] }): Promise<void>;
  /** The platform suggests an answer in the thread's chat (a `reply_suggestion_created` event). */
  suggestReply(connector: string, threadKey: string, suggestion: string): Promise<void>;
  /** Waits until a delivery of the connector has one of `statuses` (default `delivered`); its outcome and error. */
  waitForDelivery(connector: string, options?: { statuses?: readonly string[]; timeoutMs?: number }): Promise<{ id: number; status: string; error: string | null }>;
  /** Stops the gateway and the sandbox (and removes the temp folder it made). */
  stop(): Promise<void>;
}

/** A file an agent attaches: its bytes, name and type. */
export interface AgentFile {
  name: string;
  content: Buffer | string;
  contentType?: string;
  /** `image` shows it inline; default `file`. */
  type?: 'file' | 'image';
}

export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const madeDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'threadgate-test-'));
  const connectors = options.connectors.map((entry) => {
    const module = entry.module;
    return typeof module === 'string' && !isAbsolute(module) ? { ...entry, module: resolve(module) } : entry;
  });
  const file = join(dir, 'threadgate.yaml');
  writeFileSync(file, stringify({ store: { path: 'gateway.db' }, jobs: { backoff_first: '50ms', backoff_max: '1s' }, ...options.settings, connectors }));
  const loaded = loadSettings({ path: file });
  const logger = createLogger(options.onLog ? 'debug' : 'silent', options.onLog ? { write: (line: string) => void options.onLog?.(line) } : undefined);
  const gateway = await startGateway(loaded, logger, { port: 0, jobPollMs: 50 });
  const sandboxUrl = gateway.sandbox?.url;
  if (sandboxUrl === undefined) throw new Error('startTestGateway runs the embedded sandbox: set no platform.url');

  const http = async (url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const raw = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const json = body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body);
    const res = await fetch(url, { method, headers: { ...(json ? { 'content-type': 'application/json' } : {}), ...headers }, ...(raw === undefined ? {} : { body: raw }) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  };
  const sandbox = (method: string, path: string, body?: unknown) => http(`${sandboxUrl}/_sandbox${path}`, method, body);

  const chatOf = async (connector: string, threadKey: string, timeoutMs = 10_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const chatId = (await gateway.store.read.threads.byKey(connector, threadKey))?.chatId;
      if (chatId) return chatId;
      if (Date.now() > deadline) throw new Error(`no chat for ${connector}'s thread ${JSON.stringify(threadKey)} within ${timeoutMs} ms: was a message submitted?`);
      await sleep(25);
    }
  };
  const expectOk = (answer: Answer, what: string) => {
    if (answer.status >= 300) throw new Error(`${what}: the sandbox answered ${answer.status} ${answer.text}`);
  };

  let stopped: Promise<void> | undefined;
  return {
    url: gateway.url,
    sandboxUrl,
    gateway,
    request: (connector, method, path, request = {}) => http(`${gateway.url}/connectors/${connector}${path}`, method, request.body, request.headers),
    call: (method, path, body, headers) => http(`${gateway.url}${path}`, method, body, headers),
    chatOf,
    async messages(connector, threadKey) {
      const answer = await sandbox('GET', `/chats/${await chatOf(connector, threadKey)}/messages`);
      expectOk(answer, 'messages');
      return answer.body.results as SandboxMessage[];
    },
    async agentReply(connector, threadKey, text, replyOptions = {}) {
      const attachments = replyOptions.files?.map((f) => ({
        type: f.type ?? 'file',
        name: f.name,
        content_type: f.contentType ?? 'application/octet-stream',
        content_base64: (Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content)).toString('base64'),
      }));
      const chatId = await chatOf(connector, threadKey);
      expectOk(await sandbox('POST', `/chats/${chatId}/agent_messages`, { text, ...(attachments ? { attachments } : {}) }), 'agentReply');
    },
    async suggestReply(connector, threadKey, suggestion) {
      expectOk(await sandbox('POST', `/chats/${await chatOf(connector, threadKey)}/reply_suggestions`, { suggestion }), 'suggestReply');
    },
    async waitForDelivery(connector, waitOptions = {}) {
      const statuses = waitOptions.statuses ?? ['delivered'];
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 10_000);
      for (;;) {
        const rows = await gateway.store.read.sql.all<{ id: number; status: string; error: string | null }>(
          `select id, status, error from deliveries where connector = ? order by id desc limit 50`,
          [connector],
        );
        const found = rows.find((r) => statuses.includes(r.status));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no delivery of ${connector} is ${statuses.join(' or ')} (${rows.map((r) => r.status).join(', ') || 'none yet'})`);
        await sleep(25);
      }
    },
    stop() {
      stopped ??= gateway.close().finally(() => {
        if (madeDir) rmSync(dir, { recursive: true, force: true });
      });
      return stopped;
    },
  };
}
