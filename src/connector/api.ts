/**
 * The connector plugin contract, published as `threadgate/connector`: the
 * only module a connector imports from. Its files and credentials
 * (files-api.ts), its delivery receipts (receipts-api.ts) and its errors
 * (delivery-errors.ts) live beside it and are re-exported here.
 *
 * A connector links one external system (a mailbox, a ticket system, any
 * HTTP client) to the platform. It is a definition — a `type`, a zod
 * `configSchema` for its own settings keys, and `create(config, ctx)` — and
 * the instance `create` returns. The instance sees the world only through the
 * `ConnectorContext`: it never touches SQL, jobs or the platform client.
 *
 *   inbound:  external message ──▶ ctx.submit(...)  (resolves once stored durably)
 *   outbound: agent reply      ──▶ instance.deliver(event, thread)  (retried as a job)
 *
 * Errors thrown by `deliver` are retried with backoff; throw
 * `PermanentDeliveryError` to dead-letter at once, `RetryLaterError` to name
 * the wait. See docs/connectors.md for a complete example.
 */
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { AttachmentFetcher, ConnectorSecrets, FileStore, Sealer } from './files-api.ts';
import type { DeliveryReceipts } from './receipts-api.ts';
import type { ConnectorRoutes } from './routes-api.ts';
import type { MessageAttachment, MessageCreatedEvent, ReplySuggestionCreatedEvent, WebhookEvent } from '../platform/schemas/unified-messaging.ts';

export type { Logger, MessageAttachment, MessageCreatedEvent, ReplySuggestionCreatedEvent, WebhookEvent };
/** The file and image attachments of an agent's message (`event.message.attachments`); other elements are left out. */
export { knownAttachments } from '../platform/schemas/unified-messaging.ts';
/** Waits `ms`, or less when `signal` aborts; never rejects (for poll and reconnect loops). */
export { sleep } from '../base/sleep.ts';
/** A `Retry-After` header in ms (delta-seconds or an HTTP-date); undefined when absent or unreadable. */
export { parseRetryAfter } from '../platform/retry.ts';
/** What an HTTP answer means for a delivery, and the error it is (http-answers.ts). */
export { answerExcerpt, deliveryErrorFor, judgeHttpAnswer, retryAfterOf } from './http-answers.ts';
export type { AnswerHeaders, DeliveryErrorOptions, HttpAnswer, HttpVerdict } from './http-answers.ts';
/** A timing-safe check of an HMAC signature header (hmac-signature.ts). */
export { verifyHmacSignature } from './hmac-signature.ts';
export type { HmacRefusal, HmacSignatureCheck, HmacVerdict } from './hmac-signature.ts';
/** The rules every submitted message must meet, and the error that names a broken one (submit-rules.ts). */
export { checkSubmitMessage, MAX_SUBMIT_BODY, MAX_SUBMIT_KEY, SubmitInvalidError } from './submit-rules.ts';
export { formatSize } from './file-size.ts'; // a file size for people: `512 B`, `24 KB` (1 KB = 1024 B)
export { readCapped } from './capped-body.ts'; // a body read whole, never past a cap
/** Chat text from mail-like parts: plain read, else HTML converted; quoted history and signature cut (text/). */
export { htmlToReadableText } from './text/html-text.ts';
export { normaliseText, readableText } from './text/mail-text.ts';
export { stripQuotes } from './text/strip-quotes.ts';
/** Files and credentials: `ctx.attachments`, `ctx.files`, `ctx.secrets`, `ctx.sealer` (files-api.ts). */
export type { AttachmentFetcher, ConnectorSecrets, FetchedAttachment, FileStore, Sealer } from './files-api.ts';
/** What the other side reported of a message the connector sent: `ctx.receipts` (receipts-api.ts). */
export type { DeliveryReceipt, DeliveryReceipts, ReceiptStatus } from './receipts-api.ts';
/** A connector's HTTP routes: `ctx.routes` (routes-api.ts). */
export type { ConnectorRoutes, RouteHandler, RouteRequest, RouteResponse } from './routes-api.ts';
/** The errors a connector throws (delivery-errors.ts). */
export { AttachmentFetchError, AttachmentHostRefusedError, AttachmentTooLargeError, AttachmentUnavailableError, PermanentDeliveryError } from './delivery-errors.ts';
export { RetryLaterError, RouteError, TransientDeliveryError, unfetchableReason } from './delivery-errors.ts';

// ─── Inbound ──────────────────────────────────────────────────────────────────

