/**
 * Spans and times as operators type them: `90s`, `15m`, `2h`, `7d` (or plain
 * milliseconds), and "since" values that are either such a span ago or an ISO
 * time. Shared by the command line and the admin API; imports nothing of ours.
 */
const SPAN = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of `90s`-style text (no unit: milliseconds); undefined when it is not one. */
export function spanMs(value: string): number | undefined {
  const match = SPAN.exec(value.trim());
  return match ? Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] as number)) : undefined;
}

/** `2h` → that long before `now`; an ISO time → that instant (Unix ms); undefined otherwise. */
export function timeFrom(value: string, now: number = Date.now()): number | undefined {
  if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(value.trim())) return now - (spanMs(value) as number);
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
