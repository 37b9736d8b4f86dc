/**
 * A writable stream that keeps every line written to it, for tests that hand
 * a logger (createLogger's destination) their own sink and read it back.
 */
import { Writable } from 'node:stream';

export function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}
