/**
 * An in-memory `ConnectorContext` for the webhook connector's tests: it
 * records every submit, close and stored file, keeps a threads map, and captures the
 * connector's log lines. It stands in for the bridge, which is tested against
 * SQLite elsewhere; here only the connector's side of the contract matters.
 */
import { pino } from 'pino';
import type {
  ConnectorContext,
  ConnectorState,
  RouteHandler,
  SkipRecord,
  SubmitMessage,
  SubmitResult,
  Thread,
  ThreadDirectory,
} from '../../../src/connector/api.ts';
import { AttachmentUnavailableError } from '../../../src/connector/api.ts';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

export interface RecordingContext extends ConnectorContext {
  readonly submits: SubmitMessage[];
  readonly closes: string[];
  readonly skips: SkipRecord[];
  readonly threadsByKey: Map<string, Thread>;
  readonly logs: LogLine[];
  /** Every file put into `files`, in order. */
  readonly puts: { filename: string; contentType: string; content: Buffer }[];
  /** Every log line as written, to search for leaked secrets. */
  readonly rawLog: () => string;
  /** The handler the connector registered, or a failed test. */
  route(method: string, path: string): RouteHandler;
  /** Makes every later submit wait until the returned function is called. */
  holdSubmits(): () => void;
}

/** The fake's platform thread_id of a key (the real bridge derives its own). */
export function platformThreadId(connector: string, key: string): string {
  return `${connector}:${key}`;
}

export function recordingContext(name = 'partner-hooks'): RecordingContext {
  const submits: SubmitMessage[] = [];
  const closes: string[] = [];
  const skips: SkipRecord[] = [];
  const threadsByKey = new Map<string, Thread>();
  const seen = new Set<string>();
  const routes = new Map<string, RouteHandler>();
  const logs: LogLine[] = [];
  const raw: string[] = [];
  const state = new Map<string, unknown>();
  const puts: RecordingContext['puts'] = [];
  let hold: Promise<void> | undefined;

  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        raw.push(line);
        logs.push(JSON.parse(line) as LogLine);
      },
    },
  );

  const threadOf = (key: string): Thread => {
    let thread = threadsByKey.get(key);
    if (thread === undefined) {
      thread = { key, threadId: platformThreadId(name, key), chatId: null, references: [], closed: false, createdAt: new Date() };
      threadsByKey.set(key, thread);
    }
    return thread;
  };

  const threads: ThreadDirectory = {
    async get(key) {
      return threadsByKey.get(key);
    },
    async byThreadId(threadId) {
      return [...threadsByKey.values()].find((t) => t.threadId === threadId);
    },
    async byReference(reference) {
      return [...threadsByKey.values()].find((t) => t.references.includes(reference));
    },
    async attach(key, references) {
      const thread = threadOf(key);
      thread.references.push(...references.filter((r) => !thread.references.includes(r)));
      return thread;
    },
  };

  const connectorState: ConnectorState = {
    async get<T>(key: string) {
      return state.get(key) as T | undefined;
    },
    async set(key, value) {
      state.set(key, structuredClone(value));
    },
    async delete(key) {
      state.delete(key);
    },
    async keys(prefix, limit = 100) {
      return [...state.keys()].filter((k) => k.startsWith(prefix)).sort().slice(0, limit);
    },
  };

  return {
    name,
    sealer: undefined,
    secrets: { get: async () => undefined },
    attachments: {
      async fetch(attachment) {
        throw new AttachmentUnavailableError(`no file is served for ${attachment.url} in this recording context`, 404);
      },
    },
    submits,
    closes,
    skips,
    threadsByKey,
    logs,
    puts,
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
        const key = `${method} ${path}`;
        if (routes.has(key)) throw new Error(`route ${key} registered twice`);
        routes.set(key, handler);
      },
    },
    async submit(message): Promise<SubmitResult> {
      if (hold !== undefined) await hold;
      const thread = threadOf(message.threadKey);
      if (seen.has(message.messageId)) return { duplicate: true, threadId: thread.threadId };
      seen.add(message.messageId);
      submits.push(message);
      thread.closed = false;
      return { duplicate: false, threadId: thread.threadId };
    },
    async submitAll(items): Promise<SubmitResult[]> {
      const results: SubmitResult[] = [];
      for (const item of items) results.push(await this.submit(item.message));
      return results;
    },
    async skip(record) {
      const duplicate = skips.some((s) => s.messageId === record.messageId);
      if (!duplicate) skips.push(record);
      return { duplicate };
    },
    async close(key) {
      closes.push(key);
      const thread = threadsByKey.get(key);
      if (thread !== undefined) thread.closed = true;
    },
    route(method, path) {
      const handler = routes.get(`${method} ${path}`);
      if (handler === undefined) throw new Error(`no route ${method} ${path} was registered`);
      return handler;
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
}
