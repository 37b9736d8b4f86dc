/**
 * An in-memory `ConnectorContext` for a connector's unit tests
 * (`threadgate/testing`): it records every submit, skip, close, stored file
 * and delivery receipt (keeping each message's furthest status, as the
 * gateway does), keeps threads and state in maps, captures the log, and
 * serves the attachments a test gives it. Submits are checked by the bridge's own rules
 * (`TG_SUBMIT_INVALID`, naming the field), and a route answers as the
 * gateway would: a `RouteError` with its status and body, anything else 500.
 *
 *   const ctx = recordingContext({ name: 'chatline' });
 *   const instance = await definition.create(definition.configSchema.parse(settings), ctx);
 *   const res = await ctx.request('POST', '/messages', { body: {...}, headers: {...} });
 *   expect(ctx.submits).toHaveLength(1);
 */
import { pino } from 'pino';
import {
  AttachmentUnavailableError,
  RouteError,
  type ConnectorContext,
  type ConnectorState,
  type DeliveryReceipt,
  type FetchedAttachment,
  type RouteHandler,
  type RouteResponse,
  type SkipRecord,
  type SubmitMessage,
  type SubmitResult,
  type Thread,
} from '../api.ts';
import { checkReceipt, receiptAdvances } from '../receipt-rules.ts';
import { ConnectorRouteTable } from '../route-table.ts';
import { checkSubmitMessage, checkSubmitMessages } from '../submit-rules.ts';
import { recordingThreads } from './recording-threads.ts';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** pino's numbers of the levels, for `ctx.logs.filter((l) => l.level >= LEVEL.warn)`. */
export const LEVEL = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

/** A file `ctx.attachments.fetch` hands out for an attachment's URL. */
export interface ServedFile {
  content: Buffer | string;
  contentType?: string;
  /** Default: the attachment's `name`, else the URL's last segment. */
  filename?: string;
}

export interface RecordingContextOptions {
  /** The connector's name from the settings. Default `test-connector`. */
  name?: string;
  /** What `ctx.attachments.fetch` serves, by URL; any other URL is refused as the platform would (404). */
  files?: Readonly<Record<string, ServedFile>>;
  /** Default `debug`. */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
}

/** A request to one of the connector's routes, as the gateway hands it over. */
export interface TestRequest {
  /** An object or array is sent as JSON; a string or Buffer as it is. */
  body?: unknown;
  headers?: Record<string, string | undefined>;
  query?: Record<string, string>;
}

export interface RecordingContext extends ConnectorContext {
  readonly submits: SubmitMessage[];
  readonly closes: string[];
  readonly skips: SkipRecord[];
  readonly threadsByKey: Map<string, Thread>;
  readonly logs: LogLine[];
  /** Every file put into `files`, in order. */
  readonly puts: { filename: string; contentType: string; content: Buffer }[];
  /** Every receipt handed to `receipts.record`, in order (checked by the gateway's rules). */
  readonly recordedReceipts: DeliveryReceipt[];
  /** The receipt the gateway would keep for `externalId`: the furthest status recorded. */
  receiptOf(externalId: string): DeliveryReceipt | undefined;
  /** How often `wakePoller()` was called. */
  wakes(): number;
  /** Every log line as written, to search for a leaked secret. */
  rawLog(): string;
  /** Every route the connector registered, as `method` and its path pattern. */
  registeredRoutes(): { method: string; path: string }[];
  /** The handler registered for exactly `method path` (the pattern, `:param` and all); throws when none is. */
  route(method: string, path: string): RouteHandler;
  /** Calls the route that serves `method path` as the gateway would: 404/405 when none does, 500 for an unexpected error. */
  request(method: string, path: string, request?: TestRequest): Promise<RouteResponse>;
  /** Makes every later submit wait until the returned function is called. */
  holdSubmits(): () => void;
}

