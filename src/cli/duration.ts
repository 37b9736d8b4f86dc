/** Durations on the command line: `90s`, `15m`, `2h`, `7d`, or plain milliseconds. */
import { spanMs } from '../base/time-spans.ts';
import { UsageError } from './errors.ts';

export function parseDuration(value: string, name: string): number {
  const ms = spanMs(value);
  if (ms === undefined) throw new UsageError(`${name} must be a duration such as 90s, 15m, 2h or 7d, got "${value}"`);
  return ms;
}
