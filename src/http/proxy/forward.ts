/**
 * One request to the platform on behalf of a caller: streamed both ways
 * (downloads and uploads are never held whole), headers filtered as
 * forward-headers.ts says, redirects passed back untouched. The request goes
 * out as origin + path, never as a URL string: undici would re-parse that and
 * remove dot segments, so the path sent is byte for byte the path the proxy
 * checked. No answer in time is 504, no connection 502 — both as JSON errors.
 *
 * The request is dispatched on the upstream's pool with a handler of our own
 * (no intermediate stream): `forward` resolves when the answer's head has
 * come (`forwardTo` hands it over in undici's callback, without a promise),
 * and its body is then written to the caller chunk by chunk as it arrives — the upstream is paused while the caller's socket is full — or
 * read whole for an answer that is stored (answer-body.ts). Large bodies
 * report what they pass on (large-body-gc.ts).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { errors, type Dispatcher } from '../../platform/undici.ts';
import { ThreadgateError } from '../../base/errors.ts';
import type { AnswerBody } from './answer-body.ts';
import { downstreamHeaders, upstreamHeaders, type SeenBy } from './forward-headers.ts';
import { LARGE_BODY_BYTES, passedOn } from './large-body-gc.ts';

export class UpstreamTimeoutError extends ThreadgateError {
  readonly code = 'TG_UPSTREAM_TIMEOUT';
  override readonly statusCode = 504;
}

export class UpstreamUnreachableError extends ThreadgateError {
  readonly code = 'TG_UPSTREAM_UNREACHABLE';
  override readonly statusCode = 502;
}

/** The platform's answer cannot be passed on as it came (a header Node.js refuses to write). */
export class UpstreamAnswerInvalidError extends ThreadgateError {
  readonly code = 'TG_UPSTREAM_INVALID';
  override readonly statusCode = 502;
}

/** The caller closed its connection before the answer was through; nothing is left to answer. */
export class CallerGoneError extends ThreadgateError {
  readonly code = 'TG_CALLER_GONE';
  override readonly statusCode = 499;
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
  /**
   * The caller's response, when the answer goes straight to it: should it close before the answer is through (the
   * caller gone), the platform request is given up rather than left holding a connection.
   */
  caller?: ServerResponse;
}

export interface Forwarded {
  status: number;
  headers: Record<string, string | string[]>;
  body: AnswerBody;
}

function contentLength(input: ForwardInput): number | string | undefined {
  if (Buffer.isBuffer(input.body)) return input.body.length;
  return input.body !== undefined ? input.headers['content-length'] : undefined;
}

/** Where the outcome of a forwarded request goes: its answer once the head came, or why there is none. */
export interface AnswerHandler {
  answered(answer: Forwarded): void;
  failed(err: Error): void;
}

/** The platform's answer once its head came; its body still arriving (taken with `sendTo` or `read`). */
export function forward(input: ForwardInput): Promise<Forwarded> {
  return new Promise((answered, failed) => forwardTo(input, { answered, failed }));
}

/**
 * The same, the answer handed over inside undici's callback, as soon as its head came: a handler that takes the
 * body there and then (`sendTo`) gets every chunk as it is read, without the platform paused in between.
 * `answered` must not throw.
 */
export function forwardTo(input: ForwardInput, handler: AnswerHandler): void {
  input.dispatcher.dispatch(
    {
      origin: input.origin,
      path: input.path,
      method: input.method as Dispatcher.HttpMethod,
      headers: upstreamHeaders({ headers: input.headers, authorization: input.authorization, contentLength: contentLength(input), seen: input.seen }),
      body: input.body ?? null,
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    },
    new Exchange(input, handler),
  );
}

function upstreamError(input: ForwardInput, err: Error): ThreadgateError {
  if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError || err instanceof errors.ConnectTimeoutError) {
    return new UpstreamTimeoutError(`the platform did not answer ${input.method} within ${input.timeoutMs} ms`, { cause: err });
  }
  return new UpstreamUnreachableError(`the platform could not be reached for ${input.method}: ${(err as { code?: string }).code ?? err.message}`, { cause: err });
}

