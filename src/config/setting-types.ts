/** Value types several sections of the settings share: an http(s) URL, a duration as operators write it. */
import { z } from 'zod';
import { spanMs } from '../base/time-spans.ts';

export const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

/** A duration as operators write it (`90s`, `15m`, `2h`, `3d`, `250ms`) from `min` to `max`; parsed to milliseconds. */
export function duration(min: string, max: string) {
  const [low, high] = [spanMs(min) as number, spanMs(max) as number];
  return z.string({ error: 'expected a duration such as 90s, 15m, 2h or 3d' }).transform((value, ctx) => {
    const ms = /[a-z]$/.test(value.trim()) ? spanMs(value) : undefined; // a unit is required: a bare 3600 reads as seconds to some
    if (ms === undefined) ctx.issues.push({ code: 'custom', input: value, message: `expected a duration such as 90s, 15m, 2h or 3d, got "${value}"` });
    else if (ms < low || ms > high) ctx.issues.push({ code: 'custom', input: value, message: `must be from ${min} to ${max}, got "${value}"` });
    return ms ?? z.NEVER;
  });
}
