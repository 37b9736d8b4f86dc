/**
 * The body of an answer the proxy passes back: either the platform's, still
 * arriving (forward.ts), or bytes in hand (a stored answer, or one read whole
 * to be stored). Either is sent to the caller's response once its head is
 * written, or read whole.
 */
import type { ServerResponse } from 'node:http';

export interface AnswerBody {
  /** Writes the body to `res` (its head already written) as it comes, then ends it; a failure destroys `res`. */
  sendTo(res: ServerResponse): void;
  /** The whole body; for answers that are stored. Once only, and not with sendTo. */
  read(): Promise<Buffer>;
  /** Not wanted after all: what is still coming is given up. */
  discard(reason: Error): void;
}

/** A body already in hand. */
export class BufferedBody implements AnswerBody {
  readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  sendTo(res: ServerResponse): void {
    res.end(this.bytes);
  }

  read(): Promise<Buffer> {
    return Promise.resolve(this.bytes);
  }

  discard(): void {}
}
