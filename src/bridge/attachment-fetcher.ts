/**
 * `ctx.attachments`: downloads what an agent attached to a message, for a
 * connector to pass on (a mail attachment, a ticket upload).
 *
 * The URLs come from webhook events, so the gateway fetches only where the
 * platform keeps files: the platform's own host (its API address, port
 * included) and the host names of `files.fetch_hosts` (a CDN). The platform
 * token goes only to the platform's API origin (scheme, host and port), where
 * the platform client sends it anyway; never to a CDN. Redirects are followed
 * (at most 3), each target checked against the same hosts, because a platform
 * commonly answers a file link with a redirect to signed storage. One timeout
 * (30 s) covers every hop and the whole body; the size is checked against
 * Content-Length before reading and again as the body arrives.
 * docs/decisions/attachment-fetch.md.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from '../platform/undici.ts';
import {
  AttachmentFetchError,
  AttachmentHostRefusedError,
  AttachmentTooLargeError,
  AttachmentUnavailableError,
  type AttachmentFetcher,
  type FetchedAttachment,
  type MessageAttachment,
} from '../connector/api.ts';
import { ThreadgateError } from '../base/errors.ts';
import { parseRetryAfter } from '../platform/retry.ts';
import { cleanContentType, cleanFilename } from './files.ts';

export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'threadgate';
const FALLBACK_TYPE = 'application/octet-stream';

export interface AttachmentFetcherDeps {
  /** The platform's API address: `platform.url`, or the embedded sandbox's. */
  platformUrl: string;
  /** The platform client's Authorization value, read at each download (a reloaded token reaches it). */
  authorization: () => string;
  /** `files.fetch_hosts`, lower-case. */
  fetchHosts: readonly string[];
  /** `files.max_fetch_bytes`: the default limit, and the ceiling of a connector's own `maxBytes`. */
  maxBytes: number;
  /** For all hops and the whole body together; default 30 s. */
  timeoutMs?: number;
  /** Used instead of an own Agent; not closed by `close()`. */
  dispatcher?: Dispatcher;
}

export class HttpAttachmentFetcher implements AttachmentFetcher {
  readonly #platform: URL;
  readonly #hosts: ReadonlySet<string>;
  readonly #deps: AttachmentFetcherDeps;
  readonly #timeoutMs: number;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(deps: AttachmentFetcherDeps) {
    this.#deps = deps;
    this.#platform = new URL(deps.platformUrl);
    this.#hosts = new Set(deps.fetchHosts.map((h) => h.toLowerCase()));
    this.#timeoutMs = deps.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
    this.#ownsDispatcher = deps.dispatcher === undefined;
    this.#dispatcher = deps.dispatcher ?? new Agent({ connections: 8, keepAliveTimeout: 10_000 });
  }

  async fetch(attachment: MessageAttachment, options: { maxBytes?: number; signal?: AbortSignal } = {}): Promise<FetchedAttachment> {
    const maxBytes = Math.min(options.maxBytes ?? this.#deps.maxBytes, this.#deps.maxBytes);
    const what = attachment.type === 'file' ? `file "${attachment.name}"` : 'image';
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    let host = '';
    try {
      const url = this.#allowed(attachment.url, what);
      host = url.host;
      const res = await this.#follow(url, what, signal);
      const content = await readCapped(res.body, res.headers, maxBytes, what);
      const contentType = cleanContentType(first(res.headers['content-type']) ?? FALLBACK_TYPE);
      return { filename: filenameOf(attachment, contentType), contentType, content };
    } catch (err) {
      if (err instanceof ThreadgateError) throw err;
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted || isUndiciTimeout(err)) {
        throw new AttachmentFetchError(`downloading the ${what} from ${host} took longer than ${this.#timeoutMs} ms`, undefined, undefined, { cause: err });
      }
      const reason = err instanceof Error ? err.message : String(err);
      throw new AttachmentFetchError(`downloading the ${what} from ${host} failed: ${reason}`, undefined, undefined, { cause: err });
    }
  }

  /** Closes the connections of its own Agent. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** The URL (`href` resolved against `base`) when its host may be fetched from; else AttachmentHostRefusedError. */
  #allowed(href: string, what: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      throw new AttachmentHostRefusedError(`the ${what} has no valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AttachmentHostRefusedError(`the ${what} is not on http(s) (${url.protocol})`);
    if (url.username !== '' || url.password !== '') throw new AttachmentHostRefusedError(`the ${what}'s URL carries credentials`);
    if (url.host === this.#platform.host || this.#hosts.has(url.hostname)) return url;
    throw new AttachmentHostRefusedError(`the ${what} is on ${url.hostname}, neither the platform's host (${this.#platform.host}) nor in files.fetch_hosts`);
  }

  /** GETs `url`, following allowed redirects; answers the 2xx response with its body unread. */
  async #follow(start: URL, what: string, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    let url = start;
    for (let hop = 0; ; hop += 1) {
      const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
      if (url.origin === this.#platform.origin) headers.authorization = this.#deps.authorization();
      const res = await this.#dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'GET',
        headers,
        signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
      const status = res.statusCode;
      if (status >= 200 && status < 300) return res;
      await res.body.dump({ limit: 64 * 1024, signal }).catch(() => undefined);
      const location = first(res.headers.location);
      if (!REDIRECTS.has(status) || location === undefined) throw statusError(status, res.headers, `the ${what} on ${url.host}`);
      if (hop >= MAX_REDIRECTS) throw new AttachmentUnavailableError(`the ${what} redirected more than ${MAX_REDIRECTS} times`, status);
      url = this.#allowed(location, `${what} (redirected)`, url);
    }
  }
}

/** The body, refused past `maxBytes` by its Content-Length or as it arrives. */
async function readCapped(body: Dispatcher.ResponseData['body'], headers: IncomingHttpHeaders, maxBytes: number, what: string): Promise<Buffer> {
  const tooLarge = (size: string) => new AttachmentTooLargeError(`the ${what} has ${size}, more than the ${maxBytes} allowed`, maxBytes);
  const declared = Number(first(headers['content-length']));
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw tooLarge(`${declared} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      discard(body);
      throw tooLarge(`over ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Closes the connection mid-body; undici then emits an AbortError, which must not go unhandled. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** 408, 429 and 5xx may pass: transient. Any other refusal (a 4xx, a redirect without Location) stays. */
function statusError(status: number, headers: IncomingHttpHeaders, what: string): ThreadgateError {
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfter = parseRetryAfter(first(headers['retry-after']));
    return new AttachmentFetchError(`${what} answered ${status}`, status, retryAfter);
  }
  return new AttachmentUnavailableError(`${what} answered ${status}`, status);
}

/** A file's name; an image's last URL path segment when it has an extension, else `image.<ext>` from its type. */
function filenameOf(attachment: MessageAttachment, contentType: string): string {
  if (attachment.type === 'file' && attachment.name.trim() !== '') return cleanFilename(attachment.name);
  const segment = safeDecode(new URL(attachment.url).pathname.split('/').at(-1) ?? '');
  if (/\.[a-z0-9]{1,8}$/i.test(segment)) return cleanFilename(segment);
  const base = attachment.type === 'file' ? 'file' : 'image';
  const [kind, subtype = ''] = contentType.split(';')[0]!.split('/');
  const ext = subtype.split('+')[0]!.replace(/^x-/, '').replace(/^jpeg$/, 'jpg');
  return kind === 'image' && /^[a-z0-9]{1,8}$/.test(ext) ? `${base}.${ext}` : base;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** undici's own header or body timeout (the same limit, reached a moment before the signal's). */
function isUndiciTimeout(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
