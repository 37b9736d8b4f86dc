/**
 * Builds the `ConnectorContext` one connector gets (the bridge's side of the
 * plugin contract in src/connector/api.ts): exactly submit, close, threads,
 * state, secrets, routes, files, attachments, receipts, wakePoller and a child logger, each
 * bound to the connector's name so it can only reach its own threads, state,
 * receipts and URL space (its files are recorded as its own).
 */
import type { Logger } from 'pino';
import type { AttachmentFetcher, ConnectorContext, ConnectorRoutes, Sealer, SkipRecord, SubmitItem, SubmitMessage, SubmitOptions, SubmitResult, Thread } from '../connector/api.ts';
import type { LiveFeed } from '../base/live-feed.ts';
import type { Store } from '../store/database.ts';
import type { ThreadRow } from '../store/threads-repo.ts';
import type { FileService } from './files.ts';
import { deliveryReceipts } from './delivery-receipts.ts';
import type { InboundBridge } from './inbound.ts';
import { connectorSecrets } from './operator-secrets.ts';
import { toThreadView } from './outbound-dispatch.ts';
import { deriveThreadId } from './thread-id.ts';

export interface ContextDeps {
  store: Store;
  inbound: InboundBridge;
  logger: Logger;
  now?: () => number;
  /** From `store.encryption_key`, when set. */
  sealer?: Sealer;
  /** The file store behind `ctx.files`. */
  files: FileService;
  /** The downloads behind `ctx.attachments` (src/bridge/attachment-fetcher.ts), shared by every connector. */
  attachments: AttachmentFetcher;
  /** What listens live: each message stored or skipped. */
  feed?: LiveFeed;
  /** Gives the connector's poll a turn, wherever it runs (ConnectorRuntime.wakePoller). */
  wakePoller?: (connector: string) => void;
}

export function createConnectorContext(name: string, deps: ContextDeps, routes: ConnectorRoutes): ConnectorContext {
  const now = deps.now ?? Date.now;
  const { store } = deps;
  /** Tells the live feed what each submit stored. */
  const told = (messages: readonly SubmitMessage[], results: readonly SubmitResult[]): void => {
    if (!deps.feed?.listening) return;
    for (const [i, r] of results.entries()) {
      deps.feed.publish('intake', name, { result: r.duplicate ? 'duplicate' : 'stored', message_id: messages[i]?.messageId, thread_key: messages[i]?.threadKey, thread_id: r.threadId });
    }
  };
  const view = async (row: ThreadRow | undefined): Promise<Thread | undefined> => row && toThreadView(row, await store.read.threads.references(row.id));
  const ctx: ConnectorContext = {
    name,
    submit: async (message: SubmitMessage, options?: SubmitOptions) => {
      const result = await deps.inbound.submit(name, message, options?.state);
      told([message], [result]);
      return result;
    },
    submitAll: async (items: readonly SubmitItem[]) => {
      const results = await deps.inbound.submitAll(name, items);
      told(items.map((i) => i.message), results);
      return results;
    },
    close: async (threadKey: string) => deps.inbound.close(name, threadKey),
    skip: async (record: SkipRecord) => {
      const fresh = await store.write((tx) => tx.skipped.record(
        {
          connector: name,
          externalId: record.messageId,
          senderId: record.senderId ?? null,
          summary: record.summary?.slice(0, 300) ?? null,
          code: record.code,
          reason: record.reason,
        },
        now(),
      ));
      if (fresh) deps.logger.info({ connector: name, message_id: record.messageId, code: record.code }, `skipped: ${record.reason}`);
      if (fresh && deps.feed?.listening) deps.feed.publish('intake', name, { result: 'skipped', message_id: record.messageId, code: record.code, reason: record.reason });
      return { duplicate: !fresh };
    },
    threads: Object.freeze({
      get: async (threadKey: string) => view(await store.read.threads.byKey(name, threadKey)),
      byThreadId: async (threadId: string) => view(await store.read.threads.byThreadId(name, threadId)),
      byReference: async (reference: string) => view(await store.read.threads.byReference(name, reference)),
      attach: async (threadKey: string, references: string[]) => {
        const row = await store.write(async (tx) => {
          const thread = await tx.threads.ensure(name, threadKey, deriveThreadId(name, threadKey), now());
          await tx.threads.attach(name, thread.id, references, now());
          return thread;
        });
        return (await view(row)) as Thread;
      },
    }),
    state: Object.freeze({
      get: async <T>(key: string) => (await store.read.state.get(name, key)) as T | undefined,
      set: async (key: string, value: unknown) => store.write((tx) => tx.state.set(name, key, value, now())),
      delete: async (key: string) => store.write((tx) => tx.state.delete(name, key)),
      keys: async (prefix: string, limit = 100) => store.read.state.keys(name, prefix, limit),
    }),
    routes,
    logger: deps.logger.child({ connector: name }),
    sealer: deps.sealer,
    secrets: connectorSecrets(async (key) => store.read.state.get(name, key), deps.sealer, deps.logger.child({ connector: name })),
    files: Object.freeze({ put: async (file: { filename: string; contentType: string; content: Buffer }) => deps.files.put(name, file) }),
    // Only `fetch`: a connector cannot close the shared fetcher.
    attachments: Object.freeze({ fetch: deps.attachments.fetch.bind(deps.attachments) }),
    receipts: deliveryReceipts(name, store, deps.logger, now),
    wakePoller: () => deps.wakePoller?.(name),
  };
  return Object.freeze(ctx);
}
