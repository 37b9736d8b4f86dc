/**
 * One request to the platform on behalf of a caller: streamed both ways
 * (downloads and uploads are never held whole), headers filtered as
 * forward-headers.ts says, redirects passed back untouched. The request goes
 * out as origin + path, never as a URL string: undici would re-parse that and
 * remove dot segments, so the path sent is byte for byte the path the proxy
 * checked. No answer in time is 504, no connection 502 — both as JSON errors.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { errors, type Dispatcher } from 'undici';
import { ThreadgateError } from '../../errors.ts';
import { downstreamHeaders, upstreamHeaders, type SeenBy } from './forward-headers.ts';

export class UpstreamTimeoutError extends ThreadgateError {
  readonly code = 'TG_UPSTREAM_TIMEOUT';
  override readonly statusCode = 504;
}

export class UpstreamUnreachableError extends ThreadgateError {
  readonly code = 'TG_UPSTREAM_UNREACHABLE';
  override readonly statusCode = 502;
}

export interface ForwardInput {
  /** `scheme://host[:port]` of the upstream. */
  origin: string;
  /** The request target sent as it is: the upstream's base path, the checked path and the query. */
  path: string;
  /** The upstream's connection pool. */
  dispatcher: Dispatcher;
  method: string;
  headers: IncomingHttpHeaders;
  /** The bytes to send: a buffer already read (checked JSON) or the caller's stream. */
  body: Buffer | Readable | undefined;
  authorization: string | undefined;
  seen: SeenBy;
  timeoutMs: number;
}

export interface Forwarded {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

function contentLength(input: ForwardInput): number | string | undefined {
  if (Buffer.isBuffer(input.body)) return input.body.length;
  return input.body !== undefined ? input.headers['content-length'] : undefined;
}

export async function forward(input: ForwardInput): Promise<Forwarded> {
  let res: Dispatcher.ResponseData;
  try {
    res = await input.dispatcher.request({
      origin: input.origin,
      path: input.path,
      method: input.method as Dispatcher.HttpMethod,
      headers: upstreamHeaders({ headers: input.headers, authorization: input.authorization, contentLength: contentLength(input), seen: input.seen }),
      body: input.body,
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    });
  } catch (err) {
    if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError || err instanceof errors.ConnectTimeoutError) {
      throw new UpstreamTimeoutError(`the platform did not answer ${input.method} within ${input.timeoutMs} ms`, { cause: err });
    }
    throw new UpstreamUnreachableError(`the platform could not be reached for ${input.method}: ${(err as { code?: string }).code ?? (err as Error).message}`, { cause: err });
  }
  return { status: res.statusCode, headers: downstreamHeaders(res.headers), body: res.body };
}
