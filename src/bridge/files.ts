/**
 * The file store: bytes a connector keeps for the platform's agents (a mail's
 * attachments), stored in the store's `files` table — every replica reads the
 * same database, a backup of it is complete, and retention prunes the files
 * with the rest (docs/decisions/file-store.md) — and
 * handed out as signed links (./file-links.ts) under the gateway's public URL.
 *
 * A file lives `files.link_ttl_days`, or `store.retention_days` when that is
 * shorter: an attachment is part of the message it came with, and goes no
 * later than that message's text. After its expiry the link answers 410 and
 * retention deletes the row. `open` is the download's whole check: a bad
 * signature (whether or not the file exists) is 403, an expired link 410,
 * a genuine link whose file is gone 404.
 *
 * The same bytes under the same name and type, kept for the same connector
 * within an hour, are stored once: the second `put` answers the first row
 * (its link expires with it, at most an hour sooner than a new one would).
 * A mail read again after a crash, a message retried after its files were
 * kept, no longer leaves copies behind. Connectors never share a row.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FileMeta, FileRow } from '../store/files-repo.ts';
import type { Store } from '../store/store.ts';
import { FileLinkExpiredError, FileLinkInvalidError, FileNotFoundError } from './errors.ts';
import type { FileLinks } from './file-links.ts';

export interface NewFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface StoredFile {
  id: string;
  /** `<public URL>/files/<id>?e=…&s=…`. */
  url: string;
  size: number;
}

export interface FileServiceDeps {
  store: Store;
  links: FileLinks;
  /** The gateway's public address without a trailing slash (known once it listens, hence a function). */
  publicUrl: () => string;
  /** How long a file and its link live. */
  ttlMs: number;
  now?: () => number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A copy kept at most this long before is used again instead of storing the bytes twice. */
const REUSE_WITHIN_MS = 60 * 60 * 1000;
const ID_BYTES = 16;
const MAX_FILENAME = 255;
const MAX_CONTENT_TYPE = 200;
const FALLBACK_TYPE = 'application/octet-stream';
const TOKEN = "[a-z0-9!#$%&'*+.^_`|~-]+";
const CONTENT_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;.*)?$`);

/** How long a file lives: `files.link_ttl_days`, or `store.retention_days` when that is shorter. */
export function fileLifetimeMs(linkTtlDays: number, retentionDays: number): number {
  return Math.min(linkTtlDays, retentionDays) * DAY_MS;
}

/** The name kept: its last path segment, without control characters, at most 255 characters; `file` if none is left. */
export function cleanFilename(name: string): string {
  const base = name.replace(/\p{Cc}/gu, '').split(/[/\\]/).at(-1)!.trim();
  const cut = [...base].slice(0, MAX_FILENAME).join('');
  return cut === '' || cut === '.' || cut === '..' ? 'file' : cut;
}

/** The type kept: lower-case `type/subtype` (parameters kept), else application/octet-stream. */
export function cleanContentType(type: string): string {
  const lower = type.replace(/\p{Cc}/gu, '').trim().toLowerCase();
  return lower.length <= MAX_CONTENT_TYPE && CONTENT_TYPE.test(lower) ? lower : FALLBACK_TYPE;
}

export class FileService {
  readonly #deps: FileServiceDeps;
  readonly #now: () => number;

  constructor(deps: FileServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Stores `file` for `connector` and answers its link; resolves after the commit, so every replica serves it. */
  async put(connector: string, file: NewFile): Promise<StoredFile> {
    const raw: unknown = file.content;
    if (!(raw instanceof Uint8Array)) throw new TypeError('files.put: content must be a Buffer');
    const content = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    const now = this.#now();
    // Whole seconds: the link carries the expiry in seconds, and the row must agree with it.
    const expiresAt = Math.floor((now + this.#deps.ttlMs) / 1000) * 1000;
    const row: FileRow = {
      id: randomBytes(ID_BYTES).toString('base64url'),
      connector,
      filename: cleanFilename(file.filename),
      contentType: cleanContentType(file.contentType),
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      content,
      createdAt: now,
      expiresAt,
    };
    // The same file kept again soon after (a mail read again after a crash, a retried message): its row serves.
    const kept = await this.#deps.store.write(async (tx) => {
      const same = await tx.files.findSame(connector, row.sha256, row.filename, row.contentType, expiresAt - REUSE_WITHIN_MS);
      if (same !== undefined) return same;
      await tx.files.insert(row);
      return row;
    });
    return { id: kept.id, url: this.urlFor(kept.id, kept.expiresAt), size: kept.size };
  }

  /** The absolute link of a stored file. */
  urlFor(id: string, expiresAt: number): string {
    return `${this.#deps.publicUrl()}${this.#deps.links.linkFor(id, expiresAt)}`;
  }

  /** Checks a link (`e`, `s` as the query gave them) and answers the file's description; throws 403, 410 or 404. */
  async open(id: string, e: unknown, s: unknown, now: number = this.#now()): Promise<FileMeta> {
    const check = this.#deps.links.verify(id, e, s, now);
    if (check === 'bad-signature') throw new FileLinkInvalidError('the link is not valid: its signature does not match');
    if (check === 'expired') throw new FileLinkExpiredError('the link has expired; ask for the file again');
    const meta = await this.#deps.store.read.files.meta(id);
    if (meta === undefined) throw new FileNotFoundError('the file is no longer kept');
    if (now >= meta.expiresAt) throw new FileLinkExpiredError('the file has expired');
    return meta;
  }

  /** The bytes of an opened file; 404 when it was pruned in between. */
  async content(id: string): Promise<FileRow> {
    const row = await this.#deps.store.read.files.get(id);
    if (row === undefined) throw new FileNotFoundError('the file is no longer kept');
    return row;
  }
}