/** Where the answer's body goes once someone takes it: a chunk (false: full, pause), its end, a failure. */
interface Sink {
  data(chunk: Buffer): boolean;
  end(): void;
  fail(err: Error): void;
}

/** One proxied exchange: undici's handler for it, and the body of its answer. */
class Exchange implements Dispatcher.DispatchHandler, AnswerBody {
  readonly #input: ForwardInput;
  #settle: AnswerHandler | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange was given up before undici started it. */
  #abandoned: Error | undefined;
  #sink: Sink | undefined;
  /** Chunks that came before the body was taken (undici may hand over what it already read). */
  #early: Buffer[] | undefined;
  /** Whether the platform was paused until the body is taken. */
  #waiting = false;
  #ended = false;
  #error: Error | undefined;
  /** Body bytes passed so far: to the platform, and back. */
  #sent = 0;
  #received = 0;

  constructor(input: ForwardInput, handler: AnswerHandler) {
    this.#input = input;
    this.#settle = handler;
    const caller = input.caller;
    if (caller === undefined) return;
    if (caller.destroyed) this.#abandon();
    else caller.once('close', () => caller.writableFinished || this.#abandon());
  }

  #abandon(): void {
    if (this.#ended || this.#error !== undefined) return;
    const reason = new CallerGoneError('the caller closed the connection');
    if (this.#controller === undefined) this.#abandoned = reason;
    else this.#controller.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abandoned !== undefined) controller.abort(this.#abandoned);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    const settle = this.#settle!;
    this.#settle = undefined;
    settle.answered({ status: statusCode, headers: downstreamHeaders(headers), body: this });
    if (this.#sink === undefined) {
      this.#waiting = true;
      controller.pause(); // until the body is taken
    }
  }

  onBodySent(chunk: Buffer): void {
    this.#sent += chunk.length;
    if (this.#sent > LARGE_BODY_BYTES) passedOn(chunk.length);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#received += chunk.length;
    if (this.#received > LARGE_BODY_BYTES) passedOn(chunk.length);
    if (this.#sink === undefined) {
      (this.#early ??= []).push(chunk);
      this.#waiting = true;
      controller.pause();
    } else if (!this.#sink.data(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.#ended = true;
    this.#sink?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, err: Error): void {
    if (this.#settle !== undefined) {
      const settle = this.#settle;
      this.#settle = undefined;
      return settle.failed(err instanceof CallerGoneError ? err : upstreamError(this.#input, err));
    }
    this.#error = err;
    this.#sink?.fail(err);
  }

  sendTo(res: ServerResponse): void {
    const resume = () => this.#controller?.resume();
    if (res !== this.#input.caller) res.once('close', () => res.writableFinished || this.#abandon());
    this.#take({
      data: (chunk) => {
        if (res.write(chunk)) return true;
        res.once('drain', resume);
        return false;
      },
      end: () => res.end(),
      fail: (err) => res.destroy(err),
    });
  }

  read(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      this.#take({
        data: (chunk) => chunks.push(chunk) > 0,
        end: () => resolve(Buffer.concat(chunks)),
        fail: reject,
      });
    });
  }

  discard(reason: Error): void {
    if (!this.#ended && this.#error === undefined) this.#controller?.abort(reason);
  }

  #take(sink: Sink): void {
    if (this.#sink !== undefined) throw new Error('the answer body was already taken');
    this.#sink = sink;
    const early = this.#early;
    this.#early = undefined;
    let room = true;
    if (early !== undefined) for (const chunk of early) room = sink.data(chunk);
    if (this.#error !== undefined) return sink.fail(this.#error);
    if (this.#ended) return sink.end();
    if (room && this.#waiting) {
      this.#waiting = false;
      this.#controller?.resume();
    }
  }
}
