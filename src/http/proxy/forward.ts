/**
 * One request to the platform on behalf of a caller: streamed both ways
 * (downloads and uploads are never held whole), hop-by-hop headers dropped,
 * X-Forwarded-* added, redirects passed back untouched. No answer in time is
 * 504, no connection 502 — both as JSON errors.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { errors, request, type Dispatcher } from 'undici';
import { ThreadgateError } from '../../errors.ts';

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers',
  'transfer-encoding', 'upgrade', 'host', 'content-length',
]);

export class UpstreamTimeoutError extends ThreadgateError {
  readonly code = 'TG_UPSTREAM_TIMEOUT';
  override readonly statusCode = 504;
}

export class UpstreamUnreachableError extends ThreadgateError {
  readonly code = 'TG_UPSTREAM_UNREACHABLE';
  override readonly statusCode = 502;
}

export interface ForwardInput {
  url: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The bytes to send: a buffer already read (checked JSON) or the caller's stream. */
  body: Buffer | Readable | undefined;
  authorization: string | undefined;
  forwardedFor: string;
  forwardedProto: string;
  forwardedHost: string;
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

export interface Forwarded {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

function requestHeaders(input: ForwardInput): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(input.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'authorization' || name.startsWith('x-forwarded-')) continue;
    out[name] = value;
  }
  if (input.authorization !== undefined) out.authorization = input.authorization;
  if (Buffer.isBuffer(input.body)) out['content-length'] = String(input.body.length);
  else if (input.body !== undefined && input.headers['content-length'] !== undefined) out['content-length'] = String(input.headers['content-length']);
  const prior = input.headers['x-forwarded-for'];
  out['x-forwarded-for'] = prior ? `${String(prior)}, ${input.forwardedFor}` : input.forwardedFor;
  out['x-forwarded-proto'] = input.forwardedProto;
  out['x-forwarded-host'] = input.forwardedHost;
  return out;
}

export async function forward(input: ForwardInput): Promise<Forwarded> {
  let res: Dispatcher.ResponseData;
  try {
    res = await request(input.url, {
      method: input.method as Dispatcher.HttpMethod,
      headers: requestHeaders(input),
      body: input.body,
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
      ...(input.dispatcher ? { dispatcher: input.dispatcher } : {}),
    });
  } catch (err) {
    if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError || err instanceof errors.ConnectTimeoutError) {
      throw new UpstreamTimeoutError(`the platform did not answer ${input.method} within ${input.timeoutMs} ms`, { cause: err });
    }
    throw new UpstreamUnreachableError(`the platform could not be reached for ${input.method}: ${(err as { code?: string }).code ?? (err as Error).message}`, { cause: err });
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  return { status: res.statusCode, headers, body: res.body };
}
