/** Durations on the command line: `90s`, `15m`, `2h`, `7d`, or plain milliseconds. */
import { UsageError } from './errors.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(value: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${name} must be a duration such as 90s, 15m, 2h or 7d, got "${value}"`);
  return Math.round(Number(match[1]) * (UNITS[match[2] ?? 'ms'] as number));
}
