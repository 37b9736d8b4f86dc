/**
 * A file the platform answers with (a CSV or XLSX export, an avatar image):
 * its content type, the filename of its Content-Disposition, and the body,
 * read once — as a stream (nothing buffered) or whole. A download not read
 * holds its connection until `discard()` (or the end of an `await using`
 * scope); the client's timeout applies to each read of the body.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ThreadgateError } from '../base/errors.ts';

/** A download's body was asked for a second time. */
export class DownloadConsumedError extends ThreadgateError {
  readonly code = 'TG_PLATFORM_DOWNLOAD_CONSUMED';
}

export class PlatformDownload {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The media type without parameters, e.g. `text/csv`; empty when none was sent. */
  readonly contentType: string;
  /** From Content-Disposition (`filename*` preferred); undefined when none was sent. */
  readonly filename: string | undefined;
  #body: Dispatcher.ResponseData['body'] | undefined;

  constructor(status: number, headers: IncomingHttpHeaders, body: Dispatcher.ResponseData['body']) {
    this.status = status;
    this.headers = headers;
    this.contentType = (firstHeader(headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();
    this.filename = filenameOf(firstHeader(headers['content-disposition']));
    this.#body = body;
  }

  /** The body as a Node stream; the caller reads or destroys it. */
  stream(): Readable {
    return this.#take();
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.#take().arrayBuffer());
  }

  async text(): Promise<string> {
    return this.#take().text();
  }

  /** Frees the connection without reading (a download not wanted after all). */
  async discard(): Promise<void> {
    const body = this.#body;
    this.#body = undefined;
    await body?.dump();
  }

  /** `await using download = await platform.exportFormSubmissionsCsv(…)`: an unread body is discarded at scope end. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.discard();
  }

  #take(): Dispatcher.ResponseData['body'] {
    const body = this.#body;
    if (body === undefined) throw new DownloadConsumedError('the download body was already read');
    this.#body = undefined;
    return body;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.csv` or `attachment; filename="report.csv"`. */
export function filenameOf(disposition: string | undefined): string | undefined {
  if (disposition === undefined) return undefined;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(disposition);
  if (extended) {
    try {
      return decodeURIComponent(extended[2]!.trim());
    } catch {
      // fall through to the plain form
    }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(disposition);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  const bare = /filename\s*=\s*([^;\s]+)/i.exec(disposition);
  return bare?.[1];
}