/** One external message handed to the bridge. */
export interface SubmitMessage {
  /** The connector's own key of the conversation (e-mail root Message-ID, ticket id…). */
  threadKey: string;
  /** The external system's id of this message; `(connector, messageId)` is the dedup key. */
  messageId: string;
  /** Who wrote it: a free-form visitor id (an address), or a platform user UUID with `senderType: 'user'`. */
  senderId: string;
  /** Display name, sent as the visitor variable `name` unless `variables.name` is given. */
  senderName?: string;
  senderType?: 'visitor' | 'user';
  /** The text posted to the platform; must not be blank. */
  body: string;
  /** The full original text (quotes, signature), kept in the store only. */
  fullText?: string;
  /** Visitor variables; null values are ignored by the platform. */
  variables?: Record<string, string | null>;
  /** External references attached to the thread in the same transaction (e.g. Message-IDs). */
  references?: string[];
  /** Do not place a new session in the waiting queue. */
  skipWaitingState?: boolean;
  /** Close the session right after this message is posted (importing an old thread). */
  closeSession?: boolean;
}

export interface SubmitResult {
  /** True when this `(connector, messageId)` was stored before; nothing new was queued. */
  duplicate: boolean;
  /** The platform thread_id the message goes to. */
  threadId: string;
}

/** An external message read and deliberately not posted (an auto-reply, a bounce, the gateway's own mail). */
export interface SkipRecord {
  messageId: string;
  /** A stable code such as `TG_EMAIL_AUTO_REPLY`. */
  code: string;
  reason: string;
  senderId?: string;
  /** A short description for the log (a subject line); never a body. */
  summary?: string;
}

// ─── Threads ──────────────────────────────────────────────────────────────────

/** What the gateway knows of one conversation. */
export interface Thread {
  /** The connector's key. */
  key: string;
  /** The platform's thread_id (derived from the key, at most 512 characters, stable). */
  threadId: string;
  /** The platform chat of the latest session, once known. */
  chatId: string | null;
  /** External references attached so far, oldest first. */
  references: string[];
  /** True after the gateway asked the platform to close the session, until the next message. */
  closed: boolean;
  createdAt: Date;
}

export interface ThreadDirectory {
  get(threadKey: string): Promise<Thread | undefined>;
  /** By the platform's thread_id (as in a webhook event). */
  byThreadId(threadId: string): Promise<Thread | undefined>;
  /** By an attached external reference. */
  byReference(reference: string): Promise<Thread | undefined>;
  /** Attaches references to a thread, creating the thread when it is new. */
  attach(threadKey: string, references: string[]): Promise<Thread>;
}

// ─── State ────────────────────────────────────────────────────────────────────

/** A small key–value store scoped to the connector (cursors and the like); values are JSON. */
export interface ConnectorState {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
  /** The keys that start with `prefix`, in key order, at most `limit` (default 100): e.g. a connector's own outbox. */
  keys(prefix: string, limit?: number): Promise<string[]>;
}

// ─── The context and the instance ─────────────────────────────────────────────

export interface SubmitOptions {
  /** State entries (key → JSON value) written with a new message, as `state.set` would. */
  state?: Readonly<Record<string, unknown>>;
}

/** One message of `submitAll`, with the state entries stored with it when it is new. */
export interface SubmitItem {
  message: SubmitMessage;
  state?: Readonly<Record<string, unknown>>;
}

export interface ConnectorContext {
  /** The connector's name from the settings. */
  readonly name: string;
  /**
   * Stores the message, maps its thread and queues the platform POST, in one transaction. `options.state`: entries
   * of the connector's state stored in that same transaction when the message is new (not for a duplicate) — what
   * the connector keeps about the thread, without a second commit.
   */
  submit(message: SubmitMessage, options?: SubmitOptions): Promise<SubmitResult>;
  /**
   * Several messages (each with its `state`, as `submit`) in ONE transaction, in order: all are stored or none, and
   * it resolves after that one commit with a result per message. Every message is checked before anything is
   * written; an invalid one rejects the call with `TG_SUBMIT_INVALID` (its `index` on the error). For a backlog: one
   * commit for many messages.
   */
  submitAll(items: readonly SubmitItem[]): Promise<SubmitResult[]>;
  /** Queues closing the thread's session on the platform (after its pending messages). */
  close(threadKey: string): Promise<void>;
  /** Records a message that is not posted, with the reason; `duplicate` when recorded before. */
  skip(record: SkipRecord): Promise<{ duplicate: boolean }>;
  readonly threads: ThreadDirectory;
  readonly state: ConnectorState;
  readonly routes: ConnectorRoutes;
  /** A child logger naming the connector; secrets are redacted at the root. */
  readonly logger: Logger;
  /**
   * Seals a small secret to keep in `state` (a rotated refresh token) with the gateway's `store.encryption_key`;
   * undefined when none is configured — then keep such a secret in memory only.
   */
  readonly sealer: Sealer | undefined;
  /** Credentials an operator replaced at run time with `threadgate secrets set` (keys named in `secretKeys`); see `ConnectorSecrets`. */
  readonly secrets: ConnectorSecrets;
  /** Keeps files (a mail's attachments) for the platform's agents and answers a link to each; see `FileStore`. */
  readonly files: FileStore;
  /** Downloads an attachment of an agent's message from the platform (only from the platform's own host, or files.fetch_hosts), at most maxBytes. */
  readonly attachments: AttachmentFetcher;
  /**
   * Records what the other side later reported of a message the connector sent, by the `externalId` its `deliver`
   * returned: sent, delivered, read, or failed with a reason. The furthest status is kept (a late or repeated report
   * changes nothing) and shown with that delivery in the delivery log; nothing is posted. See `DeliveryReceipts`.
   */
  readonly receipts: DeliveryReceipts;
  /**
   * Asks this connector's `poll` for a turn now, on whichever replica runs it (there its `PollContext.onWake`
   * listener is called): after storing, in `state`, work that only the poll does (a reply's copy for the mailbox's
   * one session). Nothing happens where no poll runs; the poll's own schedule is the safety net.
   */
  wakePoller(): void;
}