export function recordingContext(options: RecordingContextOptions | string = {}): RecordingContext {
  const { name = 'test-connector', files = {}, logLevel = 'debug' } = typeof options === 'string' ? { name: options } : options;
  const submits: SubmitMessage[] = [];
  const closes: string[] = [];
  const skips: SkipRecord[] = [];
  const seen = new Set<string>();
  const patterns = new Map<string, RouteHandler>();
  const table = new ConnectorRouteTable();
  const routes = table.forConnector(name);
  const logs: LogLine[] = [];
  const raw: string[] = [];
  const state = new Map<string, unknown>();
  const puts: RecordingContext['puts'] = [];
  const recordedReceipts: DeliveryReceipt[] = [];
  let wakes = 0;
  const keptReceipts = new Map<string, DeliveryReceipt>();
  const { threads, threadsByKey, threadOf } = recordingThreads(name);
  let hold: Promise<void> | undefined;

  const logger = pino({ level: logLevel }, {
    write(line: string) {
      raw.push(line);
      logs.push(JSON.parse(line) as LogLine);
    },
  });

  const connectorState: ConnectorState = {
    get: async <T>(key: string) => structuredClone(state.get(key)) as T | undefined,
    set: async (key, value) => void state.set(key, structuredClone(value)),
    delete: async (key) => void state.delete(key),
    keys: async (prefix, limit = 100) => [...state.keys()].filter((k) => k.startsWith(prefix)).sort().slice(0, limit),
  };

  const submitOne = (message: SubmitMessage, entries?: Readonly<Record<string, unknown>>): SubmitResult => {
    const thread = threadOf(message.threadKey);
    if (message.references?.length) thread.references.push(...message.references.filter((r) => !thread.references.includes(r)));
    if (seen.has(message.messageId)) return { duplicate: true, threadId: thread.threadId };
    seen.add(message.messageId);
    submits.push(message);
    thread.closed = false;
    for (const [key, value] of Object.entries(entries ?? {})) state.set(key, structuredClone(value));
    return { duplicate: false, threadId: thread.threadId };
  };

  const ctx: RecordingContext = {
    name,
    sealer: undefined,
    secrets: { get: async () => undefined },
    attachments: {
      async fetch(attachment) {
        const served = files[attachment.url];
        if (served === undefined) throw new AttachmentUnavailableError(`no file is served for ${attachment.url} in this recording context`, 404);
        return fetchedOf(attachment, served);
      },
    },
    submits,
    closes,
    skips,
    threadsByKey,
    logs,
    puts,
    recordedReceipts,
    receiptOf: (externalId) => keptReceipts.get(externalId),
    wakePoller: () => void (wakes += 1),
    wakes: () => wakes,
    receipts: {
      async record(receipt) {
        checkReceipt(receipt);
        recordedReceipts.push(receipt);
        const changed = receiptAdvances(keptReceipts.get(receipt.externalId)?.status, receipt.status);
        if (changed) keptReceipts.set(receipt.externalId, receipt);
        return { changed };
      },
    },
    files: {
      async put(file) {
        puts.push(file);
        const id = `file-${puts.length}`;
        return { id, url: `https://gw.example.test/files/${id}?e=0&s=recorded`, size: file.content.length };
      },
    },
    rawLog: () => raw.join(''),
    threads,
    state: connectorState,
    logger,
    routes: {
      add(method, path, handler) {
        routes.add(method, path, handler);
        patterns.set(`${method} ${path}`, handler);
      },
    },
    async submit(message, submitOptions) {
      checkSubmitMessage(message);
      if (hold !== undefined) await hold;
      return submitOne(message, submitOptions?.state);
    },
    async submitAll(items) {
      checkSubmitMessages(items.map((item) => item.message));
      if (hold !== undefined) await hold;
      return items.map((item) => submitOne(item.message, item.state));
    },
    async skip(record) {
      const duplicate = skips.some((s) => s.messageId === record.messageId);
      if (!duplicate) skips.push(record);
      return { duplicate };
    },
    async close(key) {
      const thread = threadsByKey.get(key);
      if (thread === undefined) throw new RouteError(404, 'TG_THREAD_NOT_FOUND', `connector ${name} has no thread ${JSON.stringify(key)}`);
      closes.push(key);
      thread.closed = true;
    },
    registeredRoutes: () => [...patterns.keys()].map((key) => ({ method: key.slice(0, key.indexOf(' ')), path: key.slice(key.indexOf(' ') + 1) })),
    route(method, path) {
      const handler = patterns.get(`${method} ${path}`);
      if (handler === undefined) throw new Error(`no route ${method} ${path} was registered`);
      return handler;
    },
    async request(method, path, request = {}) {
      const match = table.match(name, method, path.split('?')[0] ?? path);
      if (match === undefined) return { status: 404, body: { code: 'TG_NOT_FOUND', message: `no route ${method} ${path}` } };
      if (match === 'method') return { status: 405, body: { code: 'TG_METHOD_NOT_ALLOWED', message: `${method} is not served at ${path}` } };
      const body = request.body;
      const rawBody = body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const headers: Record<string, string | undefined> = {};
      if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)) headers['content-type'] = 'application/json';
      for (const [key, value] of Object.entries(request.headers ?? {})) headers[key.toLowerCase()] = value;
      try {
        return await match.handler({ method, path, params: match.params, query: request.query ?? {}, headers, rawBody });
      } catch (err) {
        if (err instanceof RouteError) return { status: err.statusCode, body: err.toJSON() };
        logger.error({ err }, `route ${method} ${path} failed`);
        return { status: 500, body: { code: 'TG_INTERNAL', message: 'internal error' } };
      }
    },
    holdSubmits() {
      let release = () => {};
      hold = new Promise<void>((resolve) => {
        release = () => {
          hold = undefined;
          resolve();
        };
      });
      return release;
    },
  };
  return ctx;
}

function fetchedOf(attachment: { url: string; name?: string | undefined }, served: ServedFile): FetchedAttachment {
  const fromUrl = decodeURIComponent(new URL(attachment.url).pathname.split('/').pop() ?? '') || 'file';
  return {
    filename: served.filename ?? attachment.name ?? fromUrl,
    contentType: served.contentType ?? 'application/octet-stream',
    content: Buffer.isBuffer(served.content) ? served.content : Buffer.from(served.content),
  };
}
