/**
 * Keeping a large body's buffers from piling up in memory. A streamed
 * download or upload is never held: each chunk read from one socket (64 KiB
 * at most) is written to the other and dropped. But a dropped socket buffer
 * is only freed when V8 next collects the young generation, and a proxy
 * passing bytes allocates almost nothing else: V8 counts the buffers as
 * external memory and waits for ~64 MiB of them before it collects, so a
 * 100 MB download raised the gateway's RSS by ~55 MB of buffers already sent.
 *
 * So once a body is past its first MiB, every 8 MiB of such bodies passed on
 * (all exchanges together) asks for a minor collection: a scavenge of the
 * young generation only (well under a millisecond), which frees the buffers
 * in passing. Small answers, the API's usual traffic, never count. The
 * collector is reached as Jest's leak detector reaches it (`--expose-gc` set
 * at run time, `gc` read from a fresh context); if that is refused, nothing
 * is asked and memory behaves as before.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bytes of a body passed before it counts as large. */
export const LARGE_BODY_BYTES = 1024 * 1024;
const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

type Collect = (options: { type: 'minor' }) => void;

let collect: Collect | null | undefined; // undefined: not looked up yet; null: not available
let since = 0;

/** Counts `bytes` of a large body passed on; past every 8 MiB, the young generation is collected. */
export function passedOn(bytes: number): void {
  since += bytes;
  if (since < COLLECT_EVERY_BYTES) return;
  since = 0;
  if (collect === undefined) collect = lookUp();
  collect?.({ type: 'minor' });
}

function lookUp(): Collect | null {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as Collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Collect) : null;
  } catch {
    return null;
  }
}