/** What `deliver` is told about the attempt it makes. */
export interface DeliverContext {
  /** Aborted when the gateway stops before the attempt finished; pass it to your I/O. */
  signal: AbortSignal;
  /** 1 for the first try of this delivery, counting up through retries. */
  attempt: number;
}

export interface DeliverResult {
  /** The id the external side gave what was sent (an e-mail Message-ID, a note id), for the delivery log. */
  externalId?: string;
  /**
   * The connector has no use for this event and sent nothing (reply suggestions to a system without drafts):
   * why, in a few words. The delivery log shows it as `skipped` with this reason, not as `delivered`.
   */
  skipped?: string;
}

export interface ConnectorHealth {
  ok: boolean;
  /** Free-form details (connected, last error…); no secrets. */
  details?: Record<string, unknown>;
}

/** What `poll` gets: its signal, and the state to keep its progress (cursor) in. */
export interface PollContext {
  /** Aborts when the gateway stops or this replica lost the poller's lease. */
  signal: AbortSignal;
  /**
   * The connector's state; with several replicas each write is checked, in the transaction that stores it, against
   * this replica's hold on the poller, and refused (`TG_POLLER_LEASE_LOST`) once another replica took over.
   */
  state: ConnectorState;
  /** Registers what to do when `ConnectorContext.wakePoller()` was called, on this replica or another; absent in a poll run by hand (a test). */
  onWake?(listener: () => void): void;
}

export interface ConnectorInstance {
  /** Begin what runs on every replica; `signal` aborts when the gateway stops. */
  start(signal: AbortSignal): Promise<void> | void;
  /**
   * Reads the external system (a mailbox, a ticket queue) until `signal` aborts: on exactly one replica at a time
   * (a lease in the store), started again on whichever replica takes the lease over. Keep the cursor in
   * `ctx.state`. Resolve only once the reading stopped.
   */
  poll?(ctx: PollContext): Promise<void>;
  stop(): Promise<void> | void;
  /**
   * Sends one agent event outward. `thread` is undefined when the gateway has no record of it. At-least-once: a
   * crash after sending and before the gateway recorded it repeats the call, so pass a stable id outward.
   */
  deliver(event: WebhookEvent, thread: Thread | undefined, context: DeliverContext): Promise<DeliverResult | void>;
  health?(): Promise<ConnectorHealth> | ConnectorHealth;
  /**
   * A reload of the settings (SIGHUP) changed this connector's entry: `config` is the new one, checked by its
   * schema. Apply what can change while running (a credential) and answer those keys, dotted within the entry
   * (`imap.auth.refresh_token`); every other changed key is logged as needing a restart. Without it, all do.
   */
  reconfigure?(config: unknown): string[];
}

export interface ConnectorDefinition<S extends z.ZodType = z.ZodType> {
  /** The `type` of settings entries this connector serves: lower-case letters, digits and dashes. */
  type: string;
  /** Validates the entry's own keys (everything but name, type, room_id and module). */
  configSchema: S;
  create(config: z.output<S>, ctx: ConnectorContext): Promise<ConnectorInstance> | ConnectorInstance;
  /** Keys (dotted, within the entry) an operator may replace at run time with `threadgate secrets set`; see `ConnectorSecrets`. */
  secretKeys?: readonly string[];
}

/** Declares a connector; the module's default export must be its result. */
export function defineConnector<S extends z.ZodType>(definition: ConnectorDefinition<S>): ConnectorDefinition<S> {
  return Object.freeze({ ...definition });
}
