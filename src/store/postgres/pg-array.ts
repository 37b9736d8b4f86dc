/**
 * A merged statement's columns (`unnest(?::text[], ?::bigint[], …)`) in
 * PostgreSQL's binary array format, the one `array_recv` reads: no quoting
 * and escaping of every element here, no parsing of it there. As text, the
 * arrays of a batch's bodies cost the gateway their escaping and the server
 * `array_in`, 8 % of its CPU under the receiver's load (docs/benchmarks.md,
 * "Receiver on PostgreSQL replicas"). node-postgres sends a Buffer parameter
 * in binary format as it is.
 *
 * The element type is the one the statement casts the parameter to (the
 * server refuses an array of another); an array whose values do not fit it
 * (a fraction in a bigint column, say) is left to the text form, which
 * reports such a value as the server sees it.
 */
import { pgValue } from './pg-value.ts';

/** Element types sent in binary, by the cast that follows a placeholder (`?::bigint[]`). */
export type ArrayElement = 'text' | 'int8' | 'int4';

const CASTS: Record<string, ArrayElement> = { text: 'text', bigint: 'int8', int8: 'int8', int: 'int4', integer: 'int4', int4: 'int4' };
const OIDS: Record<ArrayElement, number> = { text: 25, int8: 20, int4: 23 };
const TWO_32 = 4_294_967_296;

/** The element type of an array cast at the start of `rest` (`::bigint[]`), or undefined. */
export function arrayCastAt(rest: string): ArrayElement | undefined {
  const cast = /^::(\w+)\[\]/.exec(rest);
  return cast ? CASTS[cast[1]!.toLowerCase()] : undefined;
}

const fits: Record<ArrayElement, (v: unknown) => boolean> = {
  text: (v) => typeof v === 'string',
  int8: (v) => Number.isSafeInteger(v),
  int4: (v) => Number.isInteger(v) && (v as number) >= -2_147_483_648 && (v as number) <= 2_147_483_647,
};

/** `values` as a one-dimensional array of `element`s in binary format, or undefined when a value does not fit it. */
export function binaryArray(values: readonly unknown[], element: ArrayElement): Buffer | undefined {
  const fit = fits[element];
  let nulls = 0;
  let size = 20;
  const texts = element === 'text' ? new Array<string | null>(values.length) : undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      nulls += 1;
      size += 4;
      if (texts) texts[i] = null;
      continue;
    }
    if (!fit(v)) return undefined;
    if (texts) {
      const text = pgValue(v) as string;
      texts[i] = text;
      size += 4 + Buffer.byteLength(text);
    } else size += element === 'int8' ? 12 : 8;
  }
  const buf = Buffer.allocUnsafe(size);
  buf.writeInt32BE(1, 0); // dimensions
  buf.writeInt32BE(nulls > 0 ? 1 : 0, 4);
  buf.writeInt32BE(OIDS[element], 8);
  buf.writeInt32BE(values.length, 12);
  buf.writeInt32BE(1, 16); // lower bound
  let at = 20;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      at = buf.writeInt32BE(-1, at);
    } else if (texts) {
      const length = buf.write(texts[i] as string, at + 4);
      buf.writeInt32BE(length, at);
      at += 4 + length;
    } else if (element === 'int8') {
      const n = v as number;
      const high = Math.floor(n / TWO_32);
      at = buf.writeInt32BE(8, at);
      at = buf.writeInt32BE(high, at);
      at = buf.writeUInt32BE(n - high * TWO_32, at);
    } else {
      at = buf.writeInt32BE(4, at);
      at = buf.writeInt32BE(v as number, at);
    }
  }
  return buf;
}
