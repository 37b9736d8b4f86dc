/**
 * The connector contract's files and credentials (re-exported by api.ts, where a connector imports them from):
 * downloading an agent's attachments, the gateway's file store, credentials an operator set at run time, and
 * sealing a small secret to keep in the connector's state.
 */
import type { MessageAttachment } from '../platform/schemas/unified-messaging.ts';

/**
 * Downloads what an agent attached to a message (`knownAttachments(event.message.attachments)`). Only URLs on the
 * platform's own host (its API address) or on a host of `files.fetch_hosts` are fetched; the platform token is sent
 * only to the platform's API origin. At most 3 redirects, each to an allowed host; 30 s for the whole download.
 * Throws `AttachmentTooLargeError`, `AttachmentHostRefusedError`, `AttachmentUnavailableError` (permanent) or
 * `AttachmentFetchError` (transient), so letting them propagate from `deliver` retries or dead-letters rightly;
 * the caller's `signal` aborting throws its reason.
 */
export interface AttachmentFetcher {
  /** `maxBytes`: at most this many bytes (default and ceiling: `files.max_fetch_bytes`, 25 MiB). */
  fetch(attachment: MessageAttachment, options?: { maxBytes?: number; signal?: AbortSignal }): Promise<FetchedAttachment>;
}

/** A downloaded attachment, in the shape `ctx.files.put` takes. */
export interface FetchedAttachment {
  /** A file's `name`; an image's last URL path segment, or `image.<ext>` from its content type. No path, no control characters. */
  filename: string;
  /** From the answer's Content-Type (lower-case, parameters kept); application/octet-stream when absent or unreadable. */
  contentType: string;
  content: Buffer;
}

/**
 * The gateway's file store: bytes kept in the store, each served to whoever holds its link (no login) until the
 * link expires — after `files.link_ttl_days` (default 30), or `store.retention_days` if shorter — when the file is
 * pruned. Store only what the connector's own limits allow (a per-file and per-message size setting): every byte
 * put here sits in the database until then. The filename is cleaned (no path, no control characters); a content
 * type that is not `type/subtype` becomes application/octet-stream, and a type a browser would run (HTML, SVG,
 * script) is served as a download, never as a page.
 */
export interface FileStore {
  /**
   * Stores one file and answers its id, its absolute signed link (`<public_url>/files/<id>?e=…&s=…`, to post
   * with the message) and its size in bytes. Resolves after the commit: the link works on every replica.
   */
  put(file: { filename: string; contentType: string; content: Buffer }): Promise<{ id: string; url: string; size: number }>;
}

/**
 * Credentials an operator set at run time, for the keys the definition names in `secretKeys`:
 * `printf %s "$TOKEN" | threadgate secrets set <connector> <key>` seals the value (store.encryption_key) into the
 * store, where every replica reads it. Ask at each use (a login, a token refresh), not once at start.
 */
export interface ConnectorSecrets {
  /**
   * The value set for `key` (dotted, within the connector's entry: `imap.auth.refresh_token`) while the settings
   * still hold `configured` there — a value written into the settings file since wins again. Undefined when none
   * was set, or without store.encryption_key.
   */
  get(key: string, configured: string | undefined): Promise<string | undefined>;
}

/** Encryption at rest for small secrets (AES-256-GCM); `open` throws for a value sealed under another key or altered. */
export interface Sealer {
  seal(plain: string): string;
  open(sealed: string): string;
}
